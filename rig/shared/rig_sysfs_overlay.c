/*
 * Generates the emulated SoC's /sys/devices/system/cpu the way arm64 Linux
 * lays it out (Documentation/ABI/testing/sysfs-devices-system-cpu):
 *
 *   possible, present, online, offline, kernel_max      cpulists / numbers
 *   cpuN/online                                          "1"
 *   cpuN/cache/index0/{level,type,coherency_line_size}   L1 Data
 *   cpuN/cache/index1/{level,type,coherency_line_size}   L1 Instruction
 *   cpuN/regs/identification/midr_el1                    "0x%016llx"
 *   cpuN/topology/{core_siblings_list,package_cpus_list,cluster_cpus_list}
 *   cpuN/cpufreq/related_cpus                            "4 5 6 7 "
 *
 * The topology lists and related_cpus name every CPU of the CPU's domain
 * (its cluster, or every cluster sharing its domain=), offline ones
 * included, as Linux does: a cpufreq policy's related_cpus keeps the CPUs
 * that went offline (drivers/cpufreq/cpufreq.c, show_cpus(), one "%u " per
 * CPU), and the topology masks are built from the firmware's description
 * of every possible CPU (drivers/base/arch_topology.c). A Galaxy S7 with
 * CPUs 6-7 out shows "4 5 6 7" in CPU 4's related_cpus.
 *
 * Per-CPU folders exist only for online CPUs: the cache and regs folders of
 * a CPU are created by its hotplug-online callbacks (cacheinfo_cpu_online()
 * in drivers/base/cacheinfo.c, cpuid_cpu_online() in
 * arch/arm64/kernel/cpuinfo.c), so a probe must not find any for an offline
 * CPU. Cache sizes are not written: the configs do not give them and a
 * guessed size would be a silent wrong answer.
 */
#include "rig_sysfs_overlay.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <ftw.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#define RIG_OVERLAY_ERROR (g_quark_from_static_string("emu-overlay-error"))

/* "0,2,4,...,1022", the longest cpulist of JF_MAX_CPUS CPUs, is under
 * 4.5 KiB. */
#define CPULIST_BYTES 8192

/* SET in the kernel's cpulist format (the library's, common/cpuset.c), in
 * BUF. */
static const char *cpulist(const struct jf_cpuset *set, char buf[CPULIST_BYTES])
{
  bool fits = jf_cpulist_format(set, buf, CPULIST_BYTES);
  g_assert(fits);
  return buf;
}

/* The CPUs of CPU's domain, offline ones included. */
static void domain_members(const struct rig_config *config, unsigned cpu, struct jf_cpuset *members)
{
  unsigned domain = config->clusters[config->cpus[cpu].cluster].domain_id;
  jf_cpuset_clear(members);
  for (unsigned other = 0; other < config->ncpus; other++) {
    if (config->clusters[config->cpus[other].cluster].domain_id == domain) {
      jf_cpuset_add(members, other);
    }
  }
}

/* mkdir -p, from the deepest folder up: the parent mostly exists, so one
 * mkdir, and cpuN/cache/index0 two, where g_mkdir_with_parents walks every
 * component from / with an access and a stat each (a fifth of the
 * runner's system calls, docs/BENCHMARKS.md "Start-up"). */
static bool mkdir_parents(const char *path)
{
  if (mkdir(path, 0755) == 0 || errno == EEXIST) {
    return true;
  }
  if (errno != ENOENT) {
    return false;
  }
  char *parent = g_path_get_dirname(path);
  bool ok = strcmp(parent, path) != 0 && mkdir_parents(parent);
  g_free(parent);
  return ok && (mkdir(path, 0755) == 0 || errno == EEXIST);
}

/*
 * Where the writers below put the tree: into files, or only into a digest
 * of every folder and file they would make, contents included
 * (rig_overlay_sysfs_key). The same code does both, so that the digest
 * cannot miss what a change to the layout adds.
 */
struct tree_out {
  GChecksum *digest; /* NULL: write the files */
  size_t root_len;   /* of the root, left out of the digest */
};

static const struct tree_out to_files = {NULL, 0};

static void digest_entry(const struct tree_out *out, char kind, const char *path, const char *body)
{
  g_checksum_update(out->digest, (const guchar *)&kind, 1);
  g_checksum_update(out->digest, (const guchar *)path + out->root_len, -1);
  /* A NUL ends each part, so that no two trees give the same stream. */
  g_checksum_update(out->digest, (const guchar *)"", 1);
  if (body) {
    g_checksum_update(out->digest, (const guchar *)body, -1);
    g_checksum_update(out->digest, (const guchar *)"", 1);
  }
}

static bool make_dir(const struct tree_out *out, const char *path, GError **error)
{
  if (out->digest) {
    digest_entry(out, 'd', path, NULL);
    return true;
  }
  if (mkdir_parents(path)) {
    return true;
  }
  int e = errno;
  g_set_error(error, RIG_OVERLAY_ERROR, 1, "cannot create %s: %s", path, g_strerror(e));
  return false;
}

/* Creates PATH holding BODY; false with errno set, EEXIST when it exists. */
static bool create_file(const char *path, const char *body)
{
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    return false;
  }
  size_t len = strlen(body);
  bool ok = write(fd, body, len) == (ssize_t)len;
  int e = errno;
  if (close(fd) != 0 && ok) {
    ok = false;
    e = errno;
  }
  errno = ok ? 0 : e;
  return ok;
}

/* Writes TEXT plus the newline every sysfs attribute ends with. A new file
 * is written in place: before QEMU starts nothing reads the tree, and a
 * CPU that comes online gets a folder of new files, as the kernel creates
 * them one by one too; that is one open, write and close, where the
 * replacement below costs six calls, and the runner writes about a hundred
 * files per run (docs/BENCHMARKS.md, "Start-up"). A file that exists (the
 * online and offline lists at a hotplug event) is replaced whole, so that
 * a guest reading it meanwhile sees the old list or the new one. */
static bool write_attr(const struct tree_out *out, const char *dir, const char *name,
                       const char *text, GError **error)
{
  char *path = g_build_filename(dir, name, NULL);
  char *body = g_strconcat(text, "\n", NULL);
  if (out->digest) {
    digest_entry(out, 'f', path, body);
    g_free(body);
    g_free(path);
    return true;
  }
  GError *io = NULL;
  bool ok = create_file(path, body);
  if (!ok && errno != EEXIST) {
    g_set_error(&io, G_FILE_ERROR, g_file_error_from_errno(errno), "%s", g_strerror(errno));
  } else if (!ok) {
    ok = g_file_set_contents(path, body, -1, &io);
  }
  if (!ok) {
    g_set_error(error, RIG_OVERLAY_ERROR, 1, "cannot write %s: %s", path, io->message);
    g_error_free(io);
  }
  g_free(body);
  g_free(path);
  return ok;
}

static bool write_attr_uint(const struct tree_out *out, const char *dir, const char *name,
                            unsigned v, GError **error)
{
  char text[24];
  g_snprintf(text, sizeof text, "%u", v);
  return write_attr(out, dir, name, text, error);
}

static bool write_cache_index(const struct tree_out *out, const char *cpu_dir, unsigned index,
                              const char *type, unsigned line, GError **error)
{
  char *dir = g_strdup_printf("%s/cache/index%u", cpu_dir, index);
  bool ok = make_dir(out, dir, error) && write_attr_uint(out, dir, "level", 1, error) &&
            write_attr(out, dir, "type", type, error) &&
            write_attr_uint(out, dir, "coherency_line_size", line, error);
  g_free(dir);
  return ok;
}

static bool write_grouping(const struct tree_out *out, const struct rig_config *config,
                           const char *dir, unsigned cpu, GError **error)
{
  struct jf_cpuset members;
  domain_members(config, cpu, &members);
  char buf[CPULIST_BYTES];
  const char *list = cpulist(&members, buf);
  GString *words = g_string_new(NULL);
  for (unsigned other = 0; other < config->ncpus; other++) {
    if (jf_cpuset_has(&members, other)) {
      g_string_append_printf(words, "%u ", other);
    }
  }
  char *topology = g_strdup_printf("%s/topology", dir);
  char *cpufreq = g_strdup_printf("%s/cpufreq", dir);
  bool ok = make_dir(out, topology, error) &&
            write_attr(out, topology, "core_siblings_list", list, error) &&
            write_attr(out, topology, "package_cpus_list", list, error) &&
            write_attr(out, topology, "cluster_cpus_list", list, error) &&
            make_dir(out, cpufreq, error) &&
            write_attr(out, cpufreq, "related_cpus", words->str, error);
  g_free(topology);
  g_free(cpufreq);
  g_string_free(words, TRUE);
  return ok;
}

static bool write_cpu(const struct tree_out *out, const struct rig_config *config,
                      const char *cpu_root, unsigned cpu, GError **error)
{
  const struct rig_cluster *cl = &config->clusters[config->cpus[cpu].cluster];
  char *dir = g_strdup_printf("%s/cpu%u", cpu_root, cpu);
  bool ok = make_dir(out, dir, error) && write_attr(out, dir, "online", "1", error);
  bool cache = config->sysfs == RIG_SYSFS_FULL || config->sysfs == RIG_SYSFS_NO_MIDR;
  bool midr = config->sysfs == RIG_SYSFS_FULL || config->sysfs == RIG_SYSFS_NO_CACHE;
  /* arm64 numbers the L1 leaves Data first, then Instruction
   * (populate_cache_leaves() in arch/arm64/kernel/cacheinfo.c). */
  if (ok && cache) {
    ok = write_cache_index(out, dir, 0, "Data", cl->l1d_line, error) &&
         write_cache_index(out, dir, 1, "Instruction", cl->l1i_line, error);
  }
  if (ok && midr) {
    char *id = g_strdup_printf("%s/regs/identification", dir);
    char text[24];
    /* The kernel prints it as "0x%016llx\n" (arch/arm64/kernel/cpuinfo.c). */
    g_snprintf(text, sizeof text, "0x%016llx", (unsigned long long)cl->midr);
    ok = make_dir(out, id, error) && write_attr(out, id, "midr_el1", text, error);
    g_free(id);
  }
  if (ok) {
    ok = write_grouping(out, config, dir, cpu, error);
  }
  g_free(dir);
  return ok;
}

static bool write_lists(const struct tree_out *out, const struct rig_config *config,
                        const char *cpu_root, const struct jf_cpuset *online_now, GError **error)
{
  struct jf_cpuset all, online, offline;
  jf_cpuset_clear(&all);
  jf_cpuset_clear(&online);
  jf_cpuset_clear(&offline);
  for (unsigned cpu = 0; cpu < config->ncpus; cpu++) {
    jf_cpuset_add(&all, cpu);
    jf_cpuset_add(jf_cpuset_has(online_now, cpu) ? &online : &offline, cpu);
  }
  /* kernel_max is NR_CPUS - 1: 255 for the long-time arm64 default of 256,
   * raised when the emulated system has more CPUs than that. */
  unsigned kernel_max = config->ncpus <= 256 ? 255 : config->ncpus <= 512 ? 511 : JF_MAX_CPUS - 1;
  /* One buffer, each list formatted just before it is written: this runs
   * on a guest thread's host stack at a hotplug event. */
  char buf[CPULIST_BYTES];
  return make_dir(out, cpu_root, error) &&
         write_attr(out, cpu_root, "possible", cpulist(&all, buf), error) &&
         write_attr(out, cpu_root, "present", buf, error) &&
         write_attr(out, cpu_root, "online", cpulist(&online, buf), error) &&
         write_attr(out, cpu_root, "offline", cpulist(&offline, buf), error) &&
         write_attr_uint(out, cpu_root, "kernel_max", kernel_max, error);
}

static bool write_sysfs(const struct tree_out *out, const struct rig_config *config,
                        const char *root, GError **error)
{
  if (config->sysfs == RIG_SYSFS_NONE) {
    return true;
  }
  char *cpu_root = g_build_filename(root, RIG_SYSFS_CPU_DIR, NULL);
  struct jf_cpuset online;
  jf_cpuset_clear(&online);
  for (unsigned cpu = 0; cpu < config->ncpus; cpu++) {
    if (config->cpus[cpu].online) {
      jf_cpuset_add(&online, cpu);
    }
  }
  bool ok = write_lists(out, config, cpu_root, &online, error);
  for (unsigned cpu = 0; ok && cpu < config->ncpus; cpu++) {
    if (jf_cpuset_has(&online, cpu)) {
      ok = write_cpu(out, config, cpu_root, cpu, error);
    }
  }
  g_free(cpu_root);
  return ok;
}

bool rig_overlay_write_sysfs(const struct rig_config *config, const char *root, GError **error)
{
  return write_sysfs(&to_files, config, root, error);
}

char *rig_overlay_sysfs_key(const struct rig_config *config)
{
  if (config->sysfs == RIG_SYSFS_NONE) {
    return NULL;
  }
  const char root[] = "/";
  struct tree_out out = {g_checksum_new(G_CHECKSUM_SHA256), sizeof root - 1};
  write_sysfs(&out, config, root, NULL);
  char *key = g_strdup(g_checksum_get_string(out.digest));
  g_checksum_free(out.digest);
  return key;
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
  (void)st;
  (void)type;
  (void)ftw;
  return remove(path) == 0 || errno == ENOENT ? 0 : -1;
}

bool rig_overlay_set_online(const struct rig_config *config, const char *cpu_root,
                            const struct jf_cpuset *online, GError **error)
{
  const struct tree_out *out = &to_files;
  if (config->sysfs == RIG_SYSFS_NONE) {
    return true;
  }
  /* Per-CPU folders first, the lists last: a guest that reads "online"
   * and then a CPU's files finds them (the kernel, too, creates them in
   * the CPU's online callbacks before the CPU counts as online). */
  bool ok = true;
  for (unsigned cpu = 0; ok && cpu < config->ncpus; cpu++) {
    char *dir = g_strdup_printf("%s/cpu%u", cpu_root, cpu);
    bool exists = g_file_test(dir, G_FILE_TEST_IS_DIR);
    if (jf_cpuset_has(online, cpu) && !exists) {
      ok = write_cpu(out, config, cpu_root, cpu, error);
    } else if (!jf_cpuset_has(online, cpu) && exists &&
               nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS) != 0) {
      int e = errno;
      g_set_error(error, RIG_OVERLAY_ERROR, 1, "cannot remove %s: %s", dir, g_strerror(e));
      ok = false;
    }
    g_free(dir);
  }
  return ok && write_lists(out, config, cpu_root, online, error);
}

bool rig_overlay_link_sysroot(const char *root, const char *given, GError **error)
{
  /* A symlink's relative target is resolved from the link's own folder,
   * not from where the runner was started: "--sysroot sysroot" made
   * ROOT/lib point at ROOT/sysroot/lib, and QEMU found no loader. */
  char *sysroot = g_canonicalize_filename(given, NULL);
  char *lib = g_build_filename(sysroot, "lib", NULL);
  bool has_lib = g_file_test(lib, G_FILE_TEST_IS_DIR);
  g_free(lib);
  if (!has_lib) {
    g_set_error(error, RIG_OVERLAY_ERROR, 1,
                "sysroot %s has no lib/ folder (expected an aarch64 sysroot such as "
                "/usr/aarch64-linux-gnu)",
                given);
    g_free(sysroot);
    return false;
  }
  /* The library folders, and the configuration and add-on folders a
   * distribution's root has: QEMU's -L finds a file under the prefix before
   * the host's, so plain `qemu-aarch64 -L SYSROOT` gives the guest the
   * sysroot's /etc (Racket CS reads /etc/racket/config.rktd; without it it
   * compiled its collections from source, 29 times the instructions). Not
   * bin/ and sbin/ (a cross sysroot's hold host tools, which the guest must
   * not find), nor tmp/, var/, sys/, proc/, dev/: where the guest writes or
   * the overlay itself answers. */
  static const char *const dirs[] = {"lib", "lib64", "usr", "etc", "opt", NULL};
  bool ok = true;
  for (int i = 0; ok && dirs[i]; i++) {
    char *target = g_build_filename(sysroot, dirs[i], NULL);
    char *link = g_build_filename(root, dirs[i], NULL);
    struct stat st;
    if (g_file_test(target, G_FILE_TEST_IS_DIR) && lstat(link, &st) != 0 &&
        symlink(target, link) != 0) {
      int e = errno;
      g_set_error(error, RIG_OVERLAY_ERROR, 1, "cannot link %s -> %s: %s", link, target,
                  g_strerror(e));
      ok = false;
    }
    g_free(target);
    g_free(link);
  }
  g_free(sysroot);
  return ok;
}
