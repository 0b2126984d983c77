// Turns the fake filesystem's misuse reports into GoogleTest failures of
// the test that caused them. Linked beside fake_fs.cc by every GoogleTest
// binary that uses the fake.
#include <gtest/gtest.h>

#include "fake_fs.h"

namespace fakefs
{
void ExpectNoMisuse()
{
  for (const std::string &problem : TakeProblems())
    ADD_FAILURE() << problem;
}
} // namespace fakefs

namespace
{
// Runs after the test's TearDown, while the test is still the current one,
// so the failure is recorded against it.
class MisuseCheck : public ::testing::EmptyTestEventListener
{
  void OnTestEnd(const ::testing::TestInfo &) override
  {
    fakefs::ExpectNoMisuse();
  }
};

// Before main(): the check goes in front of the default printer, so the
// printer reports the test as failed with the problem above it.
const bool installed = [] {
  ::testing::TestEventListeners &listeners = ::testing::UnitTest::GetInstance()->listeners();
  ::testing::TestEventListener *printer = listeners.Release(listeners.default_result_printer());
  listeners.Append(new MisuseCheck);
  if (printer)
    listeners.Append(printer);
  return true;
}();
} // namespace
