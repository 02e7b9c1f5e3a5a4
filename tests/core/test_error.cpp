#include <catch2/catch.hpp>

#include <string>

#include "core/error.h"
#include "core/host_info.h"

using namespace mg;

TEST_CASE("check failures name the library, the call, the place and the host in one line") {
  try {
    MG_ENSURE(1 + 1 == 3, "arithmetic is off");
    FAIL("MG_ENSURE did not throw");
  } catch (const UsageError&) {
    FAIL("an internal check is a failed run (Error), not bad input (UsageError)");
  } catch (const Error& e) {
    const std::string m = e.what();
    CHECK(m.find("mgbench call '1 + 1 == 3' failed at ") == 0);
    CHECK(m.find("test_error.cpp:") != std::string::npos);
    CHECK(m.find(" on " + hostname() + ": arithmetic is off") != std::string::npos);
    CHECK(m.find('\n') == std::string::npos);
  }
}

TEST_CASE("library exceptions are wrapped with the call that threw, mgbench's own errors pass through") {
  auto lib_throws = [] { throw std::runtime_error("socket closed"); };
  try {
    MG_CHECK_GLOO(lib_throws());
    FAIL("no throw");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("Gloo call 'lib_throws()' failed at ") == 0);
    CHECK(std::string(e.what()).find("socket closed") != std::string::npos);
  }
  auto ours = [] { throw UsageError("bad option"); };
  try {
    MG_CHECK_GLOO(ours());
    FAIL("no throw");
  } catch (const UsageError& e) {
    CHECK(std::string(e.what()) == "bad option");
  }
}
