// The model's trainable state on one replica: parameters, their gradients and the optimizer's state, each one
// flat fp32 buffer in layer order. Flat storage is what makes gradient buckets contiguous ranges (all-reduced without
// packing) and lets the optimizer run as one fused update. A tied tensor (ParamShape::tied_layer) has no storage of
// its own: the layer that ties it is handed its target's, so it is updated and exchanged once.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "backend/device_buffer.h"

namespace mg {

struct ParamEntry {
  int layer = 0;
  std::string name;
  Shape shape;
  size_t offset = 0;  // elements into the flat buffers
  size_t count = 0;
  float init_std = 0;  // > 0: starts N(0, init_std) (models/layer_desc.h)
};

class ParamStore {
 public:
  // per_layer[i]: layer i's parameter tensors; second_moment: AdamW's (momentum() then holds its first moment).
  // Throws Error for a tie to a tensor no earlier layer owns with that name and shape.
  ParamStore(Backend& be, const std::vector<std::vector<ParamShape>>& per_layer, bool second_moment = false);

  size_t size() const { return total_; }
  float* params() const { return params_.as<float>(); }
  float* grads() const { return grads_.as<float>(); }
  float* momentum() const { return momentum_.as<float>(); }
  float* second_moment() const { return second_moment_.as<float>(); }  // null unless asked for
  // The stored tensors, each once (a tied tensor is its owner's entry), in flat order.
  const std::vector<ParamEntry>& entries() const { return entries_; }
  // Pointers for LayerOp::bind, for layer i, in its parameters' order (a tied tensor: its owner's storage).
  std::vector<float*> layer_params(int layer) const;
  std::vector<float*> layer_grads(int layer) const;
  // Layers that share a tensor with another layer (a tie and its owner), ascending: their backward must add to
  // their gradients, not overwrite them (ModelGraph::backward).
  std::vector<int> sharing_layers() const;
  // Layer owning flat element `index`.
  int layer_of(size_t index) const;

  // Deterministic initialisation from seed, identical on every replica and backend: weights uniform in
  // +-sqrt(6/fan_in) (He/Kaiming uniform for ReLU nets) unless their layer sets init_std (then N(0, init_std),
  // position tables too), biases and betas 0, gammas 1; moments 0.
  void initialize(uint64_t seed);
  std::vector<float> download_params() const;
  std::vector<float> download_grads() const;
  // FNV-1a over the parameter bytes: replicas that stayed in sync have equal checksums.
  uint64_t checksum() const;

 private:
  Backend& be_;
  std::vector<ParamEntry> entries_;
  std::vector<std::vector<size_t>> layer_entries_;  // per layer: the entry of each of its tensors, in its order
  size_t total_ = 0;
  DeviceBuffer params_, grads_, momentum_, second_moment_;
};

}  // namespace mg
