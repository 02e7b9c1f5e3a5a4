#include "stats/signed_rank.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "core/error.h"
#include "stats/distributions.h"
#include "stats/step_stats.h"

namespace mg {

namespace {

// Number of sign patterns of ranks 1..n whose positive ranks sum to w, for w = 0..n(n+1)/2.
std::vector<long double> signed_rank_counts(int64_t n) {
  const int64_t top = n * (n + 1) / 2;
  std::vector<long double> c(static_cast<size_t>(top + 1), 0.0L);
  c[0] = 1;
  for (int64_t r = 1; r <= n; ++r)
    for (int64_t w = top; w >= r; --w) c[w] += c[w - r];
  return c;
}

// P(W+ <= w) under the null, exact.
double signed_rank_cdf(int64_t n, int64_t w) {
  const std::vector<long double> c = signed_rank_counts(n);
  long double below = 0, total = 0;
  for (size_t i = 0; i < c.size(); ++i) {
    total += c[i];
    if (static_cast<int64_t>(i) <= w) below += c[i];
  }
  return static_cast<double>(below / total);
}

}  // namespace

std::vector<double> paired_log_ratios(const std::vector<double>& base, const std::vector<double>& next) {
  MG_ENSURE(base.size() == next.size(), "paired runs: both sides need the same number of runs");
  std::vector<double> d;
  for (size_t i = 0; i < base.size(); ++i) d.push_back(std::log(next[i]) - std::log(base[i]));
  return d;
}

SignedRankResult wilcoxon_signed_rank(const std::vector<double>& d_in) {
  SignedRankResult r;
  std::vector<double> d;
  bool zeros = false;
  for (double x : d_in) {
    if (x == 0) zeros = true;
    else d.push_back(x);
  }
  const int64_t n = static_cast<int64_t>(d.size());
  if (n == 0) return r;
  std::vector<std::pair<double, bool>> a;  // |d|, positive
  for (double x : d) a.push_back({std::fabs(x), x > 0});
  std::sort(a.begin(), a.end());
  double tie_term = 0;
  for (size_t i = 0; i < a.size();) {
    size_t j = i;
    while (j < a.size() && a[j].first == a[i].first) ++j;
    const double rank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2, t = static_cast<double>(j - i);
    for (size_t k = i; k < j; ++k)
      if (a[k].second) r.w_plus += rank;
    tie_term += t * t * t - t;
    i = j;
  }
  const double top = static_cast<double>(n) * static_cast<double>(n + 1) / 2;
  if (tie_term == 0 && !zeros && n <= 60) {
    r.exact = true;
    const int64_t w = std::llround(std::min(r.w_plus, top - r.w_plus));
    r.p_value = std::min(1.0, 2 * signed_rank_cdf(n, w));
  } else {
    const double dn = static_cast<double>(n);
    const double sd = std::sqrt(dn * (dn + 1) * (2 * dn + 1) / 24 - tie_term / 48);
    const double z = sd > 0 ? (std::fabs(r.w_plus - top / 2) - 0.5) / sd : 0;
    r.p_value = std::min(1.0, std::erfc(std::max(0.0, z) / std::sqrt(2.0)));
  }
  return r;
}

double smallest_signed_rank_p(int64_t n) { return n <= 0 ? 1 : std::min(1.0, 2 * std::pow(0.5, static_cast<double>(n))); }

RatioInterval paired_ratio(const std::vector<double>& base, const std::vector<double>& next, double confidence) {
  RatioInterval out;
  const std::vector<double> d = paired_log_ratios(base, next);
  const int64_t n = static_cast<int64_t>(d.size());
  if (n == 0) return out;
  std::vector<double> walsh;
  for (size_t i = 0; i < d.size(); ++i)
    for (size_t j = i; j < d.size(); ++j) walsh.push_back((d[i] + d[j]) / 2);
  std::sort(walsh.begin(), walsh.end());
  out.estimate = std::exp(quantile_sorted(walsh, 0.5));
  const int64_t N = static_cast<int64_t>(walsh.size());
  const double tail = (1 - confidence) / 2;
  int64_t c = -1;  // largest count with P(W+ <= c) <= tail
  if (n <= 60) {
    while (c + 1 < N / 2 && signed_rank_cdf(n, c + 1) <= tail) ++c;
  } else {
    const double dn = static_cast<double>(n);
    const double sd = std::sqrt(dn * (dn + 1) * (2 * dn + 1) / 24);
    c = std::clamp<int64_t>(static_cast<int64_t>(std::floor(static_cast<double>(N) / 2 + normal_quantile(tail) * sd - 0.5)),
                            -1, N / 2 - 1);
  }
  const int64_t k = std::max<int64_t>(c, 0);
  out.lo = std::exp(walsh[static_cast<size_t>(k)]);
  out.hi = std::exp(walsh[static_cast<size_t>(N - 1 - k)]);
  out.coverage = std::max(0.0, 1 - 2 * (n <= 60 ? signed_rank_cdf(n, k) : tail));
  return out;
}

}  // namespace mg
