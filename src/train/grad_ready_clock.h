// The step profile `mgbench predict` needs: when, within backward, each parameter-owning layer's gradients were
// complete. One Compute-stream event per such layer, recorded from ModelGraph::backward's after_layer hook, so the
// times are device time like every other part of the step.
#pragma once
#include <memory>
#include <vector>

#include "backend/backend.h"
#include "result/run_result.h"
#include "train/param_store.h"

namespace mg {

class GradReadyClock {
 public:
  GradReadyClock(Backend& be, const ParamStore& store);

  // From the after_layer hook of the backward that syncs; layers without parameters are ignored.
  void on_layer_done(int layer);
  // Seconds from backward_start to each layer's event, in flat gradient order (the step must be synchronised).
  std::vector<double> ready_times(Event& backward_start);
  // The layers with their element counts and ready_s = 0, in flat gradient order.
  const std::vector<GradientLayer>& layers() const { return layers_; }

 private:
  Backend& be_;
  std::vector<GradientLayer> layers_;
  std::vector<int> slot_of_layer_;  // model layer -> index into layers_, -1 when it has no parameters
  std::vector<std::unique_ptr<Event>> done_;
};

}  // namespace mg
