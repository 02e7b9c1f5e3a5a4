// Result files for the compare tests: one process run per file, sides of k runs, and compare on one pair.
#pragma once
#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "core/error.h"
#include "stats/compare.h"
#include "support/result_fixture.h"

namespace mg::test {

// One result file's worth (one process run): a sweep whose per-count median step times are given.
inline LoadedResult side(const std::string& name, const std::vector<int>& counts,
                         const std::vector<double>& medians, double noise, uint64_t seed, int steps = 30) {
  return {name, make_result(counts, medians, steps, noise, seed)};
}

// k process runs of one benchmark as k files: run r's medians are `medians` x exp(run_noise x z_r), z_r drawn
// from a seeded normal, with `noise` between the steps of one run.
inline std::vector<LoadedResult> runs_of(const std::string& name, const std::vector<int>& counts,
                                         const std::vector<double>& medians, int k, double run_noise, uint64_t seed,
                                         double noise = 0.01) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> z(0.0, 1.0);
  std::vector<LoadedResult> out;
  for (int r = 0; r < k; ++r) {
    const double f = std::exp(run_noise * z(rng));
    std::vector<double> m;
    for (double x : medians) m.push_back(x * f);
    out.push_back(side(name + "/run-" + std::to_string(r) + ".json", counts, m, noise, seed * 1000 + r, 20));
  }
  return out;
}

// One 1-device run per given median step time, in order.
inline std::vector<LoadedResult> runs_with(const std::string& name, const std::vector<double>& run_medians,
                                           uint64_t seed) {
  std::vector<LoadedResult> out;
  for (size_t r = 0; r < run_medians.size(); ++r)
    out.push_back(side(name + "/run-" + std::to_string(r) + ".json", {1}, {run_medians[r]}, 0.005, seed + r, 20));
  return out;
}

inline CompareReport compare(const LoadedResult& b, const LoadedResult& n, CompareOptions opt = {}) {
  return compare_results({b}, {n}, opt);
}

inline std::string usage_error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const UsageError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace mg::test
