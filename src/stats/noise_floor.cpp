#include "stats/noise_floor.h"

#include <cmath>
#include <cstdint>
#include <limits>

#include "stats/distributions.h"
#include "stats/mann_whitney.h"
#include "stats/signed_rank.h"

namespace mg {

NoiseFloor noise_floor(const std::vector<double>& base, const std::vector<double>& next, double alpha) {
  NoiseFloor f;
  const int64_t m = static_cast<int64_t>(base.size()), n = static_cast<int64_t>(next.size());
  const int64_t dof = m + n - 2;
  f.test_can_reject = smallest_two_sided_p(m, n) < alpha;
  if (m < 1 || n < 1 || dof < 1) return f;
  double ss = 0;
  for (const std::vector<double>* side : {&base, &next}) {
    double mean = 0;
    for (double x : *side) mean += std::log(x);
    mean /= static_cast<double>(side->size());
    for (double x : *side) ss += (std::log(x) - mean) * (std::log(x) - mean);
  }
  f.known = true;
  f.run_spread = std::sqrt(ss / static_cast<double>(dof));
  const double se = f.run_spread * std::sqrt(1.0 / static_cast<double>(m) + 1.0 / static_cast<double>(n));
  f.a_vs_a_band = std::exp(student_t_quantile(0.975, dof) * se) - 1;
  if (!f.test_can_reject) {
    f.min_detectable = std::numeric_limits<double>::infinity();
  } else {
    const double shift = (student_t_quantile(1 - alpha / 2, dof) + student_t_quantile(0.80, dof)) * se /
                         std::sqrt(3 / M_PI);
    f.min_detectable = 1 - std::exp(-shift);
  }
  return f;
}

NoiseFloor paired_noise_floor(const std::vector<double>& base, const std::vector<double>& next, double alpha) {
  NoiseFloor f;
  const std::vector<double> d = paired_log_ratios(base, next);
  const int64_t n = static_cast<int64_t>(d.size());
  f.test_can_reject = smallest_signed_rank_p(n) < alpha;
  if (n < 2) return f;
  double mean = 0, ss = 0;
  for (double x : d) mean += x / static_cast<double>(n);
  for (double x : d) ss += (x - mean) * (x - mean);
  f.known = true;
  const double sd_d = std::sqrt(ss / static_cast<double>(n - 1));
  f.run_spread = sd_d / std::sqrt(2.0);  // one run's share of the pair difference
  const double se = sd_d / std::sqrt(static_cast<double>(n));
  f.a_vs_a_band = std::exp(student_t_quantile(0.975, n - 1) * se) - 1;
  if (!f.test_can_reject) {
    f.min_detectable = std::numeric_limits<double>::infinity();
  } else {
    const double shift =
        (student_t_quantile(1 - alpha / 2, n - 1) + student_t_quantile(0.80, n - 1)) * se / std::sqrt(3 / M_PI);
    f.min_detectable = 1 - std::exp(-shift);
  }
  return f;
}

}  // namespace mg
