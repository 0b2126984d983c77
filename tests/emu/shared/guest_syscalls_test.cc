// Which guest system calls pass the deterministic schedule's turn on, and
// how a blocked one is recognised on the host (rig_guest_syscalls.c).
#include <gtest/gtest.h>

extern "C" {
#include "rig_guest_syscalls.h"
}

namespace
{

constexpr int64_t kRead = 63, kWrite = 64, kFutex = 98, kNanosleep = 101, kSchedYield = 124,
                  kMmap = 222, kMprotect = 226, kGetpid = 172, kFcntl = 25, kUnknown = 999;
constexpr uint64_t kCloneThreadFlags = 0x3d0f00; // glibc's pthread_create
constexpr uint64_t kForkFlags = 0x1200011;       // glibc's fork: SIGCHLD, no CLONE_VM

TEST(GuestSyscalls, CallsThatCannotWaitKeepTheTurn)
{
  for (int64_t num : {kMmap, kMprotect, kGetpid})
    EXPECT_EQ(rig_guest_call_kind(num, 0, 0), RIG_CALL_KEEPS_TURN) << num;
}

TEST(GuestSyscalls, CallsThatMayWaitPassTheTurn)
{
  for (int64_t num : {kRead, kWrite, kNanosleep, kUnknown})
    EXPECT_EQ(rig_guest_call_kind(num, 0, 0), RIG_CALL_MAY_BLOCK) << num;
  EXPECT_EQ(rig_guest_call_kind(kSchedYield, 0, 0), RIG_CALL_YIELDS);
  EXPECT_EQ(rig_guest_call_kind(RIG_GUEST_NR_EXIT_GROUP, 0, 0), RIG_CALL_ENDS_PROCESS);
  // A thread's exit may wait for QEMU's locks; it is never "kept".
  EXPECT_EQ(rig_guest_call_kind(RIG_GUEST_NR_EXIT, 0, 0), RIG_CALL_MAY_BLOCK);
}

TEST(GuestSyscalls, FutexWaitsPassTheTurnAndWakesKeepIt)
{
  const uint64_t private_flag = 128, realtime = 256;
  EXPECT_EQ(rig_guest_call_kind(kFutex, 0x1000, 0), RIG_CALL_MAY_BLOCK);                // WAIT
  EXPECT_EQ(rig_guest_call_kind(kFutex, 0x1000, 0 | private_flag), RIG_CALL_MAY_BLOCK); // WAIT
  EXPECT_EQ(rig_guest_call_kind(kFutex, 0x1000, 9 | private_flag | realtime),
            RIG_CALL_MAY_BLOCK);                                                         // BITSET
  EXPECT_EQ(rig_guest_call_kind(kFutex, 0x1000, 6), RIG_CALL_MAY_BLOCK);                 // LOCK_PI
  EXPECT_EQ(rig_guest_call_kind(kFutex, 0x1000, 1 | private_flag), RIG_CALL_KEEPS_TURN); // WAKE
  EXPECT_EQ(rig_guest_call_kind(kFutex, 0x1000, 5), RIG_CALL_KEEPS_TURN);                // WAKE_OP
  EXPECT_EQ(rig_guest_call_kind(kFutex, 0x1000, 7), RIG_CALL_KEEPS_TURN); // UNLOCK_PI
}

TEST(GuestSyscalls, OnlyTheWaitingLockCommandsOfFcntlPassTheTurn)
{
  EXPECT_EQ(rig_guest_call_kind(kFcntl, 3, 7), RIG_CALL_MAY_BLOCK);  // F_SETLKW
  EXPECT_EQ(rig_guest_call_kind(kFcntl, 3, 38), RIG_CALL_MAY_BLOCK); // F_OFD_SETLKW
  EXPECT_EQ(rig_guest_call_kind(kFcntl, 3, 6), RIG_CALL_KEEPS_TURN); // F_SETLK
  EXPECT_EQ(rig_guest_call_kind(kFcntl, 3, 1), RIG_CALL_KEEPS_TURN); // F_GETFD
}

TEST(GuestSyscalls, ANewThreadKeepsItsCreatorsTurnAForkDoesNot)
{
  EXPECT_TRUE(rig_guest_clone_is_thread(kCloneThreadFlags));
  EXPECT_FALSE(rig_guest_clone_is_thread(kForkFlags));
  EXPECT_EQ(rig_guest_call_kind(RIG_GUEST_NR_CLONE, kCloneThreadFlags, 0), RIG_CALL_KEEPS_TURN);
  EXPECT_EQ(rig_guest_call_kind(RIG_GUEST_NR_CLONE, kForkFlags, 0), RIG_CALL_MAY_BLOCK);
}

TEST(GuestSyscalls, WhatACallMayWakeNarrowsTheThreadsLookedAtAgain)
{
  uint64_t word = 0;
  EXPECT_EQ(rig_guest_call_wakes(kFutex, 0x1234, 1 | 128, &word), RIG_WAKES_FUTEX_WORD); // WAKE
  EXPECT_EQ(word, 0x1234u);
  EXPECT_EQ(rig_guest_call_wakes(kFutex, 0x1234, 0, &word), RIG_WAKES_NONE); // a wait wakes nobody
  EXPECT_EQ(rig_guest_call_wakes(kFutex, 0x1234, 4, &word), RIG_WAKES_ANY);  // CMP_REQUEUE
  for (int64_t num : {kMmap, kMprotect, kGetpid})
    EXPECT_EQ(rig_guest_call_wakes(num, 0, 0, &word), RIG_WAKES_NONE) << num;
  // A write may fill a pipe's reader; a signal wakes its target.
  constexpr int64_t kTgkill = 131;
  for (int64_t num : {kWrite, kTgkill, kUnknown})
    EXPECT_EQ(rig_guest_call_wakes(num, 0, 0, &word), RIG_WAKES_ANY) << num;
}

TEST(GuestSyscalls, BlockingCallsMapToTheHostCallsQemuMakes)
{
  EXPECT_EQ(rig_guest_call_host_nr(kRead), 0);
  EXPECT_EQ(rig_guest_call_host_nr(kWrite), 1);
  EXPECT_EQ(rig_guest_call_host_nr(kFutex), 202);
  EXPECT_EQ(rig_guest_call_host_nr(kNanosleep), 35);
  EXPECT_EQ(rig_guest_call_host_nr(202), 288); // accept goes through accept4
  EXPECT_EQ(rig_guest_call_host_nr(kMmap), -1);
}

TEST(GuestSyscalls, AGuestFutexMatchesItsHostAddressAtAnyGuestBase)
{
  EXPECT_TRUE(rig_guest_futex_matches(0x4a0123c, 0x4a0123c));
  EXPECT_TRUE(rig_guest_futex_matches(0x4a0123c, 0x7f0000000000 + 0x4a0123c));
  // QEMU's own lock elsewhere in the page grid.
  EXPECT_FALSE(rig_guest_futex_matches(0x4a0123c, 0x55d0c0de1a80));
}

} // namespace
