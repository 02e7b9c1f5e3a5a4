#include "train/loss_scaler.h"

#include <algorithm>

#include "core/error.h"

namespace mg {

LossScaler::LossScaler(bool enabled, float initial_scale, int growth_interval)
    : enabled_(enabled), scale_(enabled ? initial_scale : 1.0f), growth_interval_(growth_interval) {
  if (enabled && !(initial_scale > 0)) throw UsageError("--loss-scale must be positive");
  MG_ENSURE(growth_interval > 0, "LossScaler: growth interval must be positive");
}

bool LossScaler::check_and_update(Backend& be, const Tensor& synced_grads) {
  if (!enabled_) return false;
  return update(be.count_nonfinite(synced_grads));
}

bool LossScaler::update(int64_t nonfinite) {
  if (!enabled_) return false;
  if (nonfinite > 0) {
    ++overflow_steps_;
    scale_ = std::max(1.0f, scale_ * 0.5f);
    good_steps_ = 0;
    return true;
  }
  if (++good_steps_ == growth_interval_) {
    scale_ *= 2.0f;
    good_steps_ = 0;
  }
  return false;
}

}  // namespace mg
