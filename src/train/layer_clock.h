// --layer-times: where one training step's time goes, layer by layer. Compute-stream events recorded between the
// layers by ModelGraph's after_layer hooks, so a layer's time is the device time from the previous layer's event
// to its own, and the parts add up to the step's forward, loss and backward.
#pragma once
#include <memory>
#include <vector>

#include "backend/backend.h"
#include "models/layer_desc.h"
#include "result/run_result.h"

namespace mg {

class LayerClock {
 public:
  LayerClock(Backend& be, const ModelDesc& model);

  void start();  // before the forward
  void forward_done(int layer);
  void loss_done();  // after the loss, before the backward
  void backward_done(int layer);
  // Per layer that recorded an event, in layer order, then the loss (the step must be synchronised).
  std::vector<LayerTime> read();

 private:
  Backend& be_;
  const ModelDesc& model_;
  std::unique_ptr<Event> start_, loss_;
  std::vector<std::unique_ptr<Event>> fwd_, bwd_;
  std::vector<bool> fwd_hit_, bwd_hit_;
  bool loss_hit_ = false;
};

}  // namespace mg
