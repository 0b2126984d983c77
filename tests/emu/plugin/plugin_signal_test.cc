// Signal delivery as a context synchronisation (rig/plugin/
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

#include "model_coherence.h"
#include "qemu_guest_double.h"
#include "signal_rig.h"

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
    model *m = signal_rig_model(rig);
    model_thread *t = signal_rig_thread(rig);
    model_store(m, t, kCode, 4, kCaller);
    model_dc_clean(m, t, kCode, 1, true);
    model_dsb(m, t);
    model_ic_ivau(m, t, kCode, 2);
    model_dsb(m, t);
  }
  // The model's verdict on the thread fetching kCode now.
  model_stale_kind Fetch()
  {
    model *m = signal_rig_model(rig);
    model_word *w = model_word_for_fetch(m, kCode, kMovInsn, false);
    EXPECT_NE(w, nullptr);
    return model_fetch(m, signal_rig_thread(rig), w, MODEL_OWN_VIEW, false).kind;
  }

  plugin_rig *rig;
};

TEST_F(SignalUnit, ADeliveryToAHandlerSynchronisesTheThread)
{
  ASSERT_NE(rig, nullptr);
  Sigaction(kHandler);
  std::vector<TbCallback> cbs = Translate(kHandler);
  ASSERT_EQ(cbs.size(), 1u);
  EXPECT_EQ(cbs[0].flags, QEMU_PLUGIN_CB_R_REGS); // it reads x30
  PublishWithoutIsb();
  ASSERT_NE(Fetch(), MODEL_FRESH) << "no isb yet";
  g_regs[kLr] = kTramp; // entered "as if called" from the trampoline
  cbs[0].cb(0, cbs[0].udata);
  EXPECT_EQ(Fetch(), MODEL_FRESH) << "the ERET into the handler synchronised it";
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
    EXPECT_NE(Fetch(), MODEL_FRESH) << "x30 " << lr;
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
