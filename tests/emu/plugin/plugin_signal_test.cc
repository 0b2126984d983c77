// Signal delivery as a context synchronisation (src/emu/plugin/
// plugin_signal.c) on its own: the guest installs a handler with
// rt_sigaction, QEMU translates a block at the handler's address, and the
// block runs with the link register at a sigreturn trampoline (a delivery)
// or elsewhere (the program called its handler). Checked: which blocks get
// the unit's callback, and whether the thread's maintenance is then
// complete in the model (code flushed with no isb turns fresh), and the
// delivery counted. The rig is the real one (signal_rig.c), with the real
// scheduler, registers, model and store.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <map>
#include <vector>

#include <glib.h>
// QEMU's header declares C functions without saying so to C++.
extern "C" {
#include <qemu-plugin.h>
}

#include "coherence.h"
#include "signal_rig.h"

// ---- test doubles for the QEMU plugin API --------------------------------
// The units linked here call these functions besides the scoreboard
// (qemu_scoreboard_double.cc), which QEMU exports to a loaded plugin. The
// stand-ins behave as QEMU's do for one vCPU: guest memory is the bytes the
// test put there (a read of any other byte fails, as of unmapped memory);
// the registers are x0-x30, sp and pc, read from g_regs; a translation
// block is its start address, and the callbacks registered on it are
// recorded for the test to run. The functions registering vCPU and exit
// callbacks (linked through qemu_api.c) are never called here.
namespace
{
struct TbCallback {
  qemu_plugin_vcpu_udata_cb_t cb;
  enum qemu_plugin_cb_flags flags;
  void *udata;
};
struct FakeTb {
  uint64_t vaddr;
  std::vector<TbCallback> callbacks;
};

std::map<uint64_t, uint8_t> g_mem;
std::array<uint64_t, 33> g_regs; // x0-x30, sp, pc
const char *const kRegNames[33] = {"x0",  "x1",  "x2",  "x3",  "x4",  "x5",  "x6",  "x7",  "x8",
                                   "x9",  "x10", "x11", "x12", "x13", "x14", "x15", "x16", "x17",
                                   "x18", "x19", "x20", "x21", "x22", "x23", "x24", "x25", "x26",
                                   "x27", "x28", "x29", "x30", "sp",  "pc"};

void PutGuest(uint64_t va, const void *bytes, size_t len)
{
  for (size_t i = 0; i < len; i++)
    g_mem[va + i] = static_cast<const uint8_t *>(bytes)[i];
}
} // namespace

extern "C" {
bool qemu_plugin_read_memory_vaddr(uint64_t addr, GByteArray *data, size_t len)
{
  for (size_t i = 0; i < len; i++) {
    auto b = g_mem.find(addr + i);
    if (b == g_mem.end())
      return false;
    g_byte_array_append(data, &b->second, 1);
  }
  return true;
}

bool qemu_plugin_write_memory_vaddr(uint64_t addr, GByteArray *data)
{
  PutGuest(addr, data->data, data->len);
  return true;
}

GArray *qemu_plugin_get_registers(void)
{
  GArray *list = g_array_new(false, false, sizeof(qemu_plugin_reg_descriptor));
  for (size_t i = 0; i < g_regs.size(); i++) {
    // A handle is the register's index + 1 (QEMU's are opaque, never NULL).
    qemu_plugin_reg_descriptor d = {
        reinterpret_cast<struct qemu_plugin_register *>(static_cast<uintptr_t>(i + 1)),
        kRegNames[i], nullptr};
    g_array_append_val(list, d);
  }
  return list;
}

int qemu_plugin_read_register(struct qemu_plugin_register *handle, GByteArray *buf)
{
  uint64_t le = GUINT64_TO_LE(g_regs.at(reinterpret_cast<uintptr_t>(handle) - 1));
  g_byte_array_append(buf, reinterpret_cast<const guint8 *>(&le), sizeof(le));
  return sizeof(le);
}

int qemu_plugin_write_register(struct qemu_plugin_register *handle, GByteArray *buf)
{
  uint64_t le = 0;
  memcpy(&le, buf->data, sizeof(le));
  g_regs.at(reinterpret_cast<uintptr_t>(handle) - 1) = GUINT64_FROM_LE(le);
  return sizeof(le);
}

uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb)
{
  return reinterpret_cast<const FakeTb *>(tb)->vaddr;
}

void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb, qemu_plugin_vcpu_udata_cb_t cb,
                                          enum qemu_plugin_cb_flags flags, void *userdata)
{
  reinterpret_cast<FakeTb *>(tb)->callbacks.push_back({cb, flags, userdata});
}

void qemu_plugin_register_vcpu_init_cb(qemu_plugin_id_t, qemu_plugin_vcpu_simple_cb_t)
{
  ADD_FAILURE() << "not called here";
}

void qemu_plugin_register_vcpu_exit_cb(qemu_plugin_id_t, qemu_plugin_vcpu_simple_cb_t)
{
  ADD_FAILURE() << "not called here";
}

void qemu_plugin_register_atexit_cb(qemu_plugin_id_t, qemu_plugin_udata_cb_t, void *)
{
  ADD_FAILURE() << "not called here";
}
} // extern "C"

namespace
{

constexpr int64_t kRtSigaction = 134, kRtSigprocmask = 135; // aarch64
constexpr uint64_t kSigusr1 = 10;
constexpr uint64_t kAct = 0x7f000;       // the guest's struct sigaction
constexpr uint64_t kHandler = 0x401000;  // its handler
constexpr uint64_t kTramp = 0x402000;    // a sigreturn trampoline
constexpr uint64_t kCaller = 0x403000;   // the program's own code
constexpr uint64_t kOddTramp = 0x404002; // the trampoline's words, misaligned
constexpr uint64_t kCode = 0x500000;     // code the thread published
constexpr uint32_t kMovX8Sigreturn = 0xd2801168, kSvc0 = 0xd4000001, kNop = 0xd503201f;
constexpr uint32_t kMovInsn = 0xd2800000;
constexpr unsigned kLr = 30;

struct SignalUnit : ::testing::Test {
  SignalUnit()
  {
    g_mem.clear();
    g_regs.fill(0);
    rig = signal_rig_new(JITFLUSH_QEMU_CONFIGS_DIR "/conformance-idc0-dic0.conf");
    uint32_t tramp[2] = {GUINT32_TO_LE(kMovX8Sigreturn), GUINT32_TO_LE(kSvc0)};
    PutGuest(kTramp, tramp, sizeof(tramp));
    PutGuest(kOddTramp, tramp, sizeof(tramp));
    uint32_t call[2] = {GUINT32_TO_LE(kNop), GUINT32_TO_LE(kNop)};
    PutGuest(kCaller, call, sizeof(call));
  }
  ~SignalUnit() override
  {
    if (rig)
      signal_rig_free(rig);
  }

  // rt_sigaction(SIGUSR1, ACT, NULL) with ACT's handler HANDLER, at the
  // syscall's entry.
  void Sigaction(uint64_t handler, int64_t num = kRtSigaction, uint64_t act = kAct)
  {
    uint64_t le = GUINT64_TO_LE(handler);
    PutGuest(kAct, &le, sizeof(le));
    uint64_t args[6] = {kSigusr1, act, 0, 8, 0, 0};
    signal_rig_syscall(rig, num, args);
  }
  // QEMU translates a block at VA: the callbacks the unit registered.
  std::vector<TbCallback> Translate(uint64_t va)
  {
    FakeTb tb{va, {}};
    signal_rig_instrument_tb(rig, reinterpret_cast<struct qemu_plugin_tb *>(&tb));
    return tb.callbacks;
  }
  // The thread stores code at kCode and completes its cleaning and
  // invalidation (dc cvau; dsb ish; ic ivau; dsb ish) but runs no isb.
  void PublishWithoutIsb()
  {
    jf_model *m = signal_rig_model(rig);
    jf_model_thread *t = signal_rig_thread(rig);
    jf_model_store(m, t, kCode, 4, kCaller);
    jf_model_dc_clean(m, t, kCode, 1, true);
    jf_model_dsb(m, t);
    jf_model_ic_ivau(m, t, kCode, 2);
    jf_model_dsb(m, t);
  }
  // The model's verdict on the thread fetching kCode now.
  jf_stale_kind Fetch()
  {
    jf_model *m = signal_rig_model(rig);
    jf_word *w = jf_model_word_for_fetch(m, kCode, kMovInsn, false);
    EXPECT_NE(w, nullptr);
    return jf_model_fetch(m, signal_rig_thread(rig), w, JF_MODEL_OWN_VIEW, false).kind;
  }

  jf_rig *rig;
};

TEST_F(SignalUnit, ADeliveryToAHandlerSynchronisesTheThread)
{
  ASSERT_NE(rig, nullptr);
  Sigaction(kHandler);
  std::vector<TbCallback> cbs = Translate(kHandler);
  ASSERT_EQ(cbs.size(), 1u);
  EXPECT_EQ(cbs[0].flags, QEMU_PLUGIN_CB_R_REGS); // it reads x30
  PublishWithoutIsb();
  ASSERT_NE(Fetch(), JF_FRESH) << "no isb yet";
  g_regs[kLr] = kTramp; // entered "as if called" from the trampoline
  cbs[0].cb(0, cbs[0].udata);
  EXPECT_EQ(Fetch(), JF_FRESH) << "the ERET into the handler synchronised it";
  EXPECT_EQ(signal_rig_deliveries(rig), 1u);
}

TEST_F(SignalUnit, TheProgramCallingItsHandlerIsNoDelivery)
{
  ASSERT_NE(rig, nullptr);
  Sigaction(kHandler);
  std::vector<TbCallback> cbs = Translate(kHandler);
  ASSERT_EQ(cbs.size(), 1u);
  PublishWithoutIsb();
  for (uint64_t lr : {kCaller + 4, kOddTramp, UINT64_C(0x900000)}) {
    // After a BL; misaligned; unreadable.
    g_regs[kLr] = lr;
    cbs[0].cb(0, cbs[0].udata);
    EXPECT_NE(Fetch(), JF_FRESH) << "x30 " << lr;
  }
  EXPECT_EQ(signal_rig_deliveries(rig), 0u);
}

TEST_F(SignalUnit, OnlyBlocksAtAnInstalledHandlerGetTheCallback)
{
  ASSERT_NE(rig, nullptr);
  EXPECT_TRUE(Translate(kHandler).empty()) << "no handler installed yet";
  Sigaction(kHandler);
  EXPECT_TRUE(Translate(kHandler + 4).empty());
  EXPECT_TRUE(Translate(kCaller).empty());
  EXPECT_EQ(Translate(kHandler).size(), 1u);
  // A second handler adds to the first.
  Sigaction(kHandler + 0x100);
  EXPECT_EQ(Translate(kHandler + 0x100).size(), 1u);
  EXPECT_EQ(Translate(kHandler).size(), 1u);
}

TEST_F(SignalUnit, DefaultIgnoreAQueryAndOtherSyscallsInstallNothing)
{
  ASSERT_NE(rig, nullptr);
  Sigaction(0); // SIG_DFL
  Sigaction(1); // SIG_IGN
  EXPECT_TRUE(Translate(0).empty());
  EXPECT_TRUE(Translate(1).empty());
  Sigaction(kHandler, kRtSigaction, 0); // act NULL: reads the old action only
  Sigaction(kHandler, kRtSigprocmask);  // another syscall, same arguments
  EXPECT_TRUE(Translate(kHandler).empty());
}

} // namespace
