#include "stats/run_pool.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/error.h"
#include "stats/summary.h"

namespace mg {

namespace {

void add_part(DeviceCountResult& into, const DeviceCountResult& part) {
  if (part.allreduce.per_bucket.size() != into.allreduce.per_bucket.size())
    throw Error("pooled runs differ in their all-reduce buckets (" + std::to_string(part.allreduce.per_bucket.size()) +
                " vs " + std::to_string(into.allreduce.per_bucket.size()) + ")");
  const double had = static_cast<double>(into.samples.size()), adds = static_cast<double>(part.samples.size());
  for (size_t b = 0; b < into.allreduce.per_bucket.size(); ++b) {
    double& t = into.allreduce.per_bucket[b].time_s;
    t = had + adds > 0 ? (t * had + part.allreduce.per_bucket[b].time_s * adds) / (had + adds) : 0;
  }
  into.samples.insert(into.samples.end(), part.samples.begin(), part.samples.end());
  if (part.run_samples.empty()) into.run_samples.push_back(static_cast<int64_t>(part.samples.size()));
  else into.run_samples.insert(into.run_samples.end(), part.run_samples.begin(), part.run_samples.end());
  into.peak_memory_bytes = std::max(into.peak_memory_bytes, part.peak_memory_bytes);
  into.wall_s += part.wall_s;
  into.timed_wall_s += part.timed_wall_s;
  into.device_memory_in_use_bytes = std::max(into.device_memory_in_use_bytes, part.device_memory_in_use_bytes);
  into.peak_flops_per_device += part.peak_flops_per_device;  // divided by the run count in pool_runs
  into.overflow_steps += part.overflow_steps;
  into.skipped_images += part.skipped_images;
  into.final_loss = part.final_loss;
  into.replica_checksums = part.replica_checksums;
}

}  // namespace

RunResult pool_runs(const std::vector<RunResult>& parts) {
  if (parts.empty()) throw Error("no runs to pool");
  RunResult out = parts.front();
  for (DeviceCountResult& r : out.runs) {
    r.samples.clear();
    r.run_samples.clear();
    r.wall_s = 0;
    r.timed_wall_s = 0;
    r.device_memory_in_use_bytes = 0;
    r.overflow_steps = 0;
    r.skipped_images = 0;
    r.peak_memory_bytes = 0;
    r.peak_flops_per_device = 0;
    for (BucketTiming& b : r.allreduce.per_bucket) b.time_s = 0;
  }
  out.process_runs.clear();
  for (size_t p = 0; p < parts.size(); ++p) {
    const RunResult& part = parts[p];
    out.process_runs.insert(out.process_runs.end(), part.process_runs.begin(), part.process_runs.end());
    if (part.runs.size() != out.runs.size())
      throw Error("run " + std::to_string(p + 1) + " measured " + std::to_string(part.runs.size()) +
                  " device counts, run 1 measured " + std::to_string(out.runs.size()));
    for (size_t i = 0; i < out.runs.size(); ++i) {
      const DeviceCountResult& r = part.runs[i];
      if (r.devices != out.runs[i].devices || r.transport != out.runs[i].transport)
        throw Error("run " + std::to_string(p + 1) + " entry " + std::to_string(i) + " is " + std::to_string(r.devices) +
                    " devices over " + r.transport + ", run 1 has " + std::to_string(out.runs[i].devices) + " over " +
                    out.runs[i].transport);
      add_part(out.runs[i], r);
    }
  }
  for (DeviceCountResult& r : out.runs) {
    if (r.run_samples.size() < 2) r.run_samples.clear();  // one run: nothing to pool
    // Each process measured its own peak: MFU is over their mean.
    r.peak_flops_per_device /= static_cast<double>(parts.size());
    if (parts.size() > 1 && r.peak_flops_per_device > 0)
      r.peak_flops_source += fmt::format("; pooled: the mean of {} process runs' peaks, {:.0f} GFLOP/s", parts.size(),
                                         r.peak_flops_per_device / 1e9);
    summarize(r);
  }
  compute_scaling(out.runs);
  return out;
}

}  // namespace mg
