/*
 * Which aarch64 Linux system calls may block, and how a blocked one shows
 * on an x86_64 host (rig_guest_syscalls.c). The deterministic schedule
 * (plugin_turns.c) keeps a thread's turn across a call that cannot block,
 * and hands the turn over at one that may; before it picks the next thread
 * it waits until every thread in such a call has either returned or is
 * asleep in the host kernel in the host call that implements it.
 */
#ifndef JITFLUSH_EMU_GUEST_SYSCALLS_H
#define JITFLUSH_EMU_GUEST_SYSCALLS_H

#include <stdbool.h>
#include <stdint.h>

enum rig_guest_call_kind {
  RIG_CALL_KEEPS_TURN, /* returns without waiting for another thread */
  RIG_CALL_MAY_BLOCK,  /* may wait for another thread or for time */
  RIG_CALL_YIELDS,     /* sched_yield: an explicit hand-over point */
  RIG_CALL_ENDS_PROCESS,
};

/* NUM with its first argument A1 (futex's and fcntl's operation is A2). */
enum rig_guest_call_kind rig_guest_call_kind(int64_t num, uint64_t a1, uint64_t a2);

/* What a call that returns may have done to threads asleep in the kernel:
 * nothing (it touches only its own thread or memory maps), woken the
 * waiters of one futex word (*WORD), or woken anyone. */
enum rig_guest_call_wakes {
  RIG_WAKES_NONE,
  RIG_WAKES_FUTEX_WORD,
  RIG_WAKES_ANY,
};
enum rig_guest_call_wakes rig_guest_call_wakes(int64_t num, uint64_t a1, uint64_t a2,
                                               uint64_t *word);

/* The x86_64 host system call number QEMU's linux-user makes for the
 * blocking aarch64 call NUM (its safe_syscall wrappers pass most through),
 * or -1 when unknown. */
int64_t rig_guest_call_host_nr(int64_t num);

/* Whether a guest futex on address UADDR can be the host futex the thread
 * sleeps in on HOST_UADDR: QEMU adds its page-aligned guest_base, so the
 * offset within the page is the guest's. */
bool rig_guest_futex_matches(uint64_t uaddr, uint64_t host_uaddr);

/* clone's flags (A1) make a new thread in the same process. */
bool rig_guest_clone_is_thread(uint64_t flags);

#define RIG_GUEST_NR_CLONE 220
#define RIG_GUEST_NR_EXIT 93
#define RIG_GUEST_NR_EXIT_GROUP 94

#endif /* JITFLUSH_EMU_GUEST_SYSCALLS_H */
