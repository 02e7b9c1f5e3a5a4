// Training a bound network on one fixed batch, step after step, and the loss of each step: what `mgbench check`'s
// training row, the memorisation tests and the GPU tests run, where a network that learns drives it to zero.
#pragma once
#include <functional>
#include <vector>

#include "backend/backend.h"
#include "backend/device_buffer.h"
#include "train/model_graph.h"
#include "train/param_store.h"

namespace mg {

// A batch of uniform images in [-1, 1) and labels below `classes`, drawn by the backend's counter-based fill: the
// same values on every backend.
struct UniformImageBatch {
  DeviceBuffer images, labels;
  Tensor x, y;
};
UniformImageBatch uniform_image_batch(Backend& be, int64_t batch, int64_t image, int64_t classes);

// Each step: forward, the loss at loss_scale(), backward, then update(that scale).
std::vector<float> fixed_batch_losses(Backend& be, ModelGraph& net, const Tensor& x, const Tensor& y, int steps,
                                      const std::function<float()>& loss_scale,
                                      const std::function<void(float)>& update);

// SGD with momentum 0.9, no weight decay and no loss scaling.
std::vector<float> fixed_batch_sgd_losses(Backend& be, ModelGraph& net, const ParamStore& store, const Tensor& x,
                                          const Tensor& y, int steps, float lr);

}  // namespace mg
