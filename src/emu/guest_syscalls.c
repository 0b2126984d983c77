/*
 * The aarch64 system calls the deterministic schedule must tell apart
 * (guest_syscalls.h). Numbers are Linux's generic ones, which aarch64 uses
 * (include/uapi/asm-generic/unistd.h), and x86_64's
 * (arch/x86/entry/syscalls/syscall_64.tbl) for the host side.
 */
#include <stddef.h>

#include "guest_syscalls.h"

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

/* Calls that never wait for another thread or for time: the turn stays. */
static const int64_t keeps_turn[] = {
    17,  /* getcwd */
    19,  /* eventfd2 */
    20,  /* epoll_create1 */
    21,  /* epoll_ctl */
    23,  /* dup */
    24,  /* dup3 */
    34,  /* mkdirat */
    35,  /* unlinkat */
    46,  /* ftruncate */
    48,  /* faccessat */
    57,  /* close */
    59,  /* pipe2 */
    61,  /* getdents64 */
    62,  /* lseek */
    78,  /* readlinkat */
    79,  /* newfstatat */
    80,  /* fstat */
    96,  /* set_tid_address */
    99,  /* set_robust_list */
    113, /* clock_gettime */
    114, /* clock_getres */
    122, /* sched_setaffinity */
    123, /* sched_getaffinity */
    129, /* kill */
    130, /* tkill */
    131, /* tgkill */
    132, /* sigaltstack */
    134, /* rt_sigaction */
    135, /* rt_sigprocmask */
    139, /* rt_sigreturn */
    160, /* uname */
    163, /* getrlimit */
    165, /* getrusage */
    167, /* prctl */
    168, /* getcpu */
    169, /* gettimeofday */
    172, /* getpid */
    173, /* getppid */
    174, /* getuid */
    175, /* geteuid */
    176, /* getgid */
    177, /* getegid */
    178, /* gettid */
    179, /* sysinfo */
    198, /* socket */
    200, /* bind */
    201, /* listen */
    214, /* brk */
    215, /* munmap */
    216, /* mremap */
    222, /* mmap */
    226, /* mprotect */
    227, /* msync */
    232, /* mincore */
    233, /* madvise */
    261, /* prlimit64 */
    278, /* getrandom */
    279, /* memfd_create */
    283, /* membarrier */
    291, /* statx */
    293, /* rseq */
};

/* Calls that change nothing another thread can be asleep on (a wait needs
 * a futex word, a file, a signal or time: none of these are touched). */
static const int64_t wake_nobody[] = {
    17,  /* getcwd */
    61,  /* getdents64 */
    62,  /* lseek */
    78,  /* readlinkat */
    79,  /* newfstatat */
    80,  /* fstat */
    96,  /* set_tid_address */
    99,  /* set_robust_list */
    113, /* clock_gettime */
    114, /* clock_getres */
    123, /* sched_getaffinity */
    132, /* sigaltstack */
    134, /* rt_sigaction */
    135, /* rt_sigprocmask */
    160, /* uname */
    163, /* getrlimit */
    165, /* getrusage */
    168, /* getcpu */
    169, /* gettimeofday */
    172, /* getpid */
    173, /* getppid */
    174, /* getuid */
    175, /* geteuid */
    176, /* getgid */
    177, /* getegid */
    178, /* gettid */
    179, /* sysinfo */
    214, /* brk */
    215, /* munmap */
    216, /* mremap */
    222, /* mmap */
    226, /* mprotect */
    232, /* mincore */
    233, /* madvise */
    261, /* prlimit64 */
    278, /* getrandom */
    291, /* statx */
    293, /* rseq */
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

bool jf_guest_clone_is_thread(uint64_t flags)
{
  return (flags & (GUEST_CLONE_VM | GUEST_CLONE_THREAD)) == (GUEST_CLONE_VM | GUEST_CLONE_THREAD);
}

enum jf_guest_call_kind jf_guest_call_kind(int64_t num, uint64_t a1, uint64_t a2)
{
  switch (num) {
  case JF_GUEST_NR_EXIT_GROUP:
    return JF_CALL_ENDS_PROCESS;
  case NR_SCHED_YIELD:
    return JF_CALL_YIELDS;
  case NR_FUTEX:
    return futex_may_block(a2) ? JF_CALL_MAY_BLOCK : JF_CALL_KEEPS_TURN;
  case NR_FCNTL:
    return a2 == F_SETLKW || a2 == F_OFD_SETLKW ? JF_CALL_MAY_BLOCK : JF_CALL_KEEPS_TURN;
  case JF_GUEST_NR_CLONE:
    /* A new thread: the creator goes on. A fork waits for QEMU's exclusive
     * section, which waits for every other vCPU to stop. */
    return jf_guest_clone_is_thread(a1) ? JF_CALL_KEEPS_TURN : JF_CALL_MAY_BLOCK;
  default:
    break;
  }
  for (size_t i = 0; i < sizeof(keeps_turn) / sizeof(keeps_turn[0]); i++) {
    if (keeps_turn[i] == num) {
      return JF_CALL_KEEPS_TURN;
    }
  }
  /* Unknown calls and exit (the thread's last) may block as far as the
   * schedule knows. */
  return JF_CALL_MAY_BLOCK;
}

enum jf_guest_call_wakes jf_guest_call_wakes(int64_t num, uint64_t a1, uint64_t a2, uint64_t *word)
{
  if (num == NR_FUTEX) {
    uint64_t cmd = a2 & FUTEX_CMD_MASK;
    if (cmd == 1 || cmd == 10) { /* FUTEX_WAKE, FUTEX_WAKE_BITSET */
      *word = a1;
      return JF_WAKES_FUTEX_WORD;
    }
    /* A wait wakes nobody; requeues, WAKE_OP and the PI operations touch
     * a second word or hand a lock over. */
    return futex_may_block(a2) ? JF_WAKES_NONE : JF_WAKES_ANY;
  }
  for (size_t i = 0; i < sizeof(wake_nobody) / sizeof(wake_nobody[0]); i++) {
    if (wake_nobody[i] == num) {
      return JF_WAKES_NONE;
    }
  }
  return JF_WAKES_ANY;
}

int64_t jf_guest_call_host_nr(int64_t num)
{
  for (size_t i = 0; i < sizeof(blocking) / sizeof(blocking[0]); i++) {
    if (blocking[i].guest == num) {
      return blocking[i].host;
    }
  }
  return -1;
}

bool jf_guest_futex_matches(uint64_t uaddr, uint64_t host_uaddr)
{
  return (uaddr & 4095) == (host_uaddr & 4095);
}
