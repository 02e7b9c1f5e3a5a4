// The event schedule of one predicted data-parallel step on n devices:
//   input wait | forward | backward (buckets become ready in order) | wait for the last all-reduce | optimizer
// One comm stream runs the buckets' all-reduces one after another in the order they became ready (as the
// trainer launches them), each starting when its bucket is ready and the previous one has finished; with
// overlap off all of them start after backward. The optimizer waits for the last bucket. The input pipeline
// adds a wait when it cannot deliver a node's batches within the rest of the step. Ranks are not in lock-step:
// every step's all-reduce waits for the slowest rank, so a synchronised step on n devices also pays the
// expected maximum of n independent draws of the profile's step time minus its mean (the straggler wait,
// counted as exposed communication, where a measured run sees it).
// A 16-bit wire adds the trainer's casts (src/train/grad_sync.cpp), both on the compute stream: each bucket's
// fp32 -> wire cast runs when the bucket is launched (inside backward with overlap, so it delays the rest of
// backward and the bucket's all-reduce starts after it; after backward without), and after backward the compute
// stream waits for each bucket in bucket order and casts it back before the optimizer.
// An all-reduce that starts on an idle comm stream (the step's first, or one whose bucket became ready after the
// previous one had finished) is issued after compute, not queued behind another collective: it is priced
// "after a gap" (allreduce_time's after_gap: a link measured with `mgbench comm --gap`), the rest back to back.
#pragma once
#include <cstddef>
#include <vector>

#include "predict/interconnect.h"
#include "predict/step_profile.h"
#include "result/run_result.h"

namespace mg {

struct StepOptions {
  double bucket_mb = 25;         // fp32 gradient MiB per bucket, as --bucket-mb (0 here: one bucket)
  bool overlap = true;
  DType wire = DType::F32;  // --allreduce-dtype; fp16/bf16 halve the bytes and add the casts
  // Seconds per element of the fp32 -> wire and wire -> fp32 casts on the profiled device (StepProfile's
  // wire_casts for `wire`; 0 when the profile has no figure). Unused for an fp32 wire.
  double cast_to_wire_s_per_element = 0, cast_from_wire_s_per_element = 0;
  int accum_steps = 1;
  AllreduceMode allreduce = AllreduceMode::Ring;
  double input_rate = 0;  // images/s one node's input pipeline can deliver; 0: as fast as the profile saw
};

// A bucket of the layout the trainer uses (result/bucket_plan.h); ready when backward has completed the layer
// owning its first element.
struct PlannedBucket {
  size_t elements = 0;
  double ready_s = 0;  // into the (last micro-batch's) backward
};
std::vector<PlannedBucket> plan_buckets(const std::vector<GradientLayer>& layers, size_t bucket_bytes);

// E[max of n independent draws from `steps`] - mean(steps): the empirical distribution's order statistic,
// sum over the sorted samples of x_i * ((i/k)^n - ((i-1)/k)^n). 0 for n < 2 or fewer than two samples.
double expected_straggler_wait(const std::vector<double>& steps, int n);

struct StepPrediction {
  StepBreakdown breakdown;
  double straggler_s = 0;             // in breakdown.comm_exposed
  std::vector<BucketTiming> buckets;  // wire bytes, all-reduce seconds, ready time
  double comm_s = 0;                  // sum of the buckets' all-reduce times
  double cast_to_wire_s = 0;          // sum of the outgoing casts (in backward with overlap, else exposed)
  double cast_from_wire_s = 0;        // sum of the incoming casts (in the exposed part)
  size_t wire_bytes = 0;
  int after_gap = 0;                  // all-reduces that started on an idle comm stream
};

// n devices with devices_per_node of them sharing one node's input pipeline.
StepPrediction simulate_step(const StepProfile& p, const StepOptions& o, const Interconnect& ic, int n,
                             int devices_per_node);

}  // namespace mg
