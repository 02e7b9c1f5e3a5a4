#include "result/summary.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string_view>

#include "result/stats.h"

namespace mg {

void summarize(DeviceCountResult& r) {
  std::vector<double> totals;
  totals.reserve(r.samples.size());
  StepBreakdown sum;
  for (const StepBreakdown& s : r.samples) {
    totals.push_back(s.total);
    for (const BreakdownPart& p : kBreakdownParts) sum.*p.field += s.*p.field;
    sum.total += s.total;
  }
  r.step_time = compute_step_stats(totals, r.run_samples);
  const double n = static_cast<double>(r.samples.size());
  r.breakdown = StepBreakdown{};
  if (n > 0) {
    for (const BreakdownPart& p : kBreakdownParts) r.breakdown.*p.field = sum.*p.field / n;
    r.breakdown.total = sum.total / n;
  }
  r.images_per_sec_from_steps = sum.total > 0 ? static_cast<double>(r.global_batch) * n / sum.total : 0;
  r.images_per_sec = r.timed_wall_s > 0 ? static_cast<double>(r.global_batch) * n / r.timed_wall_s
                                        : r.images_per_sec_from_steps;
  r.images_per_sec_per_device = r.devices > 0 ? r.images_per_sec / r.devices : 0;
  r.tokens_per_sec = r.images_per_sec * static_cast<double>(r.tokens_per_sample);
  r.mfu = r.peak_flops_per_device > 0 ? r.images_per_sec_per_device * r.model_flops_per_sample / r.peak_flops_per_device
                                      : 0;

  AllreduceStats& a = r.allreduce;
  a.time_s = 0;
  for (const BucketTiming& b : a.per_bucket) a.time_s += b.time_s;
  a.algbw_GBps = a.time_s > 0 ? static_cast<double>(a.bytes_per_step) / a.time_s / 1e9 : 0;
  a.busbw_GBps = r.devices > 1 ? a.algbw_GBps * 2.0 * (r.devices - 1) / r.devices : 0;
}

RateUnit rate_unit(int64_t tokens_per_sample) {
  if (tokens_per_sample <= 0) return {};
  return {static_cast<double>(tokens_per_sample), "tokens/s", "tok/s/dev", "sequences/s", "seq/s"};
}

RateUnit rate_unit(const DeviceCountResult& r) { return rate_unit(r.tokens_per_sample); }

RateUnit common_rate_unit(const std::vector<RateUnit>& units) {
  for (const RateUnit& u : units)
    if (std::string_view(u.samples) != units.front().samples)
      return {1, "images or tokens/s", "img|tok/s/dev", "images or sequences/s", "img|seq/s"};
  return units.empty() ? RateUnit{} : units.front();
}

void compute_scaling(std::vector<DeviceCountResult>& runs) {
  std::map<std::string, double> base_ips;  // transport -> images/s of its 1-device run
  for (const DeviceCountResult& r : runs)
    if (r.devices == 1) base_ips[r.transport] = r.images_per_sec;
  for (DeviceCountResult& r : runs) {
    auto it = base_ips.find(r.transport);
    if (it == base_ips.end() || it->second <= 0 || r.devices <= 0) {
      r.scaling_efficiency = 0;
      r.speedup = 0;
      continue;
    }
    r.speedup = r.images_per_sec / it->second;
    r.scaling_efficiency = r.speedup / r.devices;
  }
}

StepBreakdown breakdown_shares(const StepBreakdown& b) {
  StepBreakdown s;
  if (b.total <= 0) return s;
  for (const BreakdownPart& p : kBreakdownParts) s.*p.field = b.*p.field / b.total;
  s.total = 1;
  return s;
}

double breakdown_relative_gap(const StepBreakdown& b) {
  double parts = 0;
  for (const BreakdownPart& p : kBreakdownParts)
    if (p.additive) parts += b.*p.field;
  const double gap = std::fabs(parts - b.total);
  if (b.total == 0) return gap == 0 ? 0 : 1;
  return gap / std::fabs(b.total);
}

double max_breakdown_relative_gap(const std::vector<StepBreakdown>& steps) {
  double worst = 0;
  for (const StepBreakdown& s : steps) worst = std::max(worst, breakdown_relative_gap(s));
  return worst;
}

}  // namespace mg
