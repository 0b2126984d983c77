// The sysfs reader (lib/sysfs.c) over a fake filesystem filled from the
// input (the shared fake, tests/host/fakes/fake_fs.cc). The input is split
// at NUL bytes; piece i becomes file i of the list below, a piece that is
// exactly "-" leaves that file absent, and missing pieces are absent files.
// Also jf_parse_u64 on every piece against an independent reference.
//
// Invariants: a line is 0 (unknown) or a stride CTR_EL0 could encode; a
// MIDR fits 32 bits; a cpulist read from a file equals parsing its text; a
// line that is reported was written in one of the coherency_line_size files;
// a grouping (jf_sysfs_read_domain) always holds its own CPU, lies within
// every grouping file that parsed, and is empty when none did.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fakes/fake_fs.h"
#include "fuzz_check.h"

extern "C" {
#include "sysfs.h"
}

namespace
{
const char *const kCpu = "/sys/devices/system/cpu/";
const std::vector<std::string> kFiles = {
    "possible",
    "online",
    "cpu0/cache/index0/level",
    "cpu0/cache/index0/type",
    "cpu0/cache/index0/coherency_line_size",
    "cpu0/cache/index1/level",
    "cpu0/cache/index1/type",
    "cpu0/cache/index1/coherency_line_size",
    "cpu0/cache/index2/level",
    "cpu0/cache/index2/type",
    "cpu0/cache/index2/coherency_line_size",
    "cpu0/cache/index3/level",
    "cpu0/cache/index3/type",
    "cpu0/cache/index3/coherency_line_size",
    "cpu0/regs/identification/midr_el1",
    // The kernel's groupings (appended, so older seeds keep their meaning).
    "cpu0/cpufreq/related_cpus",
    "cpu0/topology/cluster_cpus_list",
    "cpu0/topology/core_siblings_list",
};
constexpr size_t kRelated = 15, kCluster = 16, kSiblings = 17;

// Unsigned decimal, or 0x/0X hex with at least one digit; one trailing
// newline; no sign, no spaces, no overflow.
bool ReferenceU64(const std::string &s, uint64_t *out)
{
  std::string t = s;
  if (!t.empty() && t.back() == '\n')
    t.pop_back();
  size_t pos = 0;
  unsigned base = 10;
  if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) {
    pos = 2;
    base = 16;
  }
  if (pos == t.size())
    return false;
  unsigned __int128 v = 0;
  for (; pos < t.size(); pos++) {
    int d;
    char c = t[pos];
    if (c >= '0' && c <= '9')
      d = c - '0';
    else if (base == 16 && c >= 'a' && c <= 'f')
      d = c - 'a' + 10;
    else if (base == 16 && c >= 'A' && c <= 'F')
      d = c - 'A' + 10;
    else
      return false;
    v = v * base + static_cast<unsigned>(d);
    if (v > UINT64_MAX)
      return false;
  }
  *out = static_cast<uint64_t>(v);
  return true;
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  std::vector<std::string> pieces(1);
  for (size_t i = 0; i < size; i++) {
    if (data[i] == 0)
      pieces.emplace_back();
    else
      pieces.back() += static_cast<char>(data[i]);
  }
  fakefs::Reset();
  std::vector<uint64_t> written_lines;
  for (size_t i = 0; i < pieces.size() && i < kFiles.size(); i++) {
    if (pieces[i] == "-")
      continue;
    fakefs::CreateFile(kCpu + kFiles[i], pieces[i]);
    uint64_t v;
    if (kFiles[i].find("coherency_line_size") != std::string::npos && ReferenceU64(pieces[i], &v))
      written_lines.push_back(v);
  }

  for (const std::string &p : pieces) {
    uint64_t got = 0, want = 0;
    bool ok = jf_parse_u64(p.data(), static_cast<unsigned>(p.size()), &got);
    FUZZ_CHECK(ok == ReferenceU64(p, &want));
    if (ok)
      FUZZ_CHECK(got == want);
  }

  jf_sysfs_cpu cpu;
  jf_sysfs_read_cpu(0, &cpu);
  for (unsigned line : {cpu.l1i_line, cpu.l1d_line}) {
    FUZZ_CHECK(line == 0 || fuzz::EncodableLine(line));
    if (line != 0) {
      bool seen = false;
      for (uint64_t w : written_lines)
        seen = seen || w == line;
      FUZZ_CHECK(seen);
    }
  }
  if (cpu.has_midr)
    FUZZ_CHECK(cpu.midr <= UINT32_MAX);
  // A CPU with no files at all is unknown, never guessed.
  jf_sysfs_cpu absent;
  jf_sysfs_read_cpu(7, &absent);
  FUZZ_CHECK(absent.l1i_line == 0 && absent.l1d_line == 0 && !absent.has_midr);

  {
    auto text_of = [&](size_t i, bool words, jf_cpuset *out) {
      bool present = i < pieces.size() && pieces[i] != "-" && pieces[i].size() < 4096;
      if (!present)
        return false;
      return words ? jf_cpuwords_parse(pieces[i].data(), pieces[i].size(), out)
                   : jf_cpulist_parse(pieces[i].data(), pieces[i].size(), out);
    };
    jf_cpuset related, cluster, siblings, domain;
    bool has_related = text_of(kRelated, true, &related);
    bool has_cluster = text_of(kCluster, false, &cluster);
    bool has_siblings = !has_cluster && text_of(kSiblings, false, &siblings);
    bool got = jf_sysfs_read_domain(0, &domain);
    if (!got) {
      FUZZ_CHECK(jf_cpuset_count(&domain) == 0);
    } else {
      FUZZ_CHECK(jf_cpuset_has(&domain, 0));
      FUZZ_CHECK(has_related || has_cluster || has_siblings);
      for (unsigned c = 0; c < JF_MAX_CPUS; c++) {
        if (!jf_cpuset_has(&domain, c))
          continue;
        if (has_related)
          FUZZ_CHECK(jf_cpuset_has(&related, c));
        if (has_cluster)
          FUZZ_CHECK(jf_cpuset_has(&cluster, c));
        if (has_siblings)
          FUZZ_CHECK(jf_cpuset_has(&siblings, c));
      }
    }
    jf_cpuset none;
    FUZZ_CHECK(!jf_sysfs_read_domain(7, &none) && jf_cpuset_count(&none) == 0);
  }

  for (size_t i = 0; i < 2; i++) {
    jf_cpuset from_file, from_text;
    bool file_ok = jf_sysfs_read_cpulist(kFiles[i].c_str(), &from_file);
    bool present = i < pieces.size() && pieces[i] != "-";
    // Files of 4 KiB or more are refused rather than parsed in part.
    bool text_ok = present && pieces[i].size() < 4096 &&
                   jf_cpulist_parse(pieces[i].data(), pieces[i].size(), &from_text);
    FUZZ_CHECK(file_ok == text_ok);
    if (file_ok)
      for (unsigned w = 0; w < JF_MAX_CPUS / 64; w++)
        FUZZ_CHECK(from_file.bits[w] == from_text.bits[w]);
    else
      FUZZ_CHECK(jf_cpuset_count(&from_file) == 0);
  }
  // Whatever the files held, every descriptor was closed once and never
  // read after that.
  FUZZ_CHECK(fakefs::TakeProblems().empty());
  return 0;
}
