// The Catch2 runner of every CPU test binary, with MG_SKIP's exit status (tests/support/skip.h).
#define CATCH_CONFIG_RUNNER
#define CATCH_CONFIG_EXTERNAL_INTERFACES
#include <catch2/catch.hpp>

#include "support/skip.h"

namespace {

int g_cases = 0, g_skipped = 0;

// Counts the cases that ran and those that left through MG_SKIP.
struct SkipCounter : Catch::TestEventListenerBase {
  using TestEventListenerBase::TestEventListenerBase;
  void testCaseStarting(Catch::TestCaseInfo const&) override {
    ++g_cases;
    mg::test::case_skipped = false;
  }
  void testCaseEnded(Catch::TestCaseStats const&) override { g_skipped += mg::test::case_skipped ? 1 : 0; }
};

}  // namespace

CATCH_REGISTER_LISTENER(SkipCounter)

int main(int argc, char* argv[]) {
  const int failed = Catch::Session().run(argc, argv);
  // ctest runs one case per test: that case could not run here, so it neither passed nor failed.
  if (failed == 0 && g_cases > 0 && g_skipped == g_cases) return mg::test::kSkipExitCode;
  return failed;
}
