#include "stats/mann_whitney.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "stats/distributions.h"
#include "stats/step_stats.h"

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

namespace {

// P(U <= c) under the null, exact (no ties in the null distribution of ranks).
double u_cdf(int64_t m, int64_t n, int64_t c) { return 1.0 - mann_whitney_exact_sf(m, n, c + 1); }

}  // namespace

double smallest_two_sided_p(int64_t m, int64_t n) {
  if (m <= 0 || n <= 0) return 1;
  double log_c = std::lgamma(static_cast<double>(m + n + 1)) - std::lgamma(static_cast<double>(m + 1)) -
                 std::lgamma(static_cast<double>(n + 1));
  return std::min(1.0, 2 * std::exp(-log_c));
}

RatioInterval hodges_lehmann_ratio(const std::vector<double>& base, const std::vector<double>& next,
                                   double confidence) {
  RatioInterval out;
  const int64_t m = static_cast<int64_t>(base.size()), n = static_cast<int64_t>(next.size());
  if (m == 0 || n == 0) return out;
  std::vector<double> d;
  d.reserve(static_cast<size_t>(m * n));
  for (double b : base)
    for (double x : next) d.push_back(std::log(x) - std::log(b));
  std::sort(d.begin(), d.end());
  out.estimate = std::exp(quantile_sorted(d, 0.5));
  const int64_t mn = m * n;
  const double tail = (1 - confidence) / 2;
  int64_t c = -1;  // largest count with P(U <= c) <= tail
  if (std::min(m, n) <= 50) {
    while (c + 1 < mn / 2 && u_cdf(m, n, c + 1) <= tail) ++c;
  } else {  // normal approximation of U with continuity correction
    const double sd = std::sqrt(static_cast<double>(mn) * static_cast<double>(m + n + 1) / 12);
    c = static_cast<int64_t>(std::floor(static_cast<double>(mn) / 2 + normal_quantile(tail) * sd - 0.5));
    c = std::clamp<int64_t>(c, -1, mn / 2 - 1);
  }
  if (c < 0) {
    out.lo = std::exp(d.front());
    out.hi = std::exp(d.back());
    out.coverage = std::max(0.0, 1 - 2 * u_cdf(m, n, 0));  // one pair: 0, a point
    return out;
  }
  out.lo = std::exp(d[static_cast<size_t>(c)]);  // D_(c+1), 1-based
  out.hi = std::exp(d[static_cast<size_t>(mn - 1 - c)]);  // D_(mn-c)
  out.coverage = std::min(1.0, 1 - 2 * (std::min(m, n) <= 50 ? u_cdf(m, n, c) : tail));
  return out;
}

}  // namespace mg
