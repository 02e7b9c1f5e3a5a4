// The single-device step a prediction starts from, read from a 1-device `mgbench` training result: mean
// input-wait, forward, backward and optimizer seconds per step and, per parameter-owning layer, its gradient
// size and when backward completed it (docs/results.md, gradient_layers).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "result/run_result.h"

namespace mg {

struct StepProfile {
  int accum_steps = 1;  // micro-batches per step in the profiled run; the times below are sums over them
  int64_t batch_per_device = 0;
  int64_t tokens_per_sample = 0;  // a language model's sequence length (its "images" are sequences); else 0
  double input_wait_s = 0, forward_s = 0, backward_s = 0, optimizer_s = 0;
  double images_per_sec = 0;  // measured
  std::vector<GradientLayer> layers;
  // What the trainer's fp32 <-> 16-bit wire casts cost on the profiled device, per dtype (empty: an older
  // profile, or a run that could not time them).
  std::vector<WireCastCost> wire_casts;
  // Every timed step's total seconds: their spread is how far ranks drift apart per step (schedule.h).
  std::vector<double> step_s;
};

// UsageError (one line naming `source`) unless r is a training result with a 1-device entry that trained
// (not --forward-only / --input-only) and carries the gradient profile.
StepProfile step_profile_from(const RunResult& r, const std::string& source);

// The profile's cast cost for a 16-bit wire dtype; nullptr when it has none.
const WireCastCost* wire_cast_cost(const StepProfile& p, DType wire);

// Scales every time of the profile by one factor so that its 1-device rate becomes images_per_sec: the shape of
// the step (forward/backward/optimizer shares, when each layer's gradients are ready) measured here, the speed
// of a device one does not have (a published or vendor figure). The per-step samples are dropped: how much this
// machine's steps vary says nothing about the other device's. The casts' cost scales by the same factor.
// UsageError unless images_per_sec > 0.
void rescale_profile(StepProfile& p, double images_per_sec);

// Moves the profile to another per-device batch: input wait, forward, backward and each layer's ready time scale
// with the batch (the profiled cost per sample kept), the optimizer's does not (it works per parameter); the
// rate follows from the new step. UsageError unless 1 <= batch <= 65536, the range a training run takes.
void rebatch_profile(StepProfile& p, int64_t batch);

}  // namespace mg
