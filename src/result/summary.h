// Derived metrics of a run: what the trainer's raw per-step samples mean in images/s, shares, bandwidth and
// scaling. Pure arithmetic on DeviceCountResult so the trainer, the table and the tests agree on definitions.
#pragma once
#include <cstdint>
#include <vector>

#include "result/run_result.h"

namespace mg {

// Fills step_time, breakdown, images_per_sec(_per_device) and the allreduce time/bandwidth from samples,
// global_batch, devices and allreduce.per_bucket:
//  - step_time = compute_step_stats(total of every sample); breakdown = mean of the samples, field by field.
//  - images_per_sec = global_batch * timed steps / timed_wall_s: total images over the wall time of the timed
//    window, the figure a user multiplies by hours of training (host gaps between steps included; a mean of
//    per-step rates would overweight fast steps). Without a timed_wall_s (predictions, older files) it falls
//    back to images_per_sec_from_steps = global_batch * timed steps / sum of step totals (event times).
//  - allreduce.time_s = sum of per-bucket mean times; algbw = bytes_per_step / time_s; busbw = algbw *
//    2(N-1)/N as nccl-tests defines it for all-reduce; both in GB/s (1e9), 0 when N = 1 or nothing was timed.
void summarize(DeviceCountResult& r);

// How a run's rates are shown: a language model's in tokens (its samples are sequences of tokens_per_sample),
// an image model's in images; a rate per sample times per_sample is the rate in `total`'s unit. A rate per
// sample itself (images_per_sec) is named by `samples`: images/s, or a language model's sequences/s.
struct RateUnit {
  double per_sample = 1;
  const char* total = "images/s";
  const char* per_device = "img/s/dev";
  const char* samples = "images/s";
  const char* samples_short = "img/s";
};
RateUnit rate_unit(int64_t tokens_per_sample);  // > 0: a language model's sequence length
RateUnit rate_unit(const DeviceCountResult& r);
// The labels for the rates of several runs: the first's when all count the same kind of sample (an image
// model's with none), else labels naming both ("images or sequences/s"). For labels only: per_sample may differ.
RateUnit common_rate_unit(const std::vector<RateUnit>& units);

// Scaling against the 1-device run of the same transport: efficiency = ips(N) / (N * ips(1)),
// speedup = ips(N) / ips(1). Runs whose transport has no 1-device run (--no-baseline) get 0 for both.
void compute_scaling(std::vector<DeviceCountResult>& runs);

// Each breakdown part as a fraction of the step time (total = 1); all 0 when the step time is 0. The additive
// shares sum to 1; comm_overlapped's share is a fraction of the same step, inside backward's.
StepBreakdown breakdown_shares(const StepBreakdown& b);

// The additive parts are meant to add up to the step time (kBreakdownParts). This returns
// |sum(additive parts) - total| / total for one step
// (0 when both are 0, 1 when only total is 0), and the largest such gap over many steps, so the trainer's
// tests and the reporter can hold the measurement to a stated tolerance.
double breakdown_relative_gap(const StepBreakdown& b);
double max_breakdown_relative_gap(const std::vector<StepBreakdown>& steps);

}  // namespace mg
