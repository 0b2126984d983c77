/*
 * Signal delivery synchronises the thread it interrupts.
 *
 * Linux delivers a signal on a thread's way back to user space: it builds
 * the frame (setup_rt_frame in arch/arm64/kernel/signal.c, called from
 * do_notify_resume) and returns to EL0 at the handler with an ERET. An
 * exception return is a context synchronisation event (Arm ARM, "Context
 * synchronization event": exception entry and exception return, unless
 * SCTLR_EL1.EIS/EOS are 0 with FEAT_ExS, which Linux never clears), so the
 * handler's first fetch comes after one, wherever the thread was. Code
 * another thread flushed completely (clean, invalidate, dsb ish) is
 * therefore fresh for a handler that runs it, with no isb of its own.
 *
 * QEMU 10.2's user mode tells a plugin nothing about a delivery: its
 * discontinuity callbacks (qemu_plugin_register_vcpu_discon_cb) are raised
 * by the targets' system-mode interrupt code (arm_cpu_do_interrupt, built
 * without CONFIG_USER_ONLY), and linux-user's process_pending_signals and
 * setup_rt_frame call no plugin hook. So the rig recognises deliveries
 * itself:
 *
 *  - it learns the handlers' addresses from the guest's rt_sigaction
 *    calls: x1 points at the kernel's struct sigaction, whose first member
 *    is the handler (include/uapi/asm-generic/signal.h; arm64 defines
 *    SA_RESTORER, so {handler, flags, restorer, mask}); SIG_DFL (0) and
 *    SIG_IGN (1) are not addresses;
 *  - a TB that starts at such an address gets one callback, and only such
 *    a TB: the hot path is untouched;
 *  - the callback tells a delivery from a plain call by the link register.
 *    A delivery enters the handler "as if called" with x30 at the return
 *    trampoline: the SA_RESTORER function when one was given (musl's
 *    __restore_rt), else QEMU's vDSO __kernel_rt_sigreturn (or its
 *    sigtramp page without a vDSO), all of them "mov x8, #139; svc #0"
 *    (linux-user/aarch64/signal.c, target_setup_frame; vdso.S). A call
 *    from the program's own code returns to the instruction after a BL or
 *    BLR, which is not that pair.
 *
 * The delivered thread is then synchronised as at a syscall return (its
 * maintenance loops are not ended: an interrupted flush loop resumes after
 * rt_sigreturn as the same loop). Nothing here waits: the deterministic
 * turns (plugin_turns.c) are not involved, and a delivery lands where QEMU
 * put it, at a TB boundary of the thread that holds the turn.
 *
 * Limits (docs/COHERENCE-MODEL.md#synchronisation):
 *  - a TB at the handler's address that QEMU translated before the
 *    rt_sigaction that named it (the program called the function itself
 *    first) keeps running without the callback until QEMU translates it
 *    again: deliveries through it are not seen (a false positive stays);
 *  - a handler address is never forgotten (another rt_sigaction, SIG_DFL):
 *    a stale entry only costs the check of x30 on entry to that TB;
 *  - a program that sets x30 to a sigreturn trampoline and branches to its
 *    handler itself would be taken for a delivery.
 */
#include <string.h>

#include "plugin_alias.h"
#include "plugin_regs.h"
#include "plugin_sched.h"
#include "plugin_signal.h"
#include "plugin_vcpu.h"

#define NR_RT_SIGACTION 134
#define GUEST_SIG_IGN 1
#define XREG_LR 30

/* "mov x8, #139 (__NR_rt_sigreturn)" and "svc #0". */
#define INSN_MOV_X8_SIGRETURN 0xd2801168u
#define INSN_SVC_0 0xd4000001u

/* HANDLERS is guarded by the rig's lock (plugin_rig.h), which a guest fork takes
 * before it (plugin.c, before_fork). Guest memory is never read with it
 * held: a thread that is translating holds QEMU's mmap_lock and may wait
 * for it (plugin_sched.c, guest_write). */
struct plugin_signals {
  GHashTable *handlers; /* guest addresses rt_sigaction installed */
  /* Nonzero once any handler was installed: most programs install none,
   * and then translation does not look. */
  unsigned any;
};

struct plugin_signals *plugin_signals_new(void)
{
  struct plugin_signals *s = g_new0(struct plugin_signals, 1);
  s->handlers = g_hash_table_new(g_direct_hash, g_direct_equal);
  return s;
}

void plugin_signals_free(struct plugin_signals *s)
{
  if (!s) {
    return;
  }
  g_hash_table_destroy(s->handlers);
  g_free(s);
}

void plugin_signals_syscall(struct plugin_rig *rig, int64_t num, const uint64_t args[6])
{
  if (num != NR_RT_SIGACTION || args[1] == 0) {
    return; /* not rt_sigaction, or one that only reads the old action */
  }
  GByteArray *buf = g_byte_array_new();
  uint64_t handler = 0;
  bool read =
      qemu_plugin_read_memory_vaddr(args[1], buf, sizeof(handler)) && buf->len == sizeof(handler);
  if (read) {
    memcpy(&handler, buf->data, sizeof(handler));
    handler = GUINT64_FROM_LE(handler);
  }
  g_byte_array_unref(buf);
  if (!read || handler <= GUEST_SIG_IGN) {
    return;
  }
  /* Added at the call's entry: should the kernel refuse it (SIGKILL, a
   * bad number), the entry only costs a check of x30 (above). */
  struct plugin_signals *s = rig->signals;
  plugin_rig_lock(rig);
  g_hash_table_add(s->handlers, GSIZE_TO_POINTER(handler));
  __atomic_store_n(&s->any, 1, __ATOMIC_RELEASE);
  plugin_rig_unlock(rig);
}

/* Whether the two instructions at VA are a sigreturn trampoline (the lock
 * NOT held: this reads guest memory). */
static bool is_sigreturn_trampoline(uint64_t va)
{
  if (va & 3) {
    return false;
  }
  GByteArray *buf = g_byte_array_new();
  uint32_t insn[2] = {0, 0};
  if (qemu_plugin_read_memory_vaddr(va, buf, sizeof(insn)) && buf->len == sizeof(insn)) {
    memcpy(insn, buf->data, sizeof(insn));
  }
  g_byte_array_unref(buf);
  return GUINT32_FROM_LE(insn[0]) == INSN_MOV_X8_SIGRETURN &&
         GUINT32_FROM_LE(insn[1]) == INSN_SVC_0;
}

/* At the start of a TB at a handler's address: a delivery when x30 holds
 * the return trampoline. UDATA is the rig. */
static void on_handler_entry(unsigned vcpu, void *udata)
{
  struct plugin_rig *rig = udata;
  if (!is_sigreturn_trampoline(plugin_regs_read_x(rig->regs, XREG_LR))) {
    return; /* the program called its handler itself */
  }
  plugin_rig_lock(rig);
  struct plugin_thread *t = plugin_sched_thread(rig->sched, vcpu);
  if (t) {
    /* The ERET into the handler (above). */
    plugin_sched_sync(rig, t);
  }
  plugin_rig_unlock(rig);
  plugin_vcpu(rig, vcpu)->counts.signal_deliveries++;
  /* As at the other synchronisations: QEMU translates again what the RW
   * view of double-mapped code changed (plugin_alias.c). */
  plugin_alias_refresh_views(rig);
}

bool plugin_signals_instrument_tb(struct plugin_rig *rig, struct qemu_plugin_tb *tb)
{
  struct plugin_signals *s = rig->signals;
  if (!s || !__atomic_load_n(&s->any, __ATOMIC_ACQUIRE)) {
    return false;
  }
  uint64_t start = qemu_plugin_tb_vaddr(tb);
  plugin_rig_lock(rig);
  bool handler = g_hash_table_contains(s->handlers, GSIZE_TO_POINTER(start));
  plugin_rig_unlock(rig);
  if (handler) {
    qemu_plugin_register_vcpu_tb_exec_cb(tb, on_handler_entry, QEMU_PLUGIN_CB_R_REGS, rig);
  }
  return handler;
}
