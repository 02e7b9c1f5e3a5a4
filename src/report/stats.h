// Step-time statistics: the numbers a user (and `mgbench compare`) trusts about one device count.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

#include "train/run_result.h"

namespace mg {

// Quantile q in [0, 1] of already sorted values by linear interpolation between order statistics (numpy's
// default "linear" method: position q * (n - 1)). Empty input -> 0.
double quantile_sorted(const std::vector<double>& sorted, double q);

// Ranks (1-based, into the sorted sample) of a distribution-free 95% confidence interval of the median:
// [x_(lo), x_(hi)] with hi = n + 1 - lo and lo the largest rank whose binomial(n, 1/2) coverage
// P(lo <= B <= n - lo) is still >= 0.95. With n <= 5 no pair of order statistics reaches 95%
// (min..max covers 1 - 2^(1-n), e.g. 93.75% at n = 5), so the interval is min..max and covers less than claimed.
std::pair<int64_t, int64_t> median_ci95_ranks(int64_t n);

// median, mean, sample stddev (n - 1), p5/p95, the 95% CI of the median above, and jitter = 1.4826 * MAD
// (the median absolute deviation scaled to estimate a normal stddev, as tf_cnn_benchmarks prints it).
StepStats compute_step_stats(const std::vector<double>& samples);

}  // namespace mg
