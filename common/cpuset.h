/* A fixed-size CPU bit set and the kernel's cpulist format ("0-3,6"). */
#ifndef JITFLUSH_INTERNAL_CPUSET_H
#define JITFLUSH_INTERNAL_CPUSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* CPU_SETSIZE in glibc and bionic: the largest set sched_setaffinity takes
 * without a dynamically sized mask. */
#define JF_MAX_CPUS 1024

struct jf_cpuset {
  uint64_t bits[JF_MAX_CPUS / 64];
};

void jf_cpuset_clear(struct jf_cpuset *set);
void jf_cpuset_add(struct jf_cpuset *set, unsigned cpu);
void jf_cpuset_remove(struct jf_cpuset *set, unsigned cpu);
bool jf_cpuset_has(const struct jf_cpuset *set, unsigned cpu);
unsigned jf_cpuset_count(const struct jf_cpuset *set);
/* One past the highest member, 0 for an empty set. */
unsigned jf_cpuset_end(const struct jf_cpuset *set);

/* Parses a cpulist of LEN bytes (not NUL-terminated; a trailing newline is
 * fine) into *OUT. Returns NULL, or why it is not a cpulist, one of these
 * static strings, and leaves *OUT empty:
 *   "empty CPU list"
 *   "malformed CPU list"                       anything but "N" and "N-M" items
 *                                              separated by single commas
 *   "descending range in CPU list"             "7-4"
 *   "CPU number too large (the limit is 1023)" a CPU >= JF_MAX_CPUS
 * The items are read in order and the first problem is the one reported. */
const char *jf_cpulist_problem(const char *text, size_t len, struct jf_cpuset *out);

/* jf_cpulist_problem(...) == NULL. */
bool jf_cpulist_parse(const char *text, size_t len, struct jf_cpuset *out);

/* Parses cpufreq's related_cpus/affected_cpus format: CPU numbers each
 * followed by one space ("4 5 6 7 \n", show_cpus() in
 * drivers/cpufreq/cpufreq.c); the last space and the newline are optional.
 * Same rejections as jf_cpulist_parse. */
bool jf_cpuwords_parse(const char *text, size_t len, struct jf_cpuset *out);

/* Formats SET as a cpulist ("0-3,6"; "" for an empty set) into BUF of SIZE
 * bytes, always NUL-terminated. Returns false when it did not fit. */
bool jf_cpulist_format(const struct jf_cpuset *set, char *buf, size_t size);

/* A & B into OUT (which may alias either). */
void jf_cpuset_and(const struct jf_cpuset *a, const struct jf_cpuset *b, struct jf_cpuset *out);

#endif
