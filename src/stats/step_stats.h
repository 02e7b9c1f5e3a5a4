// Step-time statistics: the numbers a user (and `mgbench compare`) trusts about one device count.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

#include "result/run_result.h"

namespace mg {

// Quantile q in [0, 1] of already sorted values by linear interpolation between order statistics (numpy's
// default "linear" method: position q * (n - 1)). Empty input -> 0.
double quantile_sorted(const std::vector<double>& sorted, double q);

// Ranks (1-based, into the sorted sample) of a distribution-free 95% confidence interval of the median:
// [x_(lo), x_(hi)] with hi = n + 1 - lo and lo the largest rank whose binomial(n, 1/2) coverage
// P(lo <= B <= n - lo) is still >= 0.95. With n <= 5 no pair of order statistics reaches 95%
// (min..max covers 1 - 2^(1-n), e.g. 93.75% at n = 5), so the interval is min..max and covers less than claimed.
std::pair<int64_t, int64_t> median_ci95_ranks(int64_t n);

// t_{0.975} of Student's t with dof >= 1 degrees of freedom: the two-sided 95% quantile.
double student_t975(int64_t dof);

// median, mean, sample stddev (n - 1), p5/p95, a 95% CI of the median, and jitter = 1.4826 * MAD (the median
// absolute deviation scaled to estimate a normal stddev, as tf_cnn_benchmarks prints it).
// The CI: with one run, the order-statistic interval above (ci95_method "order-statistic"), which covers
// step-to-step noise only (docs/statistics.md); with run_samples naming k >= 2 process runs (sizes in sample
// order), the interval is pooled median * exp(+-t_{0.975, k-1} * sd(log run medians) / sqrt(k)), widened to contain
// the pooled order-statistic interval ("between-runs"). run_samples must sum to samples.size().
StepStats compute_step_stats(const std::vector<double>& samples, const std::vector<int64_t>& run_samples = {});

}  // namespace mg
