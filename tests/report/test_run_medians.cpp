#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "report/run_medians.h"
#include "support/result_fixture.h"

using namespace mg;

namespace {

// Two-sided signed-rank p by brute force over all 2^n sign patterns: the definition, independent of the DP.
double brute_signed_rank_p(const std::vector<double>& d) {
  const int n = static_cast<int>(d.size());
  std::vector<int> rank(n);
  for (int i = 0; i < n; ++i) {
    rank[i] = 1;
    for (int j = 0; j < n; ++j) rank[i] += std::fabs(d[j]) < std::fabs(d[i]);
  }
  int w = 0;
  for (int i = 0; i < n; ++i) w += d[i] > 0 ? rank[i] : 0;
  const int top = n * (n + 1) / 2, lo = std::min(w, top - w);
  int at_most = 0;
  for (int mask = 0; mask < (1 << n); ++mask) {
    int s = 0;
    for (int i = 0; i < n; ++i) s += (mask >> i & 1) ? rank[i] : 0;
    at_most += s <= lo;
  }
  return std::min(1.0, 2.0 * at_most / (1 << n));
}

}  // namespace

TEST_CASE("run medians: a --runs result splits into its runs") {
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

TEST_CASE("run medians: smallest reachable p-values of the exact tests") {
  CHECK(smallest_two_sided_p(3, 3) == Approx(0.1));
  CHECK(smallest_two_sided_p(5, 5) == Approx(2.0 / 252));
  CHECK(smallest_two_sided_p(1, 10) == Approx(2.0 / 11));
  CHECK(smallest_signed_rank_p(5) == Approx(0.0625));
  CHECK(smallest_signed_rank_p(10) == Approx(2.0 / 1024));
}

TEST_CASE("run medians: Hodges-Lehmann ratio and Moses interval") {
  // log differences log(n/b) of base {1, 2} and next {2, 4}: {log 1, log 2, log 2, log 4}: median log 2.
  CHECK(hodges_lehmann_ratio({1, 2}, {2, 4}).estimate == Approx(2.0));
  // 5 vs 5: P(U <= 2) = 4/252 <= 2.5% < P(U <= 3) = 7/252 (the tabled critical value 2), so the interval is
  // [D_(3), D_(23)] of the 25 sorted differences, covering 1 - 8/252.
  const std::vector<double> b = {1.0, 1.1, 1.2, 1.3, 1.4}, n = {1.5, 1.7, 1.9, 2.1, 2.3};
  std::vector<double> d;
  for (double x : b)
    for (double y : n) d.push_back(std::log(y / x));
  std::sort(d.begin(), d.end());
  const RatioInterval r = hodges_lehmann_ratio(b, n);
  CHECK(r.lo == Approx(std::exp(d[2])));
  CHECK(r.hi == Approx(std::exp(d[22])));
  CHECK(r.estimate == Approx(std::exp(d[12])));
  CHECK(r.coverage == Approx(1 - 8.0 / 252));
  // 2 vs 2: no pair of order statistics reaches 95%; the full range, with the coverage it has.
  const RatioInterval few = hodges_lehmann_ratio({1, 2}, {3, 4});
  CHECK(few.lo == Approx(1.5));
  CHECK(few.hi == Approx(4.0));
  CHECK(few.coverage == Approx(1 - 2.0 / 6));
}

TEST_CASE("run medians: Wilcoxon signed-rank against the definition") {
  for (const std::vector<double>& d : std::vector<std::vector<double>>{{0.1, -0.2, 0.3, 0.4, 0.5, -0.6, 0.7, 0.8},
                                                                        {0.3, 0.1, 0.2, 0.4, 0.5, 0.6},
                                                                        {-0.05, 0.01, -0.02, 0.03, -0.04, 0.06, -0.07}}) {
    const SignedRankResult r = wilcoxon_signed_rank(d);
    CHECK(r.exact);
    CHECK(r.p_value == Approx(brute_signed_rank_p(d)));
  }
  CHECK(wilcoxon_signed_rank({0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8}).p_value == Approx(2.0 / 256));
  // Ties and zeros: normal approximation, and no evidence from all-zero differences.
  CHECK_FALSE(wilcoxon_signed_rank({0.1, 0.1, -0.1, 0.0}).exact);
  CHECK(wilcoxon_signed_rank({0.0, 0.0}).p_value == 1.0);
}

TEST_CASE("run medians: paired ratio and noise floor") {
  // NEW is exactly 10% slower in every pair: estimate 1/1.1 and an interval of width 0, whatever the drift.
  const std::vector<double> b = {100, 150, 80, 120, 90, 200}, n = {100 / 1.1, 150 / 1.1, 80 / 1.1, 120 / 1.1, 90 / 1.1, 200 / 1.1};
  const RatioInterval r = paired_ratio(b, n);
  CHECK(r.estimate == Approx(1 / 1.1));
  CHECK(r.lo == Approx(1 / 1.1));
  CHECK(r.hi == Approx(1 / 1.1));
  const NoiseFloor f = paired_noise_floor(b, n, 0.05);
  CHECK(f.known);
  CHECK(f.test_can_reject);
  CHECK(f.run_spread == Approx(0).margin(1e-12));
  CHECK(f.min_detectable == Approx(0).margin(1e-12));
  // Five pairs cannot reach p < 0.05 (2/32): no slowdown is detectable.
  CHECK(std::isinf(paired_noise_floor({1, 2, 3, 4, 5}, {1.1, 2, 3.2, 4, 5.1}, 0.05).min_detectable));
}

TEST_CASE("run medians: the unpaired noise floor follows its formula") {
  // log spreads: within each side sd of logs; here both sides are {e^-s, 1, e^s}: pooled sd s exactly.
  const double s = 0.05;
  const std::vector<double> side = {std::exp(-s), 1.0, std::exp(s)};
  const NoiseFloor f = noise_floor(side, side, 0.2);
  REQUIRE(f.known);
  CHECK(f.run_spread == Approx(s));
  const double se = s * std::sqrt(2.0 / 3);
  CHECK(f.a_vs_a_band == Approx(std::exp(student_t_quantile(0.975, 4) * se) - 1));
  CHECK(f.test_can_reject);  // 3 vs 3: smallest p 0.1 < alpha 0.2
  CHECK(f.min_detectable ==
        Approx(1 - std::exp(-(student_t_quantile(0.9, 4) + student_t_quantile(0.8, 4)) * se / std::sqrt(3 / M_PI))));
  CHECK_FALSE(noise_floor({1.0}, {1.0}, 0.05).known);
  // The t quantile: 2.776 at 4 dof (tables), 1.96 far out.
  CHECK(student_t_quantile(0.975, 4) == Approx(2.776).epsilon(0.01));
  CHECK(student_t_quantile(0.975, 1000) == Approx(1.962).epsilon(0.001));
}
