// Dynamic loss scaling for fp16 training (the scheme of apex and torch.cuda.amp.GradScaler): the loss is
// multiplied by a scale before backward so small gradients survive fp16; a step whose gradients overflowed is
// skipped and the scale halved; after `growth_interval` good steps in a row it doubles.
//
// Data-parallel replicas must take the same decision at the same step, or they would apply (or skip) updates
// from gradients summed at different scales. So the decision is read from the gradients *after* the
// all-reduce, which every replica holds identically (a non-finite value on any replica is non-finite in the
// sum), never from a replica's own loss.
#pragma once
#include <cstdint>

#include "backend/backend.h"

namespace mg {

class LossScaler {
 public:
  // enabled=false: scale stays 1 and no step is ever skipped (fp32, tf32, bf16).
  LossScaler(bool enabled, float initial_scale, int growth_interval = 2000);

  float scale() const { return scale_; }
  bool enabled() const { return enabled_; }
  int64_t overflow_steps() const { return overflow_steps_; }

  // After gradient synchronisation (on the Compute stream): counts non-finite values in the synchronised
  // gradients (this waits for them), updates the scale and returns whether the step must be skipped.
  bool check_and_update(Backend& be, const Tensor& synced_grads);
  // The same decision from an already computed count.
  bool update(int64_t nonfinite);

 private:
  bool enabled_;
  float scale_;
  int growth_interval_;
  int good_steps_ = 0;
  int64_t overflow_steps_ = 0;
};

}  // namespace mg
