#include "stats/run_medians.h"

#include <algorithm>

#include "stats/step_stats.h"

namespace mg {

namespace {

template <class F>
void for_each_run(const DeviceCountResult& r, F&& f) {
  std::vector<int64_t> sizes = r.run_samples;
  if (sizes.empty()) sizes.push_back(static_cast<int64_t>(r.samples.size()));
  size_t at = 0;
  for (int64_t k : sizes) {
    const size_t end = std::min(r.samples.size(), at + static_cast<size_t>(std::max<int64_t>(0, k)));
    if (end > at) f(at, end);
    at = end;
  }
}

}  // namespace

std::vector<double> run_median_step_times(const DeviceCountResult& r) {
  std::vector<double> out;
  for_each_run(r, [&](size_t b, size_t e) {
    std::vector<double> v;
    for (size_t i = b; i < e; ++i) v.push_back(r.samples[i].total);
    std::sort(v.begin(), v.end());
    out.push_back(quantile_sorted(v, 0.5));
  });
  return out;
}

std::vector<double> run_means(const DeviceCountResult& r, double StepBreakdown::*field) {
  std::vector<double> out;
  for_each_run(r, [&](size_t b, size_t e) {
    double s = 0;
    for (size_t i = b; i < e; ++i) s += r.samples[i].*field;
    out.push_back(s / static_cast<double>(e - b));
  });
  return out;
}

}  // namespace mg
