#include "report/mann_whitney.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace mg {

double mann_whitney_exact_sf(int64_t m, int64_t n, int64_t k) {
  if (m <= 0 || n <= 0) return k <= 0 ? 1.0 : 0.0;
  const int64_t small = std::min(m, n), large = std::max(m, n);
  const int64_t deg = m * n;
  if (k <= 0) return 1.0;
  if (k > deg) return 0.0;
  // long double: the counts reach C(m+n, m) and the multiply step subtracts, so keep spare precision.
  std::vector<long double> c(static_cast<size_t>(deg + 1), 0.0L);
  c[0] = 1.0L;
  for (int64_t i = 1; i <= small; ++i) {
    const int64_t shift = large + i;
    for (int64_t u = deg; u >= shift; --u) c[u] -= c[u - shift];  // * (1 - q^(large+i))
    for (int64_t u = i; u <= deg; ++u) c[u] += c[u - i];          // / (1 - q^i)
  }
  long double total = 0, tail = 0;
  for (int64_t u = 0; u <= deg; ++u) {
    total += c[u];
    if (u >= k) tail += c[u];
  }
  return static_cast<double>(tail / total);
}

MannWhitneyResult mann_whitney_u(const std::vector<double>& x, const std::vector<double>& y) {
  MannWhitneyResult r;
  const size_t m = x.size(), n = y.size();
  if (m == 0 || n == 0) return r;

  // Average ranks of the pooled sample, and the tie term sum(t^3 - t) over groups of equal values.
  std::vector<std::pair<double, int>> pooled;  // value, 0 = x, 1 = y
  pooled.reserve(m + n);
  for (double v : x) pooled.push_back({v, 0});
  for (double v : y) pooled.push_back({v, 1});
  std::sort(pooled.begin(), pooled.end());
  double rank_sum_x = 0, tie_term = 0;
  for (size_t i = 0; i < pooled.size();) {
    size_t j = i;
    while (j < pooled.size() && pooled[j].first == pooled[i].first) ++j;
    const double t = static_cast<double>(j - i);
    const double avg_rank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2;
    for (size_t k = i; k < j; ++k)
      if (pooled[k].second == 0) rank_sum_x += avg_rank;
    tie_term += t * t * t - t;
    i = j;
  }
  const double dm = static_cast<double>(m), dn = static_cast<double>(n);
  r.u = rank_sum_x - dm * (dm + 1) / 2;
  const double u_big = std::max(r.u, dm * dn - r.u);  // two-sided: the larger tail, doubled

  const bool ties = tie_term > 0;
  if (!ties && std::min(m, n) <= 8) {
    r.exact = true;
    r.p_value = 2 * mann_whitney_exact_sf(static_cast<int64_t>(m), static_cast<int64_t>(n),
                                          static_cast<int64_t>(std::llround(u_big)));
  } else {
    const double N = dm + dn;
    const double sigma = std::sqrt(dm * dn / 12 * ((N + 1) - tie_term / (N * (N - 1))));
    if (sigma <= 0) {  // every value equal: no evidence of any difference
      r.p_value = 1;
    } else {
      const double z = (u_big - dm * dn / 2 - 0.5) / sigma;
      r.p_value = std::erfc(z / std::sqrt(2.0));  // 2 * (1 - Phi(z))
    }
  }
  r.p_value = std::clamp(r.p_value, 0.0, 1.0);
  return r;
}

}  // namespace mg
