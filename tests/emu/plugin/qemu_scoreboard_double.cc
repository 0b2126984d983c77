// Test doubles for the QEMU plugin API functions every plugin unit test
// links (plugin_store.c calls them): the vCPU count, the scoreboard, and
// the access size of a store. QEMU starts with one vCPU and grows the
// scoreboards as threads start; here a scoreboard has room for kVcpus
// zeroed entries from the start (the schedule's test runs two threads). The tests make no store
// callback, so an access size is never asked for. Each test file stands in
// for the other functions its units call.
#include <gtest/gtest.h>

#include <vector>

// QEMU's header declares C functions without saying so to C++.
extern "C" {
#include <qemu-plugin.h>
}

namespace
{
constexpr unsigned kVcpus = 4;
struct Scoreboard {
  size_t element_size;
  std::vector<unsigned char> entries;
};
} // namespace

extern "C" {
int qemu_plugin_num_vcpus(void)
{
  return 1;
}

struct qemu_plugin_scoreboard *qemu_plugin_scoreboard_new(size_t element_size)
{
  auto *s = new Scoreboard;
  s->element_size = element_size;
  s->entries.assign(element_size * kVcpus, 0);
  return reinterpret_cast<struct qemu_plugin_scoreboard *>(s);
}

void qemu_plugin_scoreboard_free(struct qemu_plugin_scoreboard *score)
{
  delete reinterpret_cast<Scoreboard *>(score);
}

void *qemu_plugin_scoreboard_find(struct qemu_plugin_scoreboard *score, unsigned int vcpu_index)
{
  EXPECT_LT(vcpu_index, kVcpus) << "the doubles have room for " << kVcpus << " vCPUs";
  auto *s = reinterpret_cast<Scoreboard *>(score);
  return s->entries.data() + s->element_size * (vcpu_index % kVcpus);
}

unsigned int qemu_plugin_mem_size_shift(qemu_plugin_meminfo_t)
{
  ADD_FAILURE() << "no store callback runs in these tests";
  return 0;
}
} // extern "C"
