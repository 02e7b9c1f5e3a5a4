// What `mgbench compare` can and cannot see at its number of runs: the A-vs-A band and the smallest detectable
// slowdown, from the spread of the runs themselves.
#pragma once
#include <vector>

namespace mg {

// What the gate can and cannot see at this number of runs, from the spread of runs within each side (the same
// code run again: what an A-vs-A comparison varies by).
struct NoiseFloor {
  bool known = false;         // false with fewer than 3 runs in all (no within-side spread)
  double run_spread = 0;      // pooled sd of log run throughput within the sides (~ relative sd of one run)
  double a_vs_a_band = 0;     // A vs A at these run counts: the ratio stays within 1 +- this, 95% of the time
  double min_detectable = 0;  // smallest slowdown (fraction) found with 80% power at alpha; infinity if none can
  bool test_can_reject = false;  // smallest_two_sided_p(m, n) < alpha
};
// s = pooled sd of the log throughputs (m + n - 2 dof), se = s * sqrt(1/m + 1/n).
// a_vs_a_band = exp(t_{0.975,dof} * se) - 1.
// min_detectable = 1 - exp(-(t_{1-alpha/2,dof} + t_{0.80,dof}) * se / sqrt(3/pi)): the normal-theory sample
// size formula, widened by the Mann-Whitney test's asymptotic efficiency (3/pi) relative to the t test.
NoiseFloor noise_floor(const std::vector<double>& base, const std::vector<double>& next, double alpha);

// As noise_floor, for paired runs (stats/signed_rank.h), from the sd of the d_i (n - 1 dof), se = sd / sqrt(n).
NoiseFloor paired_noise_floor(const std::vector<double>& base, const std::vector<double>& next, double alpha);

}  // namespace mg
