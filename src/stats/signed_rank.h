// The Wilcoxon signed-rank test and its interval, for paired runs (interleaved A/B: BASE run i and NEW run i were
// made back to back, so a slow period of a shared machine hits both). The evidence is the per-pair log ratio
// d_i = log(next_i / base_i), which cancels drift slower than one pair.
#pragma once
#include <cstdint>
#include <vector>

#include "stats/ratio_interval.h"

namespace mg {

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
// d_i = log(next_i) - log(base_i) of paired runs; Error unless both sides have as many runs.
std::vector<double> paired_log_ratios(const std::vector<double>& base, const std::vector<double>& next);

}  // namespace mg
