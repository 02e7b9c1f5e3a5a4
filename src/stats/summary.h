// Derived metrics of a run: what the trainer's raw per-step samples mean as step statistics, images/s,
// bandwidth and scaling, computed on DeviceCountResult so the trainer, the table and the tests agree on definitions.
#pragma once
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

// Scaling against the 1-device run of the same transport: efficiency = ips(N) / (N * ips(1)),
// speedup = ips(N) / ips(1). Runs whose transport has no 1-device run (--no-baseline) get 0 for both.
void compute_scaling(std::vector<DeviceCountResult>& runs);

}  // namespace mg
