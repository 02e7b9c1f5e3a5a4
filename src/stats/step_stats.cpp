#include "stats/step_stats.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/error.h"

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

double student_t975(int64_t dof) {
  MG_ENSURE(dof >= 1, "student_t975: degrees of freedom must be >= 1");
  static constexpr double kTable[] = {12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060, 2.2622,
                                      2.2281,  2.2010, 2.1788, 2.1604, 2.1448, 2.1314, 2.1199, 2.1098, 2.1009,
                                      2.0930,  2.0860, 2.0796, 2.0739, 2.0687, 2.0639, 2.0595, 2.0555, 2.0518,
                                      2.0484,  2.0452, 2.0423};
  if (dof <= 30) return kTable[dof - 1];
  // Cornish-Fisher expansion around the normal quantile; within 1e-4 of the exact value from 31 dof on.
  const double z = 1.959963984540054, v = static_cast<double>(dof);
  const double z3 = z * z * z, z5 = z3 * z * z, z7 = z5 * z * z;
  return z + (z3 + z) / (4 * v) + (5 * z5 + 16 * z3 + 3 * z) / (96 * v * v) +
         (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * v * v * v);
}

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

StepStats compute_step_stats(const std::vector<double>& samples, const std::vector<int64_t>& run_samples) {
  StepStats s;
  const int64_t n = static_cast<int64_t>(samples.size());
  s.samples = n;
  if (!run_samples.empty()) {
    const int64_t covered = std::accumulate(run_samples.begin(), run_samples.end(), int64_t{0});
    MG_ENSURE(covered == n && std::all_of(run_samples.begin(), run_samples.end(), [](int64_t c) { return c > 0; }),
              "run_samples must be positive and sum to the number of samples");
    s.process_runs = static_cast<int64_t>(run_samples.size());
  }
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
  if (s.process_runs >= 2) {
    // In log space: timing noise is multiplicative (a slow period scales the whole step), and the interval
    // of a positive time stays positive however few runs there are.
    std::vector<double> log_medians;
    auto begin = samples.begin();
    for (int64_t c : run_samples) {
      std::vector<double> run(begin, begin + c);
      begin += c;
      std::sort(run.begin(), run.end());
      log_medians.push_back(std::log(std::max(quantile_sorted(run, 0.5), 1e-300)));
    }
    const double k = static_cast<double>(s.process_runs);
    const double mean = std::accumulate(log_medians.begin(), log_medians.end(), 0.0) / k;
    double ss = 0;
    for (double m : log_medians) ss += (m - mean) * (m - mean);
    const double half = student_t975(s.process_runs - 1) * std::sqrt(ss / (k - 1)) / std::sqrt(k);
    s.ci95_lo_s = std::min(s.ci95_lo_s, s.median_s * std::exp(-half));
    s.ci95_hi_s = std::max(s.ci95_hi_s, s.median_s * std::exp(half));
    s.ci95_method = "between-runs";
  }
  s.ci95_s = std::max(s.median_s - s.ci95_lo_s, s.ci95_hi_s - s.median_s);
  std::vector<double> dev(v.size());
  for (size_t i = 0; i < v.size(); ++i) dev[i] = std::fabs(v[i] - s.median_s);
  std::sort(dev.begin(), dev.end());
  s.jitter_s = 1.4826 * quantile_sorted(dev, 0.5);
  return s;
}

}  // namespace mg
