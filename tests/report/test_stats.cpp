#include <catch2/catch.hpp>

#include <algorithm>
#include <random>

#include "report/stats.h"

using namespace mg;

TEST_CASE("quantile_sorted interpolates linearly like numpy") {
  const std::vector<double> v = {1, 2, 4, 8};
  CHECK(quantile_sorted(v, 0.0) == 1);
  CHECK(quantile_sorted(v, 1.0) == 8);
  CHECK(quantile_sorted(v, 0.5) == Approx(3.0));    // position 1.5
  CHECK(quantile_sorted(v, 0.05) == Approx(1.15));  // position 0.15: 1 + 0.15 * (2 - 1)
  CHECK(quantile_sorted(v, 0.95) == Approx(7.4));   // position 2.85: 4 + 0.85 * (8 - 4)
  CHECK(quantile_sorted({}, 0.5) == 0);
  CHECK(quantile_sorted({3.5}, 0.95) == 3.5);
}

TEST_CASE("median CI ranks follow the binomial order-statistic rule") {
  // References: scipy.stats.binom, the largest lo with 2 * binom.cdf(lo - 1, n, 0.5) <= 0.05.
  CHECK(median_ci95_ranks(1) == std::pair<int64_t, int64_t>{1, 1});
  CHECK(median_ci95_ranks(5) == std::pair<int64_t, int64_t>{1, 5});  // too few: min..max (93.75%)
  CHECK(median_ci95_ranks(6) == std::pair<int64_t, int64_t>{1, 6});
  CHECK(median_ci95_ranks(10) == std::pair<int64_t, int64_t>{2, 9});
  CHECK(median_ci95_ranks(20) == std::pair<int64_t, int64_t>{6, 15});
  CHECK(median_ci95_ranks(100) == std::pair<int64_t, int64_t>{40, 61});
  const auto big = median_ci95_ranks(100000);  // stays finite in log space; ~ n/2 -/+ 1.96 sqrt(n)/2
  CHECK(big.first == Approx(50000 - 310).margin(3));
  CHECK(big.second == 100001 - big.first);
}

TEST_CASE("step statistics match hand-computed values") {
  // sorted: 10 11 12 13 14 15 30
  const StepStats s = compute_step_stats({10, 12, 11, 13, 15, 14, 30});
  CHECK(s.samples == 7);
  CHECK(s.median_s == Approx(13));
  CHECK(s.mean_s == Approx(15));
  CHECK(s.stddev_s == Approx(std::sqrt(280.0 / 6)));  // squared deviations 25+16+9+4+1+0+225
  CHECK(s.p5_s == Approx(10.3));                      // position 0.3
  CHECK(s.p95_s == Approx(25.5));                     // position 5.7: 15 + 0.7 * 15
  CHECK(s.ci95_lo_s == 10);                           // n = 7: ranks 1 and 7
  CHECK(s.ci95_hi_s == 30);
  CHECK(s.ci95_s == Approx(17));                      // max(13 - 10, 30 - 13)
  CHECK(s.jitter_s == Approx(1.4826 * 2));            // |x - 13| = 3 2 1 0 1 2 17, median 2
}

TEST_CASE("step statistics of even-sized, single and empty samples") {
  const StepStats s = compute_step_stats({4, 1, 3, 2, 6, 5, 8, 7, 10, 9});
  CHECK(s.median_s == Approx(5.5));
  CHECK(s.ci95_lo_s == 2);  // n = 10: ranks 2 and 9
  CHECK(s.ci95_hi_s == 9);
  CHECK(s.ci95_s == Approx(3.5));
  CHECK(s.jitter_s == Approx(1.4826 * 2.5));  // |x - 5.5| = .5 .5 1.5 1.5 2.5 2.5 3.5 3.5 4.5 4.5

  const StepStats one = compute_step_stats({0.25});
  CHECK(one.median_s == 0.25);
  CHECK(one.stddev_s == 0);
  CHECK(one.ci95_lo_s == 0.25);
  CHECK(one.ci95_hi_s == 0.25);

  const StepStats none = compute_step_stats({});
  CHECK(none.samples == 0);
  CHECK(none.median_s == 0);
}

TEST_CASE("the median CI covers the true median at least 95% of the time") {
  // Exponential step times (skewed like real ones); true median = ln 2. Coverage at n = 20 is 95.86% by
  // construction; 4000 trials put the estimate within about +-0.7% of that.
  std::mt19937_64 rng(42);
  std::exponential_distribution<double> expo(1.0);
  for (int n : {20, 31}) {
    int covered = 0;
    const int trials = 4000;
    for (int t = 0; t < trials; ++t) {
      std::vector<double> v(n);
      for (double& x : v) x = expo(rng);
      const StepStats s = compute_step_stats(v);
      covered += s.ci95_lo_s <= std::log(2.0) && std::log(2.0) <= s.ci95_hi_s;
    }
    INFO("n = " << n << ", covered " << covered << " of " << trials);
    CHECK(covered >= 0.94 * trials);
    CHECK(covered <= 0.985 * trials);  // order statistics are not so conservative that the CI is useless
  }
}
