#include <catch2/catch.hpp>

#include <algorithm>
#include <random>

#include "stats/step_stats.h"

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

TEST_CASE("Student t quantiles: table and large-dof expansion") {
  // References: scipy.stats.t.ppf(0.975, dof).
  CHECK(student_t975(1) == Approx(12.7062).epsilon(1e-4));
  CHECK(student_t975(4) == Approx(2.7764).epsilon(1e-4));
  CHECK(student_t975(30) == Approx(2.0423).epsilon(1e-4));
  CHECK(student_t975(31) == Approx(2.0395).epsilon(1e-4));
  CHECK(student_t975(40) == Approx(2.0211).epsilon(1e-4));
  CHECK(student_t975(120) == Approx(1.9799).epsilon(1e-4));
  CHECK(student_t975(100000) == Approx(1.9600).epsilon(1e-4));
  CHECK_THROWS(student_t975(0));
}

TEST_CASE("pooled runs: the CI of the median comes from the runs' medians") {
  // Runs {10,11,12} {12,13,14} {14,15,16}: medians 11, 13, 15; pooled median 13; the pooled order-statistic
  // interval (n = 9, ranks 2 and 8) is [11, 15]. In log space: sd(ln 11, ln 13, ln 15) = 0.155232, so
  // h = t_{0.975,2} * 0.155232 / sqrt(3) = 0.385617 and the interval is 13 * exp(-+h) = [8.8404, 19.1168].
  const StepStats s = compute_step_stats({10, 11, 12, 12, 13, 14, 14, 15, 16}, {3, 3, 3});
  CHECK(s.process_runs == 3);
  CHECK(s.ci95_method == "between-runs");
  CHECK(s.median_s == Approx(13));
  CHECK(s.ci95_lo_s == Approx(8.8404).epsilon(1e-4));
  CHECK(s.ci95_hi_s == Approx(19.1168).epsilon(1e-4));
  CHECK(s.ci95_s == Approx(19.1168 - 13).epsilon(1e-4));

  // Two wildly different runs: t_{0.975,1} = 12.7 makes the interval wide, but a time stays positive.
  const StepStats two = compute_step_stats({1, 1, 1, 9, 9, 9}, {3, 3});
  CHECK(two.ci95_lo_s > 0);
  CHECK(two.ci95_hi_s > 9);

  // Runs that agree exactly add nothing: the interval is the pooled order-statistic one.
  const StepStats same = compute_step_stats({1, 2, 3, 1, 2, 3}, {3, 3});
  CHECK(same.ci95_method == "between-runs");
  CHECK(same.ci95_lo_s == 1);
  CHECK(same.ci95_hi_s == 3);

  const StepStats single = compute_step_stats({1, 2, 3}, {3});
  CHECK(single.process_runs == 1);
  CHECK(single.ci95_method == "order-statistic");

  CHECK_THROWS(compute_step_stats({1, 2, 3}, {2, 2}));  // counts must cover the samples exactly
  CHECK_THROWS(compute_step_stats({1, 2, 3}, {3, 0}));
}

TEST_CASE("with a per-process effect, only the between-runs CI keeps its coverage") {
  // Each process run shifts all its steps by a random factor far larger than the step-to-step noise
  // (docs/statistics.md), so an order-statistic CI over the pooled steps is much too narrow. The target is the
  // median a re-run measures (1.0 here: shifts and noise are symmetric in log space).
  std::mt19937_64 rng(7);
  std::normal_distribution<double> normal(0.0, 1.0);
  const int trials = 2000, runs = 5, steps = 20;
  int between = 0, order_only = 0;
  for (int t = 0; t < trials; ++t) {
    std::vector<double> v;
    for (int r = 0; r < runs; ++r) {
      const double shift = std::exp(0.03 * normal(rng));
      for (int i = 0; i < steps; ++i) v.push_back(shift * std::exp(0.01 * normal(rng)));
    }
    const StepStats pooled = compute_step_stats(v, std::vector<int64_t>(runs, steps));
    const StepStats naive = compute_step_stats(v);
    between += pooled.ci95_lo_s <= 1.0 && 1.0 <= pooled.ci95_hi_s;
    order_only += naive.ci95_lo_s <= 1.0 && 1.0 <= naive.ci95_hi_s;
  }
  INFO("between-runs covered " << between << ", order statistics alone " << order_only << " of " << trials);
  CHECK(between >= 0.93 * trials);
  CHECK(order_only < 0.6 * trials);
}
