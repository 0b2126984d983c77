// Hooks inside the probe, installed with the linker's --wrap so that the
// shared fakes (tests/host/fakes) stay untouched: every call the probe makes
// to jf_os_get_affinity (on the thread that runs the probe, first thing
// jf_probe does) and jf_os_pin_self (on the probe's helper thread) passes
// through here first.
//
// A test can make one of them block until released, which proves that a
// probe is in progress at the moment it forks or signals, or run a callback
// at that point (e.g. raise a signal on the probing thread itself).
#pragma once
#include <functional>

namespace probegate
{

enum class Point { kGetAffinity, kPinSelf };

// The next call that reaches POINT blocks until Release(). One point at a time.
void Arm(Point point);
// Waits (up to SECONDS) until a thread is blocked at the armed point.
bool WaitUntilBlocked(unsigned seconds = 10);
// Lets the blocked thread (and any later one) continue; disarms.
void Release();
// Runs CALLBACK in the calling thread each time POINT is reached (before it
// would block), until ClearCallbacks(). Not thread-safe with calls in flight.
void OnReach(Point point, std::function<void()> callback);
void ClearCallbacks();
// In a child right after fork(): forget an armed point without touching the
// mutex or condition variable, whose waiters did not survive the fork.
void DisarmInChild();
// How many times the point was reached since the last Reset().
int Reached(Point point);
void Reset();

} // namespace probegate
