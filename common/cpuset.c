/* CPU sets and the kernel's cpulist format (Documentation/admin-guide/cputopology.rst). */
#include <string.h>

#include "cpuset.h"

void jf_cpuset_clear(struct jf_cpuset *set)
{
  memset(set, 0, sizeof *set);
}

void jf_cpuset_add(struct jf_cpuset *set, unsigned cpu)
{
  if (cpu < JF_MAX_CPUS) {
    set->bits[cpu / 64] |= UINT64_C(1) << (cpu % 64);
  }
}

void jf_cpuset_remove(struct jf_cpuset *set, unsigned cpu)
{
  if (cpu < JF_MAX_CPUS) {
    set->bits[cpu / 64] &= ~(UINT64_C(1) << (cpu % 64));
  }
}

bool jf_cpuset_has(const struct jf_cpuset *set, unsigned cpu)
{
  return cpu < JF_MAX_CPUS && ((set->bits[cpu / 64] >> (cpu % 64)) & 1);
}

unsigned jf_cpuset_count(const struct jf_cpuset *set)
{
  unsigned n = 0;
  for (unsigned i = 0; i < JF_MAX_CPUS / 64; i++) {
    n += (unsigned)__builtin_popcountll(set->bits[i]);
  }
  return n;
}

unsigned jf_cpuset_end(const struct jf_cpuset *set)
{
  for (unsigned i = JF_MAX_CPUS / 64; i-- > 0;) {
    if (set->bits[i]) {
      return i * 64 + 64 - (unsigned)__builtin_clzll(set->bits[i]);
    }
  }
  return 0;
}

/* Reads the decimal number at *POS; false when there is none. The value
 * stops growing at CPU_NUMBER_CAP, so hostile input cannot overflow, and
 * numbers below it compare exactly (anything past JF_MAX_CPUS is an error
 * anyway). */
#define CPU_NUMBER_CAP (UINT64_C(1) << 32)
static bool read_cpu_number(const char *text, size_t len, size_t *pos, uint64_t *out)
{
  size_t start = *pos;
  uint64_t value = 0;
  while (*pos < len && text[*pos] >= '0' && text[*pos] <= '9') {
    if (value < CPU_NUMBER_CAP) {
      value = value * 10 + (unsigned)(text[*pos] - '0');
    }
    (*pos)++;
  }
  *out = value;
  return *pos > start;
}

/* The reasons of jf_cpulist_problem. The emulator's config errors quote
 * them (tests/emu/shared/emu_config_test.cc), so the words are part of its
 * contract. */
_Static_assert(JF_MAX_CPUS == 1024, "the message below names the limit");
static const char reason_empty[] = "empty CPU list";
static const char reason_malformed[] = "malformed CPU list";
static const char reason_descending[] = "descending range in CPU list";
static const char reason_too_large[] = "CPU number too large (the limit is 1023)";

static const char *cpulist_reject(struct jf_cpuset *out, const char *why)
{
  jf_cpuset_clear(out);
  return why;
}

const char *jf_cpulist_problem(const char *text, size_t len, struct jf_cpuset *out)
{
  jf_cpuset_clear(out);
  if (len > 0 && text[len - 1] == '\n') {
    len--;
  }
  if (len == 0) {
    return reason_empty; /* the kernel prints an empty line only for an empty set */
  }
  size_t pos = 0;
  for (;;) {
    uint64_t first, last;
    if (!read_cpu_number(text, len, &pos, &first)) {
      return cpulist_reject(out, reason_malformed);
    }
    last = first;
    if (pos < len && text[pos] == '-') {
      pos++;
      if (!read_cpu_number(text, len, &pos, &last)) {
        return cpulist_reject(out, reason_malformed);
      }
    }
    /* The item's syntax first: "7-4x" is malformed, not descending. */
    if (pos < len && text[pos] != ',') {
      return cpulist_reject(out, reason_malformed);
    }
    if (last < first) {
      return cpulist_reject(out, reason_descending);
    }
    if (last >= JF_MAX_CPUS) {
      return cpulist_reject(out, reason_too_large);
    }
    for (unsigned cpu = (unsigned)first; cpu <= last; cpu++) {
      jf_cpuset_add(out, cpu);
    }
    if (pos == len) {
      return NULL;
    }
    pos++; /* the comma */
  }
}

bool jf_cpulist_parse(const char *text, size_t len, struct jf_cpuset *out)
{
  return jf_cpulist_problem(text, len, out) == NULL;
}

bool jf_cpuwords_parse(const char *text, size_t len, struct jf_cpuset *out)
{
  jf_cpuset_clear(out);
  if (len > 0 && text[len - 1] == '\n') {
    len--;
  }
  if (len > 0 && text[len - 1] == ' ') {
    len--;
  }
  if (len == 0) {
    return false;
  }
  size_t pos = 0;
  for (;;) {
    uint64_t cpu;
    if (!read_cpu_number(text, len, &pos, &cpu) || cpu >= JF_MAX_CPUS) {
      goto malformed;
    }
    jf_cpuset_add(out, (unsigned)cpu);
    if (pos == len) {
      return true;
    }
    if (text[pos] != ' ') {
      goto malformed;
    }
    pos++;
  }
malformed:
  jf_cpuset_clear(out);
  return false;
}

/* Appends TEXT at *used; false when it does not fit (NUL included). */
static bool append(char *buf, size_t size, size_t *used, const char *text)
{
  size_t n = strlen(text);
  if (*used + n + 1 > size) {
    return false;
  }
  memcpy(buf + *used, text, n + 1);
  *used += n;
  return true;
}

static void decimal(unsigned v, char out[12])
{
  char tmp[12];
  unsigned n = 0;
  do {
    tmp[n++] = (char)('0' + v % 10);
  } while ((v /= 10) != 0);
  for (unsigned i = 0; i < n; i++) {
    out[i] = tmp[n - 1 - i];
  }
  out[n] = '\0';
}

bool jf_cpulist_format(const struct jf_cpuset *set, char *buf, size_t size)
{
  if (size == 0) {
    return false;
  }
  buf[0] = '\0';
  size_t used = 0;
  unsigned end = jf_cpuset_end(set);
  for (unsigned cpu = 0; cpu < end; cpu++) {
    if (!jf_cpuset_has(set, cpu)) {
      continue;
    }
    unsigned last = cpu;
    while (last + 1 < end && jf_cpuset_has(set, last + 1)) {
      last++;
    }
    char num[12];
    if (used > 0 && !append(buf, size, &used, ",")) {
      return false;
    }
    decimal(cpu, num);
    if (!append(buf, size, &used, num)) {
      return false;
    }
    if (last != cpu) {
      decimal(last, num);
      if (!append(buf, size, &used, "-") || !append(buf, size, &used, num)) {
        return false;
      }
    }
    cpu = last;
  }
  return true;
}

void jf_cpuset_and(const struct jf_cpuset *a, const struct jf_cpuset *b, struct jf_cpuset *out)
{
  for (unsigned i = 0; i < JF_MAX_CPUS / 64; i++) {
    out->bits[i] = a->bits[i] & b->bits[i];
  }
}
