// What each replica of a sweep entry measured, and the merge that turns them into one DeviceCountResult: every
// field reduced on its own terms (step times and loss averaged over replicas, memory and the timed window as
// maxima, parameter checksums kept whole, one per replica). Replicas of other processes reach the merge
// through gather_world_totals, the one place their numbers cross the wire.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "comm/communicator.h"
#include "result/run_result.h"

namespace mg {

// The part of a replica's output that is reduced over every replica of the job, all processes included.
struct ReplicaTotals {
  std::vector<StepBreakdown> samples;  // one per timed step
  std::vector<double> bucket_time_s;   // per gradient bucket: mean all-reduce time per timed step
  double loss = 0;                     // after the last step
  int64_t overflow_steps = 0;          // fp16 steps skipped
  size_t peak_memory_bytes = 0;        // mgbench's own allocations at the high-water mark
  size_t device_memory_in_use_bytes = 0;
  double window_s = 0;                 // wall time of the timed window
  uint64_t checksum = 0;               // of the parameters after the run
};

// Everything a replica of this process measured; the fields beside `totals` describe this process only.
struct ReplicaOutput {
  ReplicaTotals totals;
  std::vector<TraceSpan> trace;
  std::vector<GradientLayer> layers;  // the profile: ready_s summed over timed steps
  std::vector<WireCastCost> wire_casts;  // the profile's cast costs (1-device training runs only)
  std::vector<LayerTime> layer_times;    // --layer-times
  int64_t skipped_images = 0;
  std::vector<size_t> bucket_bytes;
  std::vector<int> bucket_ready_layer;
  size_t wire_bytes = 0;
  std::string wire_dtype = "fp32";
};

// Every replica's totals in global rank order: an all-gather over the job's world, called by each local
// replica (on its own thread) with its own communicator. All replicas timed the same steps and buckets (the
// processes' configurations were compared when the world was created).
std::vector<ReplicaTotals> gather_world_totals(Communicator& comm, const ReplicaTotals& mine);

// Fills the measured fields of `entry` (whose devices, batch sizes and allreduce.library the caller set) from
// `world` (every replica, global rank order) and `local` (this process's replicas, which supply the profile,
// bucket layout, skipped images and trace).
DeviceCountResult merge_replicas(DeviceCountResult entry, const std::vector<ReplicaTotals>& world,
                                 const std::vector<ReplicaOutput>& local);

}  // namespace mg
