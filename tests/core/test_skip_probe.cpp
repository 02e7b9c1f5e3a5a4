// Hidden cases for `cli: skip_status`, which runs them alone to see the exit status MG_SKIP gives a test binary
// (tests/support/skip.h, tests/catch_main.cpp); ctest never runs them as tests of their own.
#include <catch2/catch.hpp>

#include "support/skip.h"

TEST_CASE("skip probe: a case that cannot run here", "[.skip-probe]") { MG_SKIP("the probe always skips"); }

TEST_CASE("skip probe: a case that runs", "[.pass-probe]") { CHECK(1 + 1 == 2); }

TEST_CASE("skip probe: a check fails before the case skips", "[.fail-then-skip-probe]") {
  CHECK(1 + 1 == 3);
  MG_SKIP("a failed check still counts");
}
