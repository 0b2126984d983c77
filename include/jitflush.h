/*
 * jitflush: make freshly written machine code visible to instruction fetch,
 * correctly on every core of a heterogeneous (big.LITTLE) ARM64 system.
 *
 * The one public header. C11, usable from C++ (extern "C").
 *
 * Why a library: the stride of the AArch64 cache-maintenance loops comes
 * from CTR_EL0 (IminLine [3:0], DminLine [19:16]), and on some SoCs the
 * cores disagree (Samsung Exynos 8890: 128-byte I-lines on the big cores,
 * 64 on the LITTLE ones). A stride read once on one core, or even on every
 * call, skips lines on the smaller cores. jitflush measures every core it
 * can reach up front and flushes with the minimum over all of them.
 *
 * Offline CPUs. An offline CPU with no facts of its own (Linux hides its
 * cache and registers) takes the lines of the observed CPUs the kernel
 * groups it with (JITFLUSH_SRC_CLUSTER), else the floor
 * (JITFLUSH_FLOOR_LINE). While any line is inferred
 * (jitflush_info.online_check), every flush reads the online CPU list
 * after its maintenance (4 system calls) and, if such a CPU has come
 * online, probes again and repeats the maintenance with its lines; that
 * flush is not async-signal-safe (the probe creates a thread). Why this
 * is safe: docs/BACKGROUND.md#offline-cpus.
 */
#ifndef JITFLUSH_H
#define JITFLUSH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JITFLUSH_VERSION_MAJOR 0
#define JITFLUSH_VERSION_MINOR 1
#define JITFLUSH_VERSION_PATCH 0
#define JITFLUSH_VERSION_STRING "0.1.0"

/*
 * Capacity of struct jitflush_info's per-CPU array. Machines with more
 * possible CPUs still get a safe global stride (the policy covers every
 * CPU, whatever its number); only the per-CPU records beyond this count are
 * left out, and jitflush_info.truncated says so.
 */
#define JITFLUSH_MAX_CPUS 256

/*
 * The conservative floor, in bytes, used for a CPU about which nothing at
 * all is known (offline at init with no sysfs record, or hidden by a cpuset
 * with no sysfs MIDR). It is the smallest line CTR_EL0 can encode
 * (IminLine = DminLine = 0 means 4 << 0 = 4 bytes, Arm ARM D19.2 CTR_EL0),
 * so it is safe on any conforming core; its cost is one maintenance
 * operation per 4 bytes.
 */
#define JITFLUSH_FLOOR_LINE 4

#ifdef __cplusplus
extern "C" {
#endif

/* Status codes returned by the int functions. Negative values are errors. */
enum jitflush_status {
  JITFLUSH_OK = 0,               /* every possible CPU was observed */
  JITFLUSH_INCOMPLETE = 1,       /* some CPUs were not observed; the stride covers
                                    them from sysfs, the MIDR table or the floor */
  JITFLUSH_SYNC_GLOBAL = 2,      /* jitflush_sync_cores used the slower
                                    MEMBARRIER_CMD_GLOBAL (Linux 4.3 - 4.15) */
  JITFLUSH_ERR_ARG = -1,         /* a NULL or otherwise invalid argument */
  JITFLUSH_ERR_PROBE = -2,       /* the probe could not run at all (no thread);
                                    flushes use what sysfs says, or the floor */
  JITFLUSH_ERR_UNSUPPORTED = -3, /* no way to synchronise other cores here */
  JITFLUSH_ERR_SYNC = -4,        /* the OS refused the synchronisation call */
};

/* Where a number came from, strongest first. */
enum jitflush_source {
  JITFLUSH_SRC_NONE = 0,   /* not known */
  JITFLUSH_SRC_CTR_EL0,    /* CTR_EL0 / MIDR_EL1 read on that very CPU */
  JITFLUSH_SRC_SYSFS,      /* /sys/devices/system/cpu/cpuN/... */
  JITFLUSH_SRC_MIDR_TABLE, /* jitflush's table of known cores, by MIDR */
  JITFLUSH_SRC_FLOOR,      /* JITFLUSH_FLOOR_LINE: nothing was known */
  JITFLUSH_SRC_PLATFORM,   /* fixed by the platform (e.g. coherent x86) */
  JITFLUSH_SRC_CLUSTER,    /* an offline CPU's lines, taken from the observed
                              CPUs of one core type that the kernel lists in
                              its cpufreq policy and topology cluster (see
                              "Offline CPUs" at the top); checked on every
                              flush */
};

/* Returns a short lower-case name ("ctr_el0", "sysfs", "midr_table",
 * "floor", "platform", "cluster", "none") for a source. Never NULL. */
const char *jitflush_source_name(enum jitflush_source source);

/* One possible CPU. Line sizes are in bytes; 0 means not known. */
struct jitflush_cpu_info {
  int cpu;       /* logical CPU number */
  bool online;   /* online when the probe ran */
  bool observed; /* CTR_EL0 was read on this CPU */
  uint64_t midr; /* MIDR_EL1, valid when midr_source != NONE */
  enum jitflush_source midr_source;
  uint64_t ctr_el0; /* raw CTR_EL0, valid when observed */
  unsigned iline;   /* I-cache line used for this CPU */
  unsigned dline;   /* D-cache line used for this CPU */
  enum jitflush_source iline_source;
  enum jitflush_source dline_source;
  bool idc; /* CTR_EL0.IDC [28] (false when unknown) */
  bool dic; /* CTR_EL0.DIC [29] (false when unknown) */
  enum jitflush_source idc_dic_source;
  unsigned l1ip;           /* CTR_EL0.L1Ip [15:14]: 2 VIPT, 3 PIPT;
                              0 when not observed */
  unsigned sysfs_l1i_line; /* sysfs L1 Instruction coherency_line_size */
  unsigned sysfs_l1d_line; /* sysfs L1 Data coherency_line_size */
  int inferred_from;       /* lines from JITFLUSH_SRC_CLUSTER: the lowest
                              observed CPU they were taken from; -1
                              otherwise */
};

/* The process-wide view. Filled by jitflush_get_info() into caller memory. */
struct jitflush_info {
  /* Safe values used by every flush: the minimum line over every possible
   * CPU and every source, and IDC/DIC only if every CPU has them (the
   * kernel's own rule, ftr_ctr in arch/arm64/kernel/cpufeature.c). On a
   * platform that needs no maintenance the lines are 0. */
  unsigned iline;
  unsigned dline;
  bool idc;
  bool dic;
  enum jitflush_source iline_source; /* source of the CPU that set it */
  enum jitflush_source dline_source;
  bool complete;           /* every possible CPU was observed by CTR_EL0 */
  bool heterogeneous;      /* observed CPUs disagree on a line, IDC or DIC */
  bool per_call_guard;     /* each flush also reads this core's CTR_EL0 */
  bool online_check;       /* some CPU's lines are inferred (JITFLUSH_SRC_CLUSTER):
                              each flush reads the online CPU list after its
                              maintenance and, when a CPU that was offline at
                              the probe is online, probes again and repeats
                              the maintenance with the new lines */
  bool use_dc_civac;       /* a Cortex-A53 r0p0-r0p2 is present (errata
                              819472/826319/827319/824069): dc civac, not cvau */
  int status;              /* what jitflush_init() returned */
  const char *platform;    /* e.g. "aarch64-linux", "x86_64", "aarch64-apple" */
  const char *method;      /* how this platform flushes, in a few words */
  unsigned ncpus_possible; /* possible CPUs on the machine */
  unsigned ncpus;          /* records filled in cpus[] */
  bool truncated;          /* ncpus_possible > JITFLUSH_MAX_CPUS */
  struct jitflush_cpu_info cpus[JITFLUSH_MAX_CPUS];
};

/*
 * Probes every CPU once and fixes the flush geometry for the life of the
 * process. Optional: the first flush calls it if nobody did.
 *
 * Idempotent and thread-safe: the probe runs exactly once; concurrent
 * callers wait for it and all return the same status. Returns JITFLUSH_OK,
 * JITFLUSH_INCOMPLETE or JITFLUSH_ERR_PROBE (see enum jitflush_status);
 * in every case later flushes are safe.
 *
 * Not async-signal-safe (it creates a helper thread and reads sysfs). Call
 * it at startup if your first flush may come from a signal handler.
 *
 * On AArch64 Linux the probe runs on a helper thread that pins itself to
 * each CPU the process may use and reads CTR_EL0 and MIDR_EL1 there; the
 * calling thread's affinity is never changed.
 */
int jitflush_init(void);

/*
 * Makes the instructions in [begin, end) visible to instruction fetch on
 * every core: a drop-in for __builtin___clear_cache, with the same
 * semantics on every platform (see docs/TESTING.md, "Guarantees").
 *
 * - begin is aligned down to the line; every line touching the range is
 *   maintained, so unaligned ranges are fine.
 * - end == begin, or end < begin with end != NULL: nothing to do (no
 *   maintenance, as __clear_cache's loops).
 * - end == NULL with begin != NULL: the range runs to the top of the address
 *   space (an end that wrapped to 0).
 * - The range must be mapped, as for __clear_cache: an unmapped line faults
 *   (SIGSEGV) exactly there; nothing is probed first.
 * - Other threads that may already be running the old code must still pass
 *   a context synchronisation event: see jitflush_sync_cores().
 *
 * Thread-safe. Async-signal-safe once jitflush_init() (or any earlier
 * flush) has returned, except for the one flush that finds a CPU online
 * whose lines were inferred (jitflush_info.online_check): it re-probes. If
 * another thread is still probing, the call does not wait: it flushes with
 * JITFLUSH_FLOOR_LINE, which is always correct.
 */
void jitflush_clear_cache(void *begin, void *end);

/*
 * Double-mapped (W^X) code: the same pages mapped twice, writable at RW and
 * executable at RX. Cleans the D-cache through RW (where the new bytes were
 * written) and invalidates the I-cache through RX (a VIPT I-cache is
 * indexed by the address that fetches), each with the process-wide line,
 * each view aligned to the line on its own, so RW and RX may sit at
 * different offsets within a line. LEN == 0 does nothing. Same thread- and
 * signal-safety as jitflush_clear_cache. Flushing double-mapped code with
 * jitflush_clear_cache(rw, rw + len) leaves the RX alias stale on a VIPT
 * I-cache (Cortex-A53, A55, Exynos M1).
 */
void jitflush_clear_cache_dual(const void *rw, const void *rx, size_t len);

/*
 * Makes every other thread of the process pass a context synchronisation
 * event before it next executes an instruction, so threads that may be
 * running the old code fetch the new code. Call it after the flush, before
 * publishing the new code to the other threads (or use
 * jitflush_clear_cache_all_threads).
 *
 * Linux (any architecture) >= 4.16: membarrier(
 * MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE), registered once on first use
 * (thread-safe); returns JITFLUSH_OK. Linux 4.3 - 4.15: MEMBARRIER_CMD_GLOBAL,
 * returns JITFLUSH_SYNC_GLOBAL (slower: it waits for every CPU of the
 * system). No membarrier at all (Linux < 4.3, or seccomp denying it):
 * returns JITFLUSH_ERR_UNSUPPORTED and the caller must stop or signal the
 * other threads itself (a signal handler's return is an exception return,
 * hence context synchronising). Windows: FlushProcessWriteBuffers, returns
 * JITFLUSH_OK. Other platforms: JITFLUSH_ERR_UNSUPPORTED.
 *
 * Thread-safe. Not async-signal-safe on its first call (it registers).
 */
int jitflush_sync_cores(void);

/* jitflush_clear_cache(begin, end) then jitflush_sync_cores(); returns
 * what jitflush_sync_cores returned. The common case in one call. */
int jitflush_clear_cache_all_threads(void *begin, void *end);

/*
 * Copies the process-wide view into *out (caller-owned; about 30 KiB with
 * JITFLUSH_MAX_CPUS = 256). Initialises first if needed.
 * Returns the status jitflush_init() returned, or JITFLUSH_ERR_ARG for NULL.
 * Thread-safe; not async-signal-safe (it may initialise).
 */
int jitflush_get_info(struct jitflush_info *out);

/* MIDR_EL1 fields (Arm ARM D19.2 MIDR_EL1) and the core's name from
 * jitflush's table, or NULL when the core is not in it. */
static inline unsigned jitflush_midr_implementer(uint64_t midr)
{
  return (unsigned)(midr >> 24) & 0xff;
}
static inline unsigned jitflush_midr_variant(uint64_t midr)
{
  return (unsigned)(midr >> 20) & 0xf;
}
static inline unsigned jitflush_midr_part(uint64_t midr)
{
  return (unsigned)(midr >> 4) & 0xfff;
}
static inline unsigned jitflush_midr_revision(uint64_t midr)
{
  return (unsigned)midr & 0xf;
}
const char *jitflush_midr_name(uint64_t midr);
/* The L1 lines (bytes) jitflush's table gives for MIDR's core; false, and
 * nothing written, when the core is not in the table. */
bool jitflush_midr_lines(uint64_t midr, unsigned *iline, unsigned *dline);

#ifdef __cplusplus
}
#endif

#endif /* JITFLUSH_H */
