// omp_team: ThreadSanitizer builds run OpenMP teams at one thread (src/core/omp_team.h says why), and their tests
// get OMP_NUM_THREADS=1 from ctest; other builds run the teams they ask for.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>

#include "core/omp_team.h"

using namespace mg;

TEST_CASE("OpenMP teams: one thread in a ThreadSanitizer build, as asked in any other") {
#if defined(MG_TEST_TSAN_BUILD)
  CHECK(kSerialOpenMP);
  CHECK(omp_team(8) == 1);
  const char* env = std::getenv("OMP_NUM_THREADS");
  CHECK(std::string(env ? env : "unset") == "1");
#else
  CHECK_FALSE(kSerialOpenMP);
  CHECK(omp_team(8) == 8);
  CHECK(omp_team(1) == 1);
#endif
}
