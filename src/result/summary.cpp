#include "result/summary.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "result/stats.h"

namespace mg {

void summarize(DeviceCountResult& r) {
  std::vector<double> totals;
  totals.reserve(r.samples.size());
  StepBreakdown sum;
  for (const StepBreakdown& s : r.samples) {
    totals.push_back(s.total);
    sum.input_wait += s.input_wait;
    sum.forward += s.forward;
    sum.backward += s.backward;
    sum.comm_exposed += s.comm_exposed;
    sum.comm_overlapped += s.comm_overlapped;
    sum.optimizer += s.optimizer;
    sum.total += s.total;
  }
  r.step_time = compute_step_stats(totals, r.run_samples);
  const double n = static_cast<double>(r.samples.size());
  r.breakdown = StepBreakdown{};
  if (n > 0) {
    r.breakdown.input_wait = sum.input_wait / n;
    r.breakdown.forward = sum.forward / n;
    r.breakdown.backward = sum.backward / n;
    r.breakdown.comm_exposed = sum.comm_exposed / n;
    r.breakdown.comm_overlapped = sum.comm_overlapped / n;
    r.breakdown.optimizer = sum.optimizer / n;
    r.breakdown.total = sum.total / n;
  }
  r.images_per_sec = sum.total > 0 ? static_cast<double>(r.global_batch) * n / sum.total : 0;
  r.images_per_sec_per_device = r.devices > 0 ? r.images_per_sec / r.devices : 0;

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

BreakdownShares breakdown_shares(const StepBreakdown& b) {
  BreakdownShares s;
  if (b.total <= 0) return s;
  s.input_wait = b.input_wait / b.total;
  s.forward = b.forward / b.total;
  s.backward = b.backward / b.total;
  s.comm_exposed = b.comm_exposed / b.total;
  s.comm_overlapped = b.comm_overlapped / b.total;
  s.optimizer = b.optimizer / b.total;
  return s;
}

double breakdown_relative_gap(const StepBreakdown& b) {
  const double parts =
      b.input_wait + b.forward + b.backward + b.comm_exposed + b.comm_overlapped + b.optimizer;
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
