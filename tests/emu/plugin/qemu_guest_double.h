// Test doubles for the QEMU plugin API functions that read and write the
// guest (memory, registers) and build translation blocks, for the plugin
// unit tests whose units call them (plugin_regs.c, plugin_qemu_api.c,
// plugin_signal.c). They behave as QEMU's do for the vCPU being called
// back: guest memory is the bytes the test put there (a read of any other
// byte fails, as of unmapped memory); the registers are x0-x30, sp and pc,
// read from g_regs; a translation block is its start address, and the
// callbacks registered on it are recorded for the test to run. The
// functions registering vCPU and exit callbacks (linked through
// plugin_qemu_api.c) fail the test if called. Each has the signature of the
// header it is compiled against (API 5, 6 or 7).
#ifndef JITFLUSH_TESTS_EMU_QEMU_GUEST_DOUBLE_H
#define JITFLUSH_TESTS_EMU_QEMU_GUEST_DOUBLE_H

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

// QEMU's header declares C functions without saying so to C++.
extern "C" {
#include <qemu-plugin.h>
}

// The signatures QEMU's plugin API changed, by the version of the header
// compiled against, as rig/plugin/plugin_qemu_api.h switches on them: the
// doubles follow every header the plugin builds against (emu.QemuPluginApi
// compiles them against API 5, 6 and 7).
#if QEMU_PLUGIN_VERSION >= 6
#define JF_QEMU_REGISTER_RESULT bool // API 6: true on success
#else
#define JF_QEMU_REGISTER_RESULT int // API 5: the byte count
#endif
#if QEMU_PLUGIN_VERSION >= 7
// API 7: vCPU init and exit callbacks take a userdata pointer.
#define JF_QEMU_VCPU_CB_PARAMS qemu_plugin_vcpu_udata_cb_t, void *
#else
#define JF_QEMU_VCPU_CB_PARAMS qemu_plugin_vcpu_simple_cb_t
#endif

struct TbCallback {
  qemu_plugin_vcpu_udata_cb_t cb;
  enum qemu_plugin_cb_flags flags;
  void *udata;
};
struct FakeTb {
  uint64_t vaddr;
  std::vector<TbCallback> callbacks;
};

extern std::map<uint64_t, uint8_t> g_mem;
extern std::array<uint64_t, 33> g_regs; // x0-x30, sp, pc

// Puts LEN bytes at guest address VA.
void PutGuest(uint64_t va, const void *bytes, size_t len);

#endif // JITFLUSH_TESTS_EMU_QEMU_GUEST_DOUBLE_H
