#include <catch2/catch.hpp>

#include <vector>

#include "stats/run_medians.h"
#include "support/result_fixture.h"

using namespace mg;

TEST_CASE("a --runs result splits into its runs") {
  DeviceCountResult r;
  r.samples = test::make_samples(6, 0.1, 0.0, 1);
  for (int i = 3; i < 6; ++i) r.samples[i].total = 0.2;
  CHECK(run_median_step_times(r).at(0) == Approx(0.15));  // one run: the median of all six
  r.run_samples = {3, 3};
  const std::vector<double> m = run_median_step_times(r);
  REQUIRE(m.size() == 2);
  CHECK(m[0] == Approx(0.1));
  CHECK(m[1] == Approx(0.2));
  CHECK(run_means(r, &StepBreakdown::total)[1] == Approx(0.2));
}
