/* Sums over the per-vCPU state (plugin_vcpu.h). */
#include <stddef.h>

#include "plugin_vcpu.h"

/* Per host thread: 0, or 1 + the vCPU and the thread's serial. */
static _Thread_local unsigned host_vcpu;
static _Thread_local unsigned host_thread;

void plugin_vcpu_note_host_thread(unsigned vcpu, unsigned thread)
{
  host_vcpu = vcpu + 1;
  host_thread = thread;
}

bool plugin_vcpu_host_thread(unsigned *vcpu, unsigned *thread)
{
  if (!host_vcpu) {
    return false;
  }
  *vcpu = host_vcpu - 1;
  *thread = host_thread;
  return true;
}

struct plugin_clock_counts plugin_vcpu_clock_totals(const struct plugin_rig *rig)
{
  struct plugin_clock_counts sum = {0, 0};
  for (int i = 0; i < qemu_plugin_num_vcpus(); i++) {
    struct plugin_clock_counts c = plugin_vcpu_clock_counts(plugin_vcpu(rig, (unsigned)i));
    sum.insns += c.insns;
    sum.fetch_checks += c.fetch_checks;
  }
  return sum;
}

/* Where each VCPU-source counter lives in struct plugin_vcpu. */
#define OFFSET_VCPU(name) offsetof(struct plugin_vcpu, counts.name)
#define OFFSET_CLOCK(name) 0
#define OFFSET_MODEL(name) 0
static const size_t counter_offset[RIG_NCOUNTERS] = {
#define RIG_COUNTER(name, source, shown, description) OFFSET_##source(name),
#include "rig_counters.def"
#undef RIG_COUNTER
};

void plugin_vcpu_counter_totals(const struct plugin_rig *rig, uint64_t out[RIG_NCOUNTERS])
{
  struct plugin_clock_counts clock = plugin_vcpu_clock_totals(rig);
  for (size_t c = 0; c < RIG_NCOUNTERS; c++) {
    if (c == RIG_COUNTER_insns) {
      out[c] = clock.insns;
    } else if (c == RIG_COUNTER_fetch_checks) {
      out[c] = clock.fetch_checks;
    } else if (c == RIG_COUNTER_model_pages_peak) {
      out[c] = model_pages_peak(rig->model);
    } else {
      out[c] = qemu_plugin_u64_sum((qemu_plugin_u64){rig->vcpus, counter_offset[c]});
    }
  }
}
