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
#ifndef JITFLUSH_TESTS_CLI_GOLDEN_COMPARE_H
#define JITFLUSH_TESTS_CLI_GOLDEN_COMPARE_H

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <map>
#include <sstream>
#include <string>
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

} // namespace jfi_test

#endif
