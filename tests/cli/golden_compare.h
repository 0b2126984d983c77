// Field-by-field comparison of jitflush-info --json output with an
// expectation file (tests/cli/golden/*.json, tests/cli/fixtures/*/expected.json).
//
// Expectation format:
//   "ncpus": N                      number of records in "cpus"
//   "cpus": [ {"cpu": 0, ...}, {"cpus": "4-7", ...} ]
//                                   fields every listed CPU must have, with
//                                   exactly these values (null included);
//                                   "cpus" is a cpulist for a run of CPUs
//   "global": { ... }               fields of "global"
//   "also": { "verdict.kind": "heterogeneous", ... }
//                                   any other value, by dotted path
//   "exit_status": 0                the program's exit status
// Keys starting with "_" are comments.
//
// Regeneration (ci/gen/goldens.sh, or JITFLUSH_REGEN_GOLDENS=1 in the
// test's environment): RegenerateExpectation keeps an expectation's shape
// (the same keys are checked, comments and other keys stay) and takes
// every checked value from a run's output; FormatExpectation writes it.
#ifndef JITFLUSH_TESTS_CLI_GOLDEN_COMPARE_H
#define JITFLUSH_TESTS_CLI_GOLDEN_COMPARE_H

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace jfi_test
{

using nlohmann::json;

// "0-3,6" -> {0,1,2,3,6}. A malformed list fails the test.
inline std::vector<int> ParseCpulist(const std::string &text)
{
  std::vector<int> cpus;
  std::stringstream ss(text);
  std::string part;
  while (std::getline(ss, part, ',')) {
    size_t dash = part.find('-');
    int first = std::stoi(part.substr(0, dash));
    int last = dash == std::string::npos ? first : std::stoi(part.substr(dash + 1));
    for (int c = first; c <= last; c++)
      cpus.push_back(c);
  }
  return cpus;
}

inline const json *AtPath(const json &doc, const std::string &path)
{
  const json *node = &doc;
  std::stringstream ss(path);
  std::string key;
  while (std::getline(ss, key, '.')) {
    if (!node->is_object() || !node->contains(key))
      return nullptr;
    node = &(*node)[key];
  }
  return node;
}

// Compares ACTUAL (the program's JSON) with EXPECTED; WHAT names the case
// in failure messages.
inline void CompareWithExpectation(const json &actual, const json &expected,
                                   const std::string &what)
{
  ASSERT_TRUE(actual.contains("cpus") && actual["cpus"].is_array()) << what << ": no cpus array";
  std::map<int, const json *> by_cpu;
  for (const json &rec : actual["cpus"])
    by_cpu[rec.at("cpu").get<int>()] = &rec;

  if (expected.contains("ncpus")) {
    EXPECT_EQ(actual["cpus"].size(), expected["ncpus"].get<size_t>())
        << what << ": number of CPU records";
  }

  for (const json &want : expected.value("cpus", json::array())) {
    std::vector<int> cpus = want.contains("cpus") ? ParseCpulist(want["cpus"].get<std::string>())
                                                  : std::vector<int>{want.at("cpu").get<int>()};
    for (int cpu : cpus) {
      auto it = by_cpu.find(cpu);
      if (it == by_cpu.end()) {
        ADD_FAILURE() << what << ": CPU " << cpu << " missing from the output";
        continue;
      }
      for (auto field = want.begin(); field != want.end(); ++field) {
        if (field.key() == "cpus" || field.key()[0] == '_')
          continue;
        const json &got = *it->second;
        EXPECT_TRUE(got.contains(field.key()))
            << what << ": CPU " << cpu << " has no key " << field.key();
        if (got.contains(field.key())) {
          EXPECT_EQ(got[field.key()], field.value())
              << what << ": CPU " << cpu << " " << field.key() << ": got " << got[field.key()]
              << ", expected " << field.value();
        }
      }
    }
  }
  if (expected.contains("global")) {
    for (auto field = expected["global"].begin(); field != expected["global"].end(); ++field) {
      if (field.key()[0] == '_')
        continue;
      const json *got = AtPath(actual, "global." + field.key());
      ASSERT_NE(got, nullptr) << what << ": global has no key " << field.key();
      EXPECT_EQ(*got, field.value()) << what << ": global." << field.key() << ": got " << *got
                                     << ", expected " << field.value();
    }
  }
  const json also = expected.value("also", json::object());
  for (auto field = also.begin(); field != also.end(); ++field) {
    const json *got = AtPath(actual, field.key());
    if (!got) {
      ADD_FAILURE() << what << ": no value at " << field.key();
      continue;
    }
    EXPECT_EQ(*got, field.value())
        << what << ": " << field.key() << ": got " << *got << ", expected " << field.value();
  }
}

// ---- Regeneration ----------------------------------------------------------

using ordered_json = nlohmann::ordered_json;

inline bool Regenerating()
{
  const char *v = std::getenv("JITFLUSH_REGEN_GOLDENS");
  return v && std::strcmp(v, "1") == 0;
}

// {0,1,2,3,6} -> "0-3,6".
inline std::string FormatCpulist(const std::vector<int> &cpus)
{
  std::string out;
  for (size_t i = 0; i < cpus.size();) {
    size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1)
      j++;
    out += (out.empty() ? "" : ",") + std::to_string(cpus[i]);
    if (j > i)
      out += "-" + std::to_string(cpus[j]);
    i = j + 1;
  }
  return out;
}

inline ordered_json ToOrdered(const json &value)
{
  return ordered_json::parse(value.dump());
}

// The values of FIELDS ("_" keys kept as they are) read from ACTUAL at
// PREFIX + key; a key the output no longer has is dropped.
inline ordered_json RegenerateFields(const json &actual, const std::string &prefix,
                                     const ordered_json &fields)
{
  ordered_json out = ordered_json::object();
  for (auto field = fields.begin(); field != fields.end(); ++field) {
    if (field.key()[0] == '_') {
      out[field.key()] = field.value();
      continue;
    }
    if (const json *got = AtPath(actual, prefix + field.key()))
      out[field.key()] = ToOrdered(*got);
  }
  return out;
}

// One expected record ("cpu": N or "cpus": LIST) with its checked fields
// from the output; a run of CPUs whose values now differ becomes several
// runs that agree, the first keeping the record's comments.
inline void RegenerateCpuRecord(const std::map<int, const json *> &by_cpu, const ordered_json &want,
                                ordered_json *out)
{
  const bool run = want.contains("cpus");
  std::vector<int> cpus = run ? ParseCpulist(want["cpus"].get<std::string>())
                              : std::vector<int>{want.at("cpu").get<int>()};
  std::vector<std::pair<std::vector<int>, ordered_json>> groups;
  for (int cpu : cpus) {
    auto it = by_cpu.find(cpu);
    if (it == by_cpu.end())
      continue; // the output has no such CPU any more
    ordered_json values = ordered_json::object();
    for (auto field = want.begin(); field != want.end(); ++field)
      if (field.key() != "cpu" && field.key() != "cpus" && field.key()[0] != '_' &&
          it->second->contains(field.key()))
        values[field.key()] = ToOrdered((*it->second)[field.key()]);
    if (!groups.empty() && groups.back().first.back() == cpu - 1 && groups.back().second == values)
      groups.back().first.push_back(cpu);
    else
      groups.push_back({{cpu}, values});
  }
  for (size_t g = 0; g < groups.size(); g++) {
    ordered_json rec = ordered_json::object();
    for (auto field = want.begin(); field != want.end(); ++field) {
      if (field.key() == "cpu")
        rec["cpu"] = groups[g].first.front();
      else if (field.key() == "cpus")
        rec["cpus"] = FormatCpulist(groups[g].first);
      else if (field.key()[0] == '_' && g == 0)
        rec[field.key()] = field.value();
      else if (groups[g].second.contains(field.key()))
        rec[field.key()] = groups[g].second[field.key()];
    }
    out->push_back(rec);
  }
}

// EXPECTED with every checked value taken from a run that printed ACTUAL
// and exited with STATUS.
inline ordered_json RegenerateExpectation(const json &actual, int status,
                                          const ordered_json &expected)
{
  std::map<int, const json *> by_cpu;
  if (actual.contains("cpus"))
    for (const json &rec : actual["cpus"])
      by_cpu[rec.at("cpu").get<int>()] = &rec;
  ordered_json out = ordered_json::object();
  for (auto it = expected.begin(); it != expected.end(); ++it) {
    const std::string &key = it.key();
    if (key == "exit_status") {
      out[key] = status;
    } else if (key == "ncpus") {
      out[key] = by_cpu.size();
    } else if (key == "cpus") {
      out[key] = ordered_json::array();
      for (const ordered_json &want : it.value())
        RegenerateCpuRecord(by_cpu, want, &out[key]);
    } else if (key == "global") {
      out[key] = RegenerateFields(actual, "global.", it.value());
    } else if (key == "also") {
      out[key] = RegenerateFields(actual, "", it.value());
    } else {
      out[key] = it.value(); // comments, the fixture's config
    }
  }
  if (!expected.contains("exit_status") && status != 0)
    out["exit_status"] = status;
  return out;
}

// The expectation a new config starts from: the fields the hand-written
// ones check, for every CPU, and a comment that asks for them to be checked.
inline ordered_json NewExpectation(size_t ncpus)
{
  ordered_json cpu = {{"cpus", "0-" + std::to_string(ncpus - 1)}};
  for (const char *key : {"online", "midr", "core", "ctr_el0", "iline", "dline", "idc", "dic",
                          "sysfs_l1i_line", "sysfs_l1d_line", "source", "l1ip"})
    cpu[key] = nullptr;
  ordered_json global = ordered_json::object();
  for (const char *key : {"iline", "dline", "idc", "dic", "heterogeneous", "complete"})
    global[key] = nullptr;
  ordered_json also = ordered_json::object();
  for (const char *key :
       {"verdict.kind", "verdict.stride_safe", "verdict.strategies.first_core_cache.safety",
        "verdict.strategies.per_call_read.safety", "verdict.strategies.fixed_64.safety"})
    also[key] = nullptr;
  return {{"_facts", "Written by ci/gen/goldens.sh from the rig's output: check every value "
                     "against the config and docs/BACKGROUND.md#architecture-facts, then say "
                     "here where each one comes from."},
          {"exit_status", 0},
          {"ncpus", ncpus},
          {"cpus", ordered_json::array({cpu})},
          {"global", global},
          {"also", also}};
}

// OBJ on one line starting at column COLUMN, broken before a member that
// would end past column 100 and continued at column INDENT.
inline std::string WrappedObject(const ordered_json &obj, size_t column, size_t indent)
{
  std::string s = "{";
  size_t at = column + 1;
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    std::string member = ordered_json(it.key()).dump() + ": " + it.value().dump();
    if (it != obj.begin()) {
      s += ",";
      at += 1;
      if (at + 1 + member.size() > 100) {
        s += "\n" + std::string(indent, ' ');
        at = indent;
      } else {
        s += " ";
        at += 1;
      }
    }
    s += member;
    at += member.size();
  }
  return s + "}";
}

// The layout of the hand-written files: a member a line, each CPU record
// and "global" wrapped at 100 columns, "also" a path a line.
inline std::string FormatExpectation(const ordered_json &doc)
{
  std::string s = "{\n";
  for (auto it = doc.begin(); it != doc.end(); ++it) {
    const std::string head = "  " + ordered_json(it.key()).dump() + ": ";
    const ordered_json &v = it.value();
    s += head;
    if (v.is_array() && !v.empty()) {
      s += "[\n";
      for (size_t i = 0; i < v.size(); i++)
        s += "    " + (v[i].is_object() ? WrappedObject(v[i], 4, 5) : v[i].dump()) +
             (i + 1 < v.size() ? ",\n" : "\n");
      s += "  ]";
    } else if (v.is_object() && !v.empty() && it.key() == "also") {
      s += "{\n";
      for (auto m = v.begin(); m != v.end(); ++m)
        s += "    " + ordered_json(m.key()).dump() + ": " + m.value().dump() +
             (std::next(m) != v.end() ? ",\n" : "\n");
      s += "  }";
    } else if (v.is_object()) {
      s += WrappedObject(v, head.size(), head.size() + 1);
    } else {
      s += v.dump();
    }
    s += std::next(it) != doc.end() ? ",\n" : "\n";
  }
  return s + "}\n";
}

} // namespace jfi_test

#endif
