// A model instantiated on one backend: the LayerOps of a ModelDesc, their activation and gradient buffers,
// and the forward / backward walks over the DAG. The network owns no parameters (ParamStore does).
#pragma once
#include <functional>
#include <memory>
#include <vector>

#include "backend/backend.h"
#include "backend/device_buffer.h"
#include "models/layer_desc.h"
#include "train/param_store.h"

namespace mg {

class Network {
 public:
  // training=false allocates no gradient buffers (--forward-only).
  Network(Backend& be, const ModelDesc& model, int64_t batch, int64_t image_size, Precision precision,
          uint64_t seed, bool training);
  ~Network();

  // Parameter shapes per layer, from the ops (for ParamStore).
  std::vector<std::vector<ParamShape>> param_shapes() const;
  void bind(const ParamStore& store);

  // images: fp32 NHWC {N,3,H,W} on the device.
  void forward(const Tensor& images, bool training);
  // Mean softmax cross-entropy against labels; dlogits scaled by loss_scale. The loss stays on the device
  // (loss_tensor()) so nothing here synchronises.
  void loss(const Tensor& labels, float loss_scale);
  // Backward through every layer in reverse order; after_layer(i) runs once layer i's parameter gradients
  // are complete (on the Compute stream), which is when gradient buckets may be launched.
  void backward(bool accumulate_param_grads, const std::function<void(int)>& after_layer);

  const Tensor& logits() const { return out_.back(); }
  const Tensor& loss_tensor() const { return loss_; }
  const Shape& output_shape(int layer) const { return out_[layer].shape; }
  size_t num_layers() const { return ops_.size(); }

 private:
  Backend& be_;
  const ModelDesc& model_;
  DType act_;
  std::vector<std::unique_ptr<LayerOp>> ops_;  // ops_[0] is null (input)
  std::vector<Tensor> out_, grad_;             // per layer output and d(loss)/d(output)
  std::vector<DeviceBuffer> buffers_;
  std::vector<Tensor> scratch_;                // for inputs read by several layers: gradients are summed
  Tensor loss_;
};

}  // namespace mg
