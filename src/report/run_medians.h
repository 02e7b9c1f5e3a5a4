// Statistics over process runs, the unit `mgbench compare` judges: steps of one process share its placement and
// its neighbours, so they are not independent draws of what a re-run measures (results/validity/). Each run
// contributes one number, its median step time, and the test, the interval of the change and the gate's noise
// floor are computed from those run medians.
#pragma once
#include <cstdint>
#include <vector>

#include "result/run_result.h"

namespace mg {

// Median step time of each process run of an entry, split by run_samples (a single run when it is empty).
std::vector<double> run_median_step_times(const DeviceCountResult& r);

// Mean of field over the steps of each process run, split like run_median_step_times.
std::vector<double> run_means(const DeviceCountResult& r, double StepBreakdown::*field);

// Smallest two-sided p-value an exact Mann-Whitney test can give with m and n values: 2 / C(m+n, m), at most 1.
// When it is not below alpha no difference, however large, can be significant.
double smallest_two_sided_p(int64_t m, int64_t n);

struct RatioInterval {
  double estimate = 0;  // exp(Hodges-Lehmann shift): the median over all pairs (b, n) of n / b
  double lo = 0, hi = 0;
  double coverage = 0;  // actual coverage of [lo, hi] (the exact U distribution is discrete)
};
// NEW / BASE of positive values (throughputs of runs): the Hodges-Lehmann estimate of the shift of the logs
// and Moses' distribution-free interval, [D_(c+1), D_(mn-c)] of the sorted pairwise log differences with c the
// largest count whose exact null probability P(U <= c) stays <= (1 - confidence) / 2. When even c = 0 exceeds
// it (too few runs) the interval is the full range of pairwise ratios and coverage says what it holds.
// Empty input -> all zero.
RatioInterval hodges_lehmann_ratio(const std::vector<double>& base, const std::vector<double>& next,
                                   double confidence = 0.95);

// What the gate can and cannot see at this number of runs, from the spread of runs within each side (the same
// code run again: what an A-vs-A comparison varies by).
struct NoiseFloor {
  bool known = false;         // false with fewer than 3 runs in all (no within-side spread)
  double run_spread = 0;      // pooled sd of log run throughput within the sides (~ relative sd of one run)
  double a_vs_a_band = 0;     // A vs A at these run counts: the ratio stays within 1 +- this, 95% of the time
  double min_detectable = 0;  // smallest slowdown (fraction) found with 80% power at alpha; infinity if none can
  bool test_can_reject = false;  // smallest_two_sided_p(m, n) < alpha
};
// s = pooled sd of the log throughputs (m + n - 2 dof), se = s * sqrt(1/m + 1/n).
// a_vs_a_band = exp(t_{0.975,dof} * se) - 1.
// min_detectable = 1 - exp(-(t_{1-alpha/2,dof} + t_{0.80,dof}) * se / sqrt(3/pi)): the normal-theory sample
// size formula, widened by the Mann-Whitney test's asymptotic efficiency (3/pi) relative to the t test.
NoiseFloor noise_floor(const std::vector<double>& base, const std::vector<double>& next, double alpha);

// Paired runs (interleaved A/B: BASE run i and NEW run i were made back to back, so a slow period of a shared
// machine hits both). The evidence is the per-pair log ratio d_i = log(next_i / base_i), which cancels drift
// slower than one pair.
struct SignedRankResult {
  double w_plus = 0;   // sum of the ranks of |d_i| over positive d_i
  double p_value = 1;  // two-sided
  bool exact = false;
};
// Wilcoxon signed-rank test of d_i against 0: exact null distribution (all 2^n sign patterns) when no |d_i| tie
// and none is 0 and n <= 60; otherwise zeros dropped and the normal approximation with tie correction.
SignedRankResult wilcoxon_signed_rank(const std::vector<double>& d);
// 2 / 2^n: the smallest two-sided p the exact test gives with n pairs.
double smallest_signed_rank_p(int64_t n);
// Hodges-Lehmann estimate of the paired ratio (median of the Walsh averages (d_i + d_j) / 2, i <= j) and the
// matching distribution-free interval from the exact signed-rank distribution. Needs base.size() == next.size().
RatioInterval paired_ratio(const std::vector<double>& base, const std::vector<double>& next, double confidence = 0.95);
// As noise_floor, from the sd of the d_i (n - 1 dof), se = sd / sqrt(n).
NoiseFloor paired_noise_floor(const std::vector<double>& base, const std::vector<double>& next, double alpha);

// Quantile p in (0, 1) of Student's t with dof >= 1 (normal quantile plus the Cornish-Fisher terms; within
// about 1% at dof >= 3, used only for the floor estimate above).
double student_t_quantile(double p, int64_t dof);

}  // namespace mg
