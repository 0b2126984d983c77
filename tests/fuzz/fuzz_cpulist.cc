// jf_cpulist_parse (common/cpuset.c) against an independent reading of the
// kernel's cpulist grammar (Documentation/admin-guide/cputopology.rst):
//   list := item (',' item)*  [one trailing '\n']
//   item := cpu | cpu '-' cpu   (first <= last, every cpu < JF_MAX_CPUS)
// Both must accept the same texts and produce the same set; an accepted set
// printed back in canonical form must parse to itself, and
// jf_cpulist_format must print exactly that canonical form.
// Also jf_cpuwords_parse (cpufreq's related_cpus, "4 5 6 7 \n") against its
// own reference grammar:
//   words := cpu (' ' cpu)* [' '] [one trailing '\n']
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_check.h"

extern "C" {
#include "cpuset.h"
}

namespace
{
bool ReferenceParse(const char *text, size_t len, bool out[JF_MAX_CPUS])
{
  for (unsigned i = 0; i < JF_MAX_CPUS; i++)
    out[i] = false;
  if (len > 0 && text[len - 1] == '\n')
    len--;
  if (len == 0)
    return false;
  size_t pos = 0;
  auto number = [&](unsigned *v) {
    size_t start = pos;
    uint64_t value = 0;
    while (pos < len && text[pos] >= '0' && text[pos] <= '9') {
      value = value * 10 + static_cast<unsigned>(text[pos] - '0');
      if (value >= JF_MAX_CPUS)
        return false;
      pos++;
    }
    *v = static_cast<unsigned>(value);
    return pos > start;
  };
  for (;;) {
    unsigned first, last;
    if (!number(&first))
      return false;
    last = first;
    if (pos < len && text[pos] == '-') {
      pos++;
      if (!number(&last) || last < first)
        return false;
    }
    for (unsigned c = first; c <= last; c++)
      out[c] = true;
    if (pos == len)
      return true;
    if (text[pos++] != ',')
      return false;
  }
}

bool ReferenceWords(const char *text, size_t len, bool out[JF_MAX_CPUS])
{
  for (unsigned i = 0; i < JF_MAX_CPUS; i++)
    out[i] = false;
  std::string t(text, len);
  if (!t.empty() && t.back() == '\n')
    t.pop_back();
  if (!t.empty() && t.back() == ' ')
    t.pop_back();
  if (t.empty())
    return false;
  size_t pos = 0;
  for (;;) {
    size_t start = pos;
    uint64_t value = 0;
    while (pos < t.size() && t[pos] >= '0' && t[pos] <= '9') {
      value = value * 10 + static_cast<unsigned>(t[pos] - '0');
      if (value >= JF_MAX_CPUS)
        return false;
      pos++;
    }
    if (pos == start)
      return false;
    out[value] = true;
    if (pos == t.size())
      return true;
    if (t[pos++] != ' ')
      return false;
  }
}

std::string Canonical(const jf_cpuset &set)
{
  std::string s;
  for (unsigned c = 0; c < JF_MAX_CPUS;) {
    if (!jf_cpuset_has(&set, c)) {
      c++;
      continue;
    }
    unsigned last = c;
    while (last + 1 < JF_MAX_CPUS && jf_cpuset_has(&set, last + 1))
      last++;
    if (!s.empty())
      s += ',';
    s += std::to_string(c);
    if (last != c)
      s += '-' + std::to_string(last);
    c = last + 1;
  }
  return s + "\n";
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  const char *text = reinterpret_cast<const char *>(data);
  {
    jf_cpuset words;
    static bool want[JF_MAX_CPUS];
    bool words_ok = jf_cpuwords_parse(text, size, &words);
    FUZZ_CHECK(words_ok == ReferenceWords(text, size, want));
    for (unsigned c = 0; c < JF_MAX_CPUS; c++)
      FUZZ_CHECK(jf_cpuset_has(&words, c) == (words_ok && want[c]));
  }
  jf_cpuset set;
  bool ok = jf_cpulist_parse(text, size, &set);
  static bool expected[JF_MAX_CPUS];
  bool ref_ok = ReferenceParse(text, size, expected);
  FUZZ_CHECK(ok == ref_ok);
  unsigned count = 0;
  for (unsigned c = 0; c < JF_MAX_CPUS; c++) {
    FUZZ_CHECK(jf_cpuset_has(&set, c) == (ok && expected[c]));
    count += expected[c] ? 1 : 0;
  }
  if (!ok) {
    FUZZ_CHECK(jf_cpuset_count(&set) == 0); // "leaves *out empty on error"
    FUZZ_CHECK(jf_cpuset_end(&set) == 0);
    return 0;
  }
  FUZZ_CHECK(count >= 1);
  FUZZ_CHECK(jf_cpuset_count(&set) == count);
  FUZZ_CHECK(jf_cpuset_end(&set) >= 1 && jf_cpuset_end(&set) <= JF_MAX_CPUS);
  FUZZ_CHECK(jf_cpuset_has(&set, jf_cpuset_end(&set) - 1));
  std::string again = Canonical(set);
  static char formatted[8192];
  FUZZ_CHECK(jf_cpulist_format(&set, formatted, sizeof formatted));
  FUZZ_CHECK(again == std::string(formatted) + "\n");
  jf_cpuset round;
  FUZZ_CHECK(jf_cpulist_parse(again.data(), again.size(), &round));
  for (unsigned i = 0; i < JF_MAX_CPUS / 64; i++)
    FUZZ_CHECK(round.bits[i] == set.bits[i]);
  return 0;
}
