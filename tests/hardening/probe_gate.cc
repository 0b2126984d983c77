#include "probe_gate.h"

#include <pthread.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>

extern "C" {
#include "os.h"
}

namespace probegate
{
namespace
{
std::mutex mu;
std::condition_variable cv;
bool armed = false;
bool blocked = false;
Point armed_point = Point::kGetAffinity;
std::function<void()> callbacks[3];
std::atomic<int> reached[3];

int Index(Point p)
{
  return static_cast<int>(p);
}

void Pass(Point point)
{
  reached[Index(point)]++;
  if (callbacks[Index(point)])
    callbacks[Index(point)]();
  std::unique_lock<std::mutex> lock(mu);
  if (!armed || armed_point != point)
    return;
  blocked = true;
  cv.notify_all();
  cv.wait(lock, [] { return !armed; });
}
} // namespace

void Arm(Point point)
{
  std::lock_guard<std::mutex> lock(mu);
  armed = true;
  blocked = false;
  armed_point = point;
}

bool WaitUntilBlocked(unsigned seconds)
{
  std::unique_lock<std::mutex> lock(mu);
  return cv.wait_for(lock, std::chrono::seconds(seconds), [] { return blocked; });
}

void Release()
{
  std::lock_guard<std::mutex> lock(mu);
  armed = false;
  blocked = false;
  cv.notify_all();
}

void DisarmInChild()
{
  armed = false;
  blocked = false;
}

void OnReach(Point point, std::function<void()> callback)
{
  callbacks[Index(point)] = std::move(callback);
}

void ClearCallbacks()
{
  for (auto &c : callbacks)
    c = nullptr;
}

int Reached(Point point)
{
  return reached[Index(point)].load();
}

void Reset()
{
  Release();
  ClearCallbacks();
  for (auto &r : reached)
    r = 0;
}
} // namespace probegate

// The --wrap targets. __real_* are the fakes' (or libc's) definitions.
extern "C" {
bool __real_jf_os_get_affinity(struct jf_cpuset *out);
bool __real_jf_os_pin_self(unsigned cpu);

bool __wrap_jf_os_get_affinity(struct jf_cpuset *out)
{
  probegate::Pass(probegate::Point::kGetAffinity);
  return __real_jf_os_get_affinity(out);
}

bool __wrap_jf_os_pin_self(unsigned cpu)
{
  probegate::Pass(probegate::Point::kPinSelf);
  return __real_jf_os_pin_self(cpu);
}
}
