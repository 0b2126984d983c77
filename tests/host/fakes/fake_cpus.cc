#include "fake_cpus.h"

#include <mutex>
#include <string>

#include "fake_fs.h"

extern "C" {
#include "os.h"
#include "regs.h"
}

namespace fakecpus
{
std::atomic<int> ctr_reads{0};
std::atomic<int> probes{0};
namespace
{
Machine machine;
thread_local int pinned = -1;
int Current()
{
  return pinned >= 0 ? pinned : machine.start_cpu;
}
bool Allowed(unsigned cpu)
{
  return machine.allowed.empty() || (cpu < machine.allowed.size() && machine.allowed[cpu]);
}
bool InCallerMask(unsigned cpu)
{
  return machine.caller_mask.empty() ||
         (cpu < machine.caller_mask.size() && machine.caller_mask[cpu]);
}
} // namespace
void Install(const Machine &m)
{
  machine = m;
  ctr_reads = 0;
  probes = 0;
}

void CreateSysfs(const Machine &m)
{
  fakefs::Reset();
  fakefs::CreateFile("/sys/devices/system/cpu/possible",
                     "0-" + std::to_string(m.cpus.size() - 1) + "\n");
  std::string online;
  for (unsigned cpu = 0; cpu < m.cpus.size(); cpu++) {
    if (!m.cpus[cpu].online)
      continue;
    online += (online.empty() ? "" : ",") + std::to_string(cpu);
    // CTR_EL0 IminLine [3:0] and DminLine [19:16]: log2 of the line in words.
    fakefs::CreateL1(cpu, 4u << (m.cpus[cpu].ctr & 0xf), 4u << ((m.cpus[cpu].ctr >> 16) & 0xf));
    fakefs::CreateMidr(cpu, m.cpus[cpu].midr);
  }
  fakefs::CreateFile("/sys/devices/system/cpu/online", online + "\n");
}
} // namespace fakecpus

using namespace fakecpus;

extern "C" bool jf_os_get_affinity(struct jf_cpuset *out)
{
  probes++;
  jf_cpuset_clear(out);
  if (machine.affinity_refused)
    return false;
  for (unsigned cpu = 0; cpu < machine.cpus.size(); cpu++)
    if (Allowed(cpu) && InCallerMask(cpu) && machine.cpus[cpu].online)
      jf_cpuset_add(out, cpu);
  return true;
}

extern "C" bool jf_os_pin_self(unsigned cpu)
{
  if (machine.pinning_refused || cpu >= machine.cpus.size() || !Allowed(cpu) ||
      !machine.cpus[cpu].online)
    return false;
  pinned = static_cast<int>(cpu);
  return true;
}

extern "C" int jf_os_current_cpu(void)
{
  return Current();
}

extern "C" uint64_t jf_regs_read_ctr(void)
{
  ctr_reads++;
  return machine.cpus[Current()].ctr;
}

extern "C" bool jf_regs_read_midr(uint64_t *out)
{
  if (!machine.cpuid_hwcap)
    return false;
  *out = machine.cpus[Current()].midr;
  return true;
}
