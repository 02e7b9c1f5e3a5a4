#include "stats/summary.h"

#include <map>
#include <string>

#include "stats/step_stats.h"

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

}  // namespace mg
