/*
 * The aarch64 system calls the deterministic schedule must tell apart
 * (rig_guest_syscalls.h). Numbers are Linux's generic ones, which aarch64 uses
 * (include/uapi/asm-generic/unistd.h), and x86_64's
 * (arch/x86/entry/syscalls/syscall_64.tbl) for the host side.
 */
#include <stddef.h>

#include "rig_guest_syscalls.h"

/* A call that may block, and the host call QEMU's linux-user makes for it
 * (its safe_* wrapper in linux-user/syscall.c; accept goes through
 * accept4). */
static const struct {
  int64_t guest, host;
} blocking[] = {
    {22, 281},  /* epoll_pwait */
    {25, 72},   /* fcntl F_SETLKW */
    {29, 16},   /* ioctl: a terminal or device may wait */
    {32, 73},   /* flock */
    {56, 257},  /* openat: a FIFO waits for its other end */
    {63, 0},    /* read */
    {64, 1},    /* write */
    {65, 19},   /* readv */
    {66, 20},   /* writev */
    {67, 17},   /* pread64 */
    {68, 18},   /* pwrite64 */
    {72, 270},  /* pselect6 */
    {73, 271},  /* ppoll */
    {95, 247},  /* waitid */
    {98, 202},  /* futex (the waiting operations) */
    {101, 35},  /* nanosleep */
    {115, 230}, /* clock_nanosleep */
    {133, 130}, /* rt_sigsuspend */
    {137, 128}, /* rt_sigtimedwait */
    {183, 243}, /* mq_timedreceive */
    {188, 70},  /* msgrcv */
    {192, 220}, /* semtimedop */
    {202, 288}, /* accept */
    {203, 42},  /* connect */
    {206, 44},  /* sendto */
    {207, 45},  /* recvfrom */
    {211, 46},  /* sendmsg */
    {212, 47},  /* recvmsg */
    {242, 288}, /* accept4 */
    {260, 61},  /* wait4 */
    {441, 441}, /* epoll_pwait2 */
};

/* Calls that never wait for another thread or for time: the turn stays.
 * MAY_WAKE: whether the call can change what another thread is asleep on
 * (a wait needs a futex word, a file, a signal or time). */
static const struct {
  int64_t num;
  bool may_wake;
} keeps_turn[] = {
    {17, false},  /* getcwd */
    {19, true},   /* eventfd2 */
    {20, true},   /* epoll_create1 */
    {21, true},   /* epoll_ctl */
    {23, true},   /* dup */
    {24, true},   /* dup3 */
    {34, true},   /* mkdirat */
    {35, true},   /* unlinkat */
    {46, true},   /* ftruncate */
    {48, true},   /* faccessat */
    {57, true},   /* close */
    {59, true},   /* pipe2 */
    {61, false},  /* getdents64 */
    {62, false},  /* lseek */
    {78, false},  /* readlinkat */
    {79, false},  /* newfstatat */
    {80, false},  /* fstat */
    {96, false},  /* set_tid_address */
    {99, false},  /* set_robust_list */
    {113, false}, /* clock_gettime */
    {114, false}, /* clock_getres */
    {122, true},  /* sched_setaffinity */
    {123, false}, /* sched_getaffinity */
    {129, true},  /* kill */
    {130, true},  /* tkill */
    {131, true},  /* tgkill */
    {132, false}, /* sigaltstack */
    {134, false}, /* rt_sigaction */
    {135, false}, /* rt_sigprocmask */
    {139, true},  /* rt_sigreturn */
    {160, false}, /* uname */
    {163, false}, /* getrlimit */
    {165, false}, /* getrusage */
    {167, true},  /* prctl */
    {168, false}, /* getcpu */
    {169, false}, /* gettimeofday */
    {172, false}, /* getpid */
    {173, false}, /* getppid */
    {174, false}, /* getuid */
    {175, false}, /* geteuid */
    {176, false}, /* getgid */
    {177, false}, /* getegid */
    {178, false}, /* gettid */
    {179, false}, /* sysinfo */
    {198, true},  /* socket */
    {200, true},  /* bind */
    {201, true},  /* listen */
    {214, false}, /* brk */
    {215, false}, /* munmap */
    {216, false}, /* mremap */
    {222, false}, /* mmap */
    {226, false}, /* mprotect */
    {227, true},  /* msync */
    {232, false}, /* mincore */
    {233, false}, /* madvise */
    {261, false}, /* prlimit64 */
    {278, false}, /* getrandom */
    {279, true},  /* memfd_create */
    {283, true},  /* membarrier */
    {291, false}, /* statx */
    {293, false}, /* rseq */
};

#define NR_FCNTL 25
#define NR_FUTEX 98
#define NR_SCHED_YIELD 124
#define GUEST_CLONE_VM 0x00000100
#define GUEST_CLONE_THREAD 0x00010000
#define F_SETLKW 7
#define F_OFD_SETLKW 38
/* include/uapi/linux/futex.h: the operation without its PRIVATE and
 * CLOCK_REALTIME flags. */
#define FUTEX_CMD_MASK 127

static bool futex_may_block(uint64_t op)
{
  switch (op & FUTEX_CMD_MASK) {
  case 0:  /* FUTEX_WAIT */
  case 6:  /* FUTEX_LOCK_PI */
  case 9:  /* FUTEX_WAIT_BITSET */
  case 11: /* FUTEX_WAIT_REQUEUE_PI */
  case 13: /* FUTEX_LOCK_PI2 */
    return true;
  default: /* wakes, requeues, unlocks, trylock: they return at once */
    return false;
  }
}

bool rig_guest_clone_is_thread(uint64_t flags)
{
  return (flags & (GUEST_CLONE_VM | GUEST_CLONE_THREAD)) == (GUEST_CLONE_VM | GUEST_CLONE_THREAD);
}

enum rig_guest_call_kind rig_guest_call_kind(int64_t num, uint64_t a1, uint64_t a2)
{
  switch (num) {
  case RIG_GUEST_NR_EXIT_GROUP:
    return RIG_CALL_ENDS_PROCESS;
  case NR_SCHED_YIELD:
    return RIG_CALL_YIELDS;
  case NR_FUTEX:
    return futex_may_block(a2) ? RIG_CALL_MAY_BLOCK : RIG_CALL_KEEPS_TURN;
  case NR_FCNTL:
    return a2 == F_SETLKW || a2 == F_OFD_SETLKW ? RIG_CALL_MAY_BLOCK : RIG_CALL_KEEPS_TURN;
  case RIG_GUEST_NR_CLONE:
    /* A new thread: the creator goes on. A fork waits for QEMU's exclusive
     * section, which waits for every other vCPU to stop. */
    return rig_guest_clone_is_thread(a1) ? RIG_CALL_KEEPS_TURN : RIG_CALL_MAY_BLOCK;
  default:
    break;
  }
  for (size_t i = 0; i < sizeof(keeps_turn) / sizeof(keeps_turn[0]); i++) {
    if (keeps_turn[i].num == num) {
      return RIG_CALL_KEEPS_TURN;
    }
  }
  /* Unknown calls and exit (the thread's last) may block as far as the
   * schedule knows. */
  return RIG_CALL_MAY_BLOCK;
}

enum rig_guest_call_wakes rig_guest_call_wakes(int64_t num, uint64_t a1, uint64_t a2,
                                               uint64_t *word)
{
  if (num == NR_FUTEX) {
    uint64_t cmd = a2 & FUTEX_CMD_MASK;
    if (cmd == 1 || cmd == 10) { /* FUTEX_WAKE, FUTEX_WAKE_BITSET */
      *word = a1;
      return RIG_WAKES_FUTEX_WORD;
    }
    /* A wait wakes nobody; requeues, WAKE_OP and the PI operations touch
     * a second word or hand a lock over. */
    return futex_may_block(a2) ? RIG_WAKES_NONE : RIG_WAKES_ANY;
  }
  for (size_t i = 0; i < sizeof(keeps_turn) / sizeof(keeps_turn[0]); i++) {
    if (keeps_turn[i].num == num && !keeps_turn[i].may_wake) {
      return RIG_WAKES_NONE;
    }
  }
  return RIG_WAKES_ANY;
}

int64_t rig_guest_call_host_nr(int64_t num)
{
  for (size_t i = 0; i < sizeof(blocking) / sizeof(blocking[0]); i++) {
    if (blocking[i].guest == num) {
      return blocking[i].host;
    }
  }
  return -1;
}

bool rig_guest_futex_matches(uint64_t uaddr, uint64_t host_uaddr)
{
  return (uaddr & 4095) == (host_uaddr & 4095);
}
