#include "predict/schedule.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "result/bucket_plan.h"

namespace mg {

std::vector<PlannedBucket> plan_buckets(const std::vector<GradientLayer>& layers, size_t bucket_bytes) {
  std::vector<size_t> elements;
  for (const GradientLayer& g : layers) elements.push_back(g.elements);
  std::vector<PlannedBucket> out;
  for (const LayerBucket& r : plan_layer_buckets(elements, bucket_bytes))
    out.push_back({r.end - r.begin, layers[r.owner].ready_s});
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
  const bool comm = n > 1 && o.allreduce != AllreduceMode::None;
  const bool casts = comm && o.wire != DType::F32;
  const size_t wire_size = dtype_size(o.wire);
  // Compute-stream time into the last backward, casts included: with overlap each launch casts its bucket
  // right where backward reached its ready point, so everything after it on the stream moves by the cast.
  double cast_before = 0, comm_free = 0;
  std::vector<double> ends(planned.size(), 0.0);
  // The link idles before the step's first all-reduce from the previous step's last one: `lead` covers the
  // optimizer, input wait, forward and earlier micro-batches; the backward the last one did not cover is added below.
  const auto launch_all = [&](double lead) {
    cast_before = comm_free = 0;
    r.buckets.assign(planned.size(), {});
    r.comm_s = r.cast_to_wire_s = 0;
    r.wire_bytes = 0;
    r.after_gap = 0;
    for (size_t i : order) {
      const double bytes = static_cast<double>(planned[i].elements * wire_size);
      const double out = casts ? static_cast<double>(planned[i].elements) * o.cast_to_wire_s_per_element : 0.0;
      // Without overlap the launches (and their casts) follow backward's end in bucket order.
      const double reached = (o.overlap ? std::min(planned[i].ready_s, bwd) : bwd) + cast_before;
      cast_before += out;
      // Idle comm stream at launch: the first bucket, or one launched after the previous all-reduce had ended.
      const bool idle = i == order.front() || reached + out > comm_free;
      const double idle_s = i == order.front() ? lead + reached + out : idle ? reached + out - comm_free : 0.0;
      const double t = comm ? allreduce_time(ic, o.allreduce, bytes, n, idle, idle_s) : 0.0;
      if (comm) {
        const double start = std::max(reached + out, comm_free);
        comm_free = ends[i] = start + t;
        r.after_gap += idle ? 1 : 0;
      }
      r.buckets[i] = {static_cast<size_t>(bytes), t, planned[i].ready_s};
      r.comm_s += t;
      r.cast_to_wire_s += out;
      if (comm) r.wire_bytes += static_cast<size_t>(bytes);
    }
  };
  const double lead = b.optimizer + b.input_wait + b.forward + (k - 1) * bwd;
  launch_all(lead);
  // In the steady state the previous step's last all-reduce ended this long before its backward did.
  if (comm && bwd + r.cast_to_wire_s > comm_free) launch_all(lead + bwd + r.cast_to_wire_s - comm_free);
  // Backward as the trainer reports it ends before the launches without overlap, after the last cast with it.
  const double bwd_end = o.overlap ? bwd + r.cast_to_wire_s : bwd;
  b.backward += bwd_end - bwd;
  if (comm) {
    // The compute stream, after backward (and the outgoing casts without overlap), waits for each bucket in
    // bucket order and casts it back; the optimizer follows.
    double t = bwd + r.cast_to_wire_s;
    for (size_t i = 0; i < planned.size(); ++i) {
      const double in = casts ? static_cast<double>(planned[i].elements) * o.cast_from_wire_s_per_element : 0.0;
      t = std::max(t, ends[i]) + in;
      r.cast_from_wire_s += in;
    }
    b.comm_exposed = t - bwd_end;
  }
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
