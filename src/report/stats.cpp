#include "report/stats.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace mg {

double quantile_sorted(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  const double pos = std::clamp(q, 0.0, 1.0) * static_cast<double>(sorted.size() - 1);
  const size_t i = static_cast<size_t>(std::floor(pos));
  if (i + 1 >= sorted.size()) return sorted.back();
  const double frac = pos - static_cast<double>(i);
  return sorted[i] + frac * (sorted[i + 1] - sorted[i]);
}

namespace {

// log P(B = k) for B ~ binomial(n, 1/2), in logs so that n in the millions does not overflow.
double log_binom_half_pmf(int64_t n, int64_t k) {
  const double dn = static_cast<double>(n), dk = static_cast<double>(k);
  return std::lgamma(dn + 1) - std::lgamma(dk + 1) - std::lgamma(dn - dk + 1) - dn * std::log(2.0);
}

}  // namespace

std::pair<int64_t, int64_t> median_ci95_ranks(int64_t n) {
  if (n <= 0) return {0, 0};
  // Coverage of [x_(lo), x_(n+1-lo)] is P(lo <= B <= n - lo) = 1 - 2 P(B <= lo - 1). Grow lo while the
  // tail mass 2 P(B <= lo - 1) stays <= 5%.
  int64_t lo = 1;
  double tail = 0;  // P(B <= lo - 1)
  while (lo < (n + 1) / 2) {
    const double next_tail = tail + std::exp(log_binom_half_pmf(n, lo));  // P(B <= lo)
    if (2 * next_tail > 0.05) break;
    tail = next_tail;
    ++lo;
  }
  return {lo, n + 1 - lo};
}

StepStats compute_step_stats(const std::vector<double>& samples) {
  StepStats s;
  const int64_t n = static_cast<int64_t>(samples.size());
  s.samples = n;
  if (n == 0) return s;
  std::vector<double> v(samples);
  std::sort(v.begin(), v.end());
  s.median_s = quantile_sorted(v, 0.5);
  s.mean_s = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(n);
  if (n > 1) {
    double ss = 0;
    for (double x : v) ss += (x - s.mean_s) * (x - s.mean_s);
    s.stddev_s = std::sqrt(ss / static_cast<double>(n - 1));
  }
  s.p5_s = quantile_sorted(v, 0.05);
  s.p95_s = quantile_sorted(v, 0.95);
  const auto [lo, hi] = median_ci95_ranks(n);
  s.ci95_lo_s = v[static_cast<size_t>(lo - 1)];
  s.ci95_hi_s = v[static_cast<size_t>(hi - 1)];
  s.ci95_s = std::max(s.median_s - s.ci95_lo_s, s.ci95_hi_s - s.median_s);
  std::vector<double> dev(v.size());
  for (size_t i = 0; i < v.size(); ++i) dev[i] = std::fabs(v[i] - s.median_s);
  std::sort(dev.begin(), dev.end());
  s.jitter_s = 1.4826 * quantile_sorted(dev, 0.5);
  return s;
}

}  // namespace mg
