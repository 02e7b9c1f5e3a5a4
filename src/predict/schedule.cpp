#include "predict/schedule.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "result/bucket_plan.h"

namespace mg {

std::vector<PlannedBucket> plan_buckets(const std::vector<GradientLayer>& layers, size_t bucket_bytes) {
  std::vector<PlannedBucket> out;
  // Flat offsets of each layer, in gradient order.
  std::vector<size_t> begin(layers.size() + 1, 0);
  for (size_t i = 0; i < layers.size(); ++i) begin[i + 1] = begin[i] + layers[i].elements;
  for (const BucketRange& r : plan_bucket_ranges(begin.back(), bucket_bytes)) {
    // The layer owning the bucket's first element: the last layer starting at or before it.
    const size_t l =
        static_cast<size_t>(std::upper_bound(begin.begin(), begin.end() - 1, r.begin) - begin.begin()) - 1;
    out.push_back({r.end - r.begin, layers[l].ready_s});
  }
  return out;
}

double expected_straggler_wait(const std::vector<double>& steps, int n) {
  if (n < 2 || steps.size() < 2) return 0;
  std::vector<double> s = steps;
  std::sort(s.begin(), s.end());
  const double k = static_cast<double>(s.size());
  double emax = 0, mean = 0, below = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const double upto = std::pow((static_cast<double>(i) + 1) / k, n);
    emax += s[i] * (upto - below);
    below = upto;
    mean += s[i] / k;
  }
  return std::max(0.0, emax - mean);
}

StepPrediction simulate_step(const StepProfile& p, const StepOptions& o, const Interconnect& ic, int n,
                             int devices_per_node) {
  const double kp = p.accum_steps, k = std::max(1, o.accum_steps);
  const double in = p.input_wait_s / kp, fwd = p.forward_s / kp, bwd = p.backward_s / kp;
  StepPrediction r;
  StepBreakdown& b = r.breakdown;
  b.forward = k * fwd;
  b.backward = k * bwd;
  b.optimizer = p.optimizer_s;
  b.input_wait = k * in;

  const auto planned = plan_buckets(p.layers, static_cast<size_t>(o.bucket_mb * 1048576.0));
  // The comm stream takes buckets in launch order: the order they become ready (stable for ties).
  std::vector<size_t> order(planned.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t c) { return planned[a].ready_s < planned[c].ready_s; });
  const bool comm = n > 1 && o.strategy != SyncStrategy::None;
  double comm_free = 0, last_end = 0;
  r.buckets.resize(planned.size());
  for (size_t i : order) {
    const double bytes = static_cast<double>(planned[i].elements * o.wire_bytes_per_element);
    const double ready = o.overlap ? std::min(planned[i].ready_s, bwd) : bwd;
    const double t = comm ? allreduce_time(ic, o.strategy, bytes, n) : 0.0;
    if (comm) {
      const double start = std::max(ready, comm_free);
      comm_free = last_end = start + t;
    }
    r.buckets[i] = {static_cast<size_t>(bytes), t, planned[i].ready_s};
    r.comm_s += t;
    if (comm) r.wire_bytes += static_cast<size_t>(bytes);
  }
  b.comm_exposed = comm ? std::max(0.0, last_end - bwd) : 0.0;
  b.comm_overlapped = std::max(0.0, r.comm_s - b.comm_exposed);
  if (comm) {
    // The profile's steps are K/kp of the predicted ones; their deviations are taken to scale alike.
    r.straggler_s = expected_straggler_wait(p.step_s, n) * k / kp;
    b.comm_exposed += r.straggler_s;
  }
  double rest = b.input_wait + b.forward + b.backward + b.comm_exposed + b.optimizer;
  if (o.input_rate > 0) {
    // One node's pipeline delivers devices_per_node batches per step; the step waits for the shortfall.
    const double need = devices_per_node * k * static_cast<double>(p.batch_per_device) / o.input_rate;
    if (need > rest) {
      b.input_wait += need - rest;
      rest = need;
    }
  }
  b.total = rest;
  return r;
}

}  // namespace mg
