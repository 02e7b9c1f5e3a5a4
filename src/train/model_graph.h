// A model instantiated on one backend: the LayerOps of a ModelDesc, their activation and gradient buffers,
// and the forward / backward walks over the DAG. The graph owns no parameters (ParamStore does). Which layers
// run in place or fused, and which tensors share which buffers, is the graph plan's (graph_plan.h); the graph
// creates what the plan names.
#pragma once
#include <functional>
#include <memory>
#include <vector>

#include "backend/backend.h"
#include "backend/device_buffer.h"
#include "models/layer_desc.h"
#include "train/graph_plan.h"
#include "train/param_store.h"

namespace mg {

class ModelGraph {
 public:
  // training=false allocates no gradient buffers (--forward-only). reuse_buffers=false gives every tensor its
  // own buffer: the reference the memory plan is tested against. fuse_layers=false keeps every ReLU and Add a
  // layer of its own: the reference the fusions are tested against.
  ModelGraph(Backend& be, const ModelDesc& model, int64_t batch, int64_t image_size, Precision precision,
             uint64_t seed, bool training, bool reuse_buffers = true, bool fuse_layers = true);
  ~ModelGraph();

  // Parameter shapes per layer, from the ops (for ParamStore).
  std::vector<std::vector<ParamShape>> param_shapes() const;
  void bind(const ParamStore& store);

  // images: fp32 NHWC {N,3,H,W} on the device; for a language model, int32 token ids {N,T}. after_layer(i), when
  // given, runs once layer i's forward is enqueued (i = 0: the input's cast; a layer fused into another: never).
  void forward(const Tensor& images, bool training, const std::function<void(int)>& after_layer = nullptr);
  // Mean softmax cross-entropy against labels; dlogits scaled by loss_scale. The loss stays on the device
  // (loss_tensor()) so nothing here synchronises.
  void loss(const Tensor& labels, float loss_scale);
  // Backward through every layer in reverse order; after_layer(i) runs once layer i's parameter gradients
  // are complete (on the Compute stream), which is when gradient buckets may be launched. Layers that share a
  // tensor (ParamStore::sharing_layers) always add to their gradients; the first micro-batch's backward
  // (accumulate_param_grads false) zeroes those layers' gradients first, so a shared tensor's is the sum of its uses.
  void backward(bool accumulate_param_grads, const std::function<void(int)>& after_layer);

  const Tensor& logits() const { return out_.back(); }
  const Tensor& loss_tensor() const { return loss_; }
  const Shape& output_shape(int layer) const { return out_[layer].shape; }
  size_t num_layers() const { return ops_.size(); }
  // Bytes of the activation, gradient and temporary buffers (what the memory plan decides).
  size_t buffer_bytes() const;

 private:
  void create_ops(Precision precision, uint64_t seed);
  void create_buffers();

  Backend& be_;
  const ModelDesc& model_;
  DType act_;
  std::vector<std::unique_ptr<LayerOp>> ops_;  // ops_[0] and fused ReLUs' are null
  std::vector<Tensor> out_, grad_;             // per layer output and d(loss)/d(output)
  std::vector<DeviceBuffer> buffers_;
  // din_[i][k]: where layer i's backward writes the gradient of its input k: the producer's grad_ for the
  // first (highest-numbered) consumer, else a temporary that is then added to it (add_[i] lists those).
  std::vector<std::vector<Tensor>> din_;
  std::vector<std::vector<std::pair<int, Tensor>>> add_;
  GraphPlan plan_;
  std::vector<bool> shares_;          // per layer: it shares a parameter tensor (set by bind)
  std::vector<Tensor> shared_grads_;  // the gradients of those layers' tensors, zeroed at the first micro-batch
  bool training_ = false;
  Tensor loss_;
};

}  // namespace mg
