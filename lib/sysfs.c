/*
 * Reads /sys/devices/system/cpu through the fs seam. Never allocates: each
 * file goes into a stack buffer (STYLE: cpu_features). Nothing here trusts a
 * file: a missing or malformed one simply leaves its value unknown.
 */
#include <stdio.h>
#include <string.h>

#include "fs.h"
#include "sysfs.h"

#define CPU_DIR "/sys/devices/system/cpu"

/* A cpulist of 1024 CPUs written as "0,2,4,..." is under 4 KiB. */
enum { FILE_BUFFER = 4096 };

/* Reads a whole small file; returns its length or -1. A file that does not
 * fit is treated as malformed rather than parsed in part. */
static int read_small_file(const char *path, char *buf, size_t size)
{
  int fd = jf_fs_open(path);
  if (fd < 0) {
    return -1;
  }
  size_t used = 0;
  for (;;) {
    long n = jf_fs_read(fd, buf + used, size - used);
    if (n < 0) {
      jf_fs_close(fd);
      return -1;
    }
    if (n == 0) {
      break;
    }
    used += (size_t)n;
    if (used == size) {
      jf_fs_close(fd);
      return -1;
    }
  }
  jf_fs_close(fd);
  return (int)used;
}

bool jf_parse_u64(const char *text, unsigned len, uint64_t *out)
{
  if (len > 0 && text[len - 1] == '\n') {
    len--;
  }
  unsigned pos = 0, base = 10;
  if (len > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    pos = 2;
    base = 16;
  }
  if (pos == len) {
    return false;
  }
  uint64_t value = 0;
  for (; pos < len; pos++) {
    char c = text[pos];
    unsigned digit;
    if (c >= '0' && c <= '9') {
      digit = (unsigned)(c - '0');
    } else if (base == 16 && c >= 'a' && c <= 'f') {
      digit = (unsigned)(c - 'a' + 10);
    } else if (base == 16 && c >= 'A' && c <= 'F') {
      digit = (unsigned)(c - 'A' + 10);
    } else {
      return false;
    }
    if (value > (UINT64_MAX - digit) / base) {
      return false;
    }
    value = value * base + digit;
  }
  *out = value;
  return true;
}

bool jf_sysfs_read_cpulist(const char *name, struct jf_cpuset *out)
{
  char path[96], buf[FILE_BUFFER];
  /* No snprintf: a flush with inferred lines reads "online" every time
   * (state.c), and formatting cost it more than the read itself. */
  static const char dir[] = CPU_DIR "/";
  size_t n = strlen(name);
  if (n + sizeof dir > sizeof path) {
    jf_cpuset_clear(out);
    return false;
  }
  memcpy(path, dir, sizeof dir - 1);
  memcpy(path + sizeof dir - 1, name, n + 1);
  int len = read_small_file(path, buf, sizeof buf);
  if (len < 0) {
    jf_cpuset_clear(out);
    return false;
  }
  return jf_cpulist_parse(buf, (size_t)len, out);
}

static bool read_number(const char *path, uint64_t *out)
{
  char buf[64];
  int len = read_small_file(path, buf, sizeof buf);
  return len > 0 && jf_parse_u64(buf, (unsigned)len, out);
}

/* A line size that could be real: a power of two the CTR encoding can
 * express (4 B .. 128 KiB, Arm ARM CTR_EL0.IminLine is 4 bits). Anything else
 * is garbage and ignored rather than used as a stride. */
static bool plausible_line(uint64_t bytes)
{
  return bytes >= 4 && bytes <= (4u << 15) && (bytes & (bytes - 1)) == 0;
}

static bool type_is(const char *buf, int len, const char *word)
{
  size_t n = strlen(word);
  if (len > 0 && buf[len - 1] == '\n') {
    len--;
  }
  return (size_t)len == n && memcmp(buf, word, n) == 0;
}

/* arm64 Linux lists the caches of a CPU as index0.. (drivers/base/cacheinfo.c);
 * L1 is split into Data and Instruction, a Unified L1 serves both. */
static void read_l1_lines(unsigned cpu, struct jf_sysfs_cpu *out)
{
  for (unsigned index = 0; index < 8; index++) {
    char path[128], type[32];
    uint64_t level, line;
    snprintf(path, sizeof path, CPU_DIR "/cpu%u/cache/index%u/level", cpu, index);
    if (!read_number(path, &level)) {
      continue; /* absent or garbage: look at the next index anyway */
    }
    if (level != 1) {
      continue;
    }
    snprintf(path, sizeof path, CPU_DIR "/cpu%u/cache/index%u/coherency_line_size", cpu, index);
    if (!read_number(path, &line) || !plausible_line(line)) {
      continue;
    }
    snprintf(path, sizeof path, CPU_DIR "/cpu%u/cache/index%u/type", cpu, index);
    int len = read_small_file(path, type, sizeof type);
    if (len <= 0) {
      continue;
    }
    bool data = type_is(type, len, "Data"), instruction = type_is(type, len, "Instruction");
    bool unified = type_is(type, len, "Unified");
    if ((data || unified) && (out->l1d_line == 0 || line < out->l1d_line)) {
      out->l1d_line = (unsigned)line;
    }
    if ((instruction || unified) && (out->l1i_line == 0 || line < out->l1i_line)) {
      out->l1i_line = (unsigned)line;
    }
  }
}

bool jf_sysfs_read_midr(unsigned cpu, uint64_t *midr)
{
  char path[128];
  snprintf(path, sizeof path, CPU_DIR "/cpu%u/regs/identification/midr_el1", cpu);
  uint64_t value;
  /* The kernel prints the 64-bit register; the upper half is RES0, so a
   * value above 32 bits is not a MIDR. */
  if (!read_number(path, &value) || value > UINT32_MAX) {
    return false;
  }
  *midr = value;
  return true;
}

void jf_sysfs_read_l1(unsigned cpu, struct jf_sysfs_cpu *out)
{
  out->l1i_line = out->l1d_line = 0;
  read_l1_lines(cpu, out);
}

void jf_sysfs_read_cpu(unsigned cpu, struct jf_sysfs_cpu *out)
{
  memset(out, 0, sizeof *out);
  read_l1_lines(cpu, out);
  out->has_midr = jf_sysfs_read_midr(cpu, &out->midr);
}

/* A cpulist (or, with WORDS, cpufreq's space-separated list) file. */
static bool read_cpu_file(const char *path, bool words, struct jf_cpuset *out)
{
  char buf[FILE_BUFFER];
  int len = read_small_file(path, buf, sizeof buf);
  if (len < 0) {
    jf_cpuset_clear(out);
    return false;
  }
  return words ? jf_cpuwords_parse(buf, (size_t)len, out) : jf_cpulist_parse(buf, (size_t)len, out);
}

bool jf_sysfs_read_domain(unsigned cpu, struct jf_cpuset *out)
{
  char path[128];
  struct jf_cpuset policy, cluster;
  snprintf(path, sizeof path, CPU_DIR "/cpu%u/cpufreq/related_cpus", cpu);
  bool has_policy = read_cpu_file(path, true, &policy);
  snprintf(path, sizeof path, CPU_DIR "/cpu%u/topology/cluster_cpus_list", cpu);
  bool has_cluster = read_cpu_file(path, false, &cluster);
  if (!has_cluster) {
    snprintf(path, sizeof path, CPU_DIR "/cpu%u/topology/core_siblings_list", cpu);
    has_cluster = read_cpu_file(path, false, &cluster);
  }
  if (has_policy && has_cluster) {
    jf_cpuset_and(&policy, &cluster, out);
  } else if (has_policy) {
    *out = policy;
  } else if (has_cluster) {
    *out = cluster;
  } else {
    jf_cpuset_clear(out);
  }
  /* A list that leaves out its own CPU is not the kernel's (each of these
   * always includes it), so none of it is trusted. */
  if (!jf_cpuset_has(out, cpu)) {
    jf_cpuset_clear(out);
    return false;
  }
  return true;
}
