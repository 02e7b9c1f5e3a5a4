// Mann-Whitney U test (Wilcoxon rank-sum), two-sided: do two samples of step times come from the same
// distribution? Distribution-free, so the long right tail step times have (a stall, a GC, a noisy neighbour)
// does not fool it the way a t-test is fooled. Method chosen as scipy.stats.mannwhitneyu(method="auto") does,
// so results can be checked against it.
#pragma once
#include <cstdint>
#include <vector>

#include "stats/ratio_interval.h"

namespace mg {

struct MannWhitneyResult {
  double u = 0;        // U of x: pairs (x_i, y_j) with x_i > y_j, a tie counting 1/2
  double p_value = 1;  // two-sided
  bool exact = false;  // exact null distribution (else normal approximation)
};

// Exact when there are no ties and the smaller sample has at most 8 values (scipy's rule); otherwise the normal
// approximation with the tie-corrected variance and a 0.5 continuity correction. Empty input -> p = 1.
MannWhitneyResult mann_whitney_u(const std::vector<double>& x, const std::vector<double>& y);

// P(U >= k) under the null for sample sizes m and n without ties, from the exact count of rank arrangements:
// the number of arrangements with U = u is the coefficient of q^u in the Gaussian binomial [m+n choose m]_q,
// built as prod_{i=1..min(m,n)} (1 - q^(max+i)) / (1 - q^i) truncated at degree m*n (O(min * m * n)).
double mann_whitney_exact_sf(int64_t m, int64_t n, int64_t k);

// Smallest two-sided p-value an exact Mann-Whitney test can give with m and n values: 2 / C(m+n, m), at most 1.
// When it is not below alpha no difference, however large, can be significant.
double smallest_two_sided_p(int64_t m, int64_t n);

// NEW / BASE of positive values (throughputs of runs): the Hodges-Lehmann estimate of the shift of the logs
// and Moses' distribution-free interval, [D_(c+1), D_(mn-c)] of the sorted pairwise log differences with c the
// largest count whose exact null probability P(U <= c) stays <= (1 - confidence) / 2. When even c = 0 exceeds
// it (too few runs) the interval is the full range of pairwise ratios and coverage says what it holds.
// Empty input -> all zero.
RatioInterval hodges_lehmann_ratio(const std::vector<double>& base, const std::vector<double>& next,
                                   double confidence = 0.95);

}  // namespace mg
