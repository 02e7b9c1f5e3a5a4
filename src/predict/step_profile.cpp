#include "predict/step_profile.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "result/config_ranges.h"

namespace mg {

namespace {

double step_seconds(const StepProfile& p) { return p.input_wait_s + p.forward_s + p.backward_s + p.optimizer_s; }

// The factor that makes the profile's parts add up to one step at images_per_sec.
double rate_factor(const StepProfile& p, double images_per_sec) {
  return static_cast<double>(p.batch_per_device * p.accum_steps) / images_per_sec / step_seconds(p);
}

// Every time of the profile times f: the step's shape and spread are kept.
void scale_times(StepProfile& p, double f) {
  p.input_wait_s *= f;
  p.forward_s *= f;
  p.backward_s *= f;
  p.optimizer_s *= f;
  for (GradientLayer& l : p.layers) l.ready_s *= f;
  for (double& t : p.step_s) t *= f;
}

}  // namespace

StepProfile step_profile_from(const RunResult& r, const std::string& source) {
  if (r.kind != "training")
    throw UsageError(source + ": is a " + r.kind + ", not a training result; profile a 1-device run (mgbench --gpus 1)");
  if (r.config.forward_only || r.config.input_only)
    throw UsageError(source + ": was run with --" + (r.config.forward_only ? "forward-only" : "input-only") +
                     "; a profile needs a training step");
  const DeviceCountResult* one = nullptr;
  for (const DeviceCountResult& d : r.runs)
    if (d.devices == 1 && !one) one = &d;
  if (!one) throw UsageError(source + ": has no 1-device run; profile with mgbench --gpus 1");
  if (one->gradient_layers.empty())
    throw UsageError(source + ": its 1-device run has no gradient_layers profile (written by an older mgbench?)");
  if (!(one->breakdown.total > 0) || !(one->breakdown.backward > 0))
    throw UsageError(source + ": its 1-device run has no timed steps");
  StepProfile p;
  p.accum_steps = std::max(1, r.config.accum_steps);
  p.batch_per_device = one->batch_per_device;
  p.tokens_per_sample = one->tokens_per_sample;
  p.input_wait_s = one->breakdown.input_wait;
  p.forward_s = one->breakdown.forward;
  p.backward_s = one->breakdown.backward;
  p.optimizer_s = one->breakdown.optimizer;
  p.images_per_sec = one->images_per_sec;
  p.layers = one->gradient_layers;
  // Measured apart from the steps, as device time: not scaled to the headline rate below.
  p.wire_casts = one->wire_casts;
  for (const StepBreakdown& b : one->samples)
    if (b.total > 0) p.step_s.push_back(b.total);
  // The parts are per-step medians; the headline rate is the timed window's images over its wall time, which
  // also holds what lies between steps, and is what a measured run reports and --measured compares against.
  // Predict at the headline rate with the parts' shape (and the steps' spread), so one device predicts exactly
  // what was measured.
  if (one->images_per_sec > 0 && std::isfinite(one->images_per_sec))
    scale_times(p, rate_factor(p, one->images_per_sec));
  return p;
}

const WireCastCost* wire_cast_cost(const StepProfile& p, DType wire) {
  for (const WireCastCost& c : p.wire_casts)
    if (c.dtype == dtype_name(wire)) return &c;
  return nullptr;
}

void rescale_profile(StepProfile& p, double images_per_sec) {
  if (!(images_per_sec > 0) || !std::isfinite(images_per_sec))
    throw UsageError("--profile-rate must be a positive number of images/s");
  const double f = rate_factor(p, images_per_sec);
  scale_times(p, f);
  for (WireCastCost& c : p.wire_casts) {
    c.to_wire_s_per_element *= f;
    c.from_wire_s_per_element *= f;
  }
  p.step_s.clear();  // this machine's jitter says nothing about the device the rate comes from
  p.images_per_sec = images_per_sec;
}

void rebatch_profile(StepProfile& p, int64_t batch) {
  check_batch_size(batch);
  const double before = step_seconds(p);
  const double f = static_cast<double>(batch) / static_cast<double>(p.batch_per_device);
  p.input_wait_s *= f;
  p.forward_s *= f;
  p.backward_s *= f;
  for (GradientLayer& l : p.layers) l.ready_s *= f;
  const double after = step_seconds(p);
  for (double& t : p.step_s) t *= after / before;  // the same relative spread
  p.batch_per_device = batch;
  p.images_per_sec = static_cast<double>(batch * p.accum_steps) / after;
}

}  // namespace mg
