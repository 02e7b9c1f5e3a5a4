// What every backend's layers share: the shapes a layer is built for (from models/, layer_shapes), the checks on
// its inputs, parameter binding, and the LayerKind -> factory table a backend creates its layers from. A
// backend's layer base (CpuLayer, CudaLayer) derives from LayerBase and adds only its device plumbing.
#pragma once
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "backend/backend.h"
#include "core/error.h"

namespace mg {

class LayerBase : public LayerOp {
 public:
  Shape output_shape() const override { return out_shape_; }
  std::vector<ParamShape> params() const override { return param_shapes_; }
  void bind(const std::vector<float*>& params, const std::vector<float*>& grads) override;

 protected:
  // act: the activation dtype the backend runs the precision at (the backend has checked it supports it).
  // Throws UsageError naming the layer when the inputs do not make the layer (layer_shapes).
  LayerBase(const LayerDesc& d, const std::vector<Shape>& in_shapes, const LayerOptions& opt, DType act);

  void check_bound() const;
  void check_io(const std::vector<Tensor>& in, const Tensor& out) const;
  // check_io for a layer whose one input is the network's int32 token ids (Embedding), not activations.
  void check_token_io(const std::vector<Tensor>& in, const Tensor& out) const;
  std::string where() const { return "layer " + desc_.name + ": "; }

  const LayerDesc desc_;
  const std::vector<Shape> in_shapes_;
  const Shape out_shape_;
  const DType dt_;  // activation dtype
  const LayerOptions opt_;
  const std::vector<ParamShape> param_shapes_;
  std::vector<float*> params_, grads_;

 private:
  LayerBase(const LayerDesc& d, const std::vector<Shape>& in_shapes, const LayerOptions& opt, DType act,
            LayerShapes shapes);
};

// What a backend's layer is built from: the replica's backend, the description, its input shapes and options.
template <typename B>
struct LayerArgs {
  B& be;
  const LayerDesc& d;
  const std::vector<Shape>& in;
  const LayerOptions& opt;
};

// A backend's layers by kind. Each layer family (one file) lists its rows with layer_row<Class>; the backend
// joins the families' rows into its table once.
template <typename B>
using LayerFactory = std::unique_ptr<LayerOp> (*)(const LayerArgs<B>&);
template <typename B>
struct LayerRow {
  LayerKind kind;
  LayerFactory<B> make;
};
template <typename B>
using LayerRows = std::vector<LayerRow<B>>;

template <typename L, typename B>
LayerRow<B> layer_row(LayerKind kind) {
  return {kind, [](const LayerArgs<B>& a) -> std::unique_ptr<LayerOp> { return std::make_unique<L>(a); }};
}

// A backend's table: its families' rows, joined.
template <typename B>
LayerRows<B> join_families(std::initializer_list<LayerRows<B> (*)()> families) {
  LayerRows<B> t;
  for (auto family : families)
    for (const LayerRow<B>& r : family()) t.push_back(r);
  return t;
}

// Creates desc's layer from the table, after check_layer_inputs (wrong input count, kinds no backend computes)
// and the checks that a fused ReLU or residual add is one the backend offers.
template <typename B>
std::unique_ptr<LayerOp> create_layer_from(const LayerRows<B>& table, B& be, const LayerDesc& desc,
                                           const std::vector<Shape>& in_shapes, const LayerOptions& opt) {
  check_layer_inputs(desc, in_shapes.size());
  if (opt.relu && !be.fuses_relu(desc.kind)) {
    throw UsageError("layer " + desc.name + ": " + device_kind_name(be.kind()) + " has no " +
                     layer_kind_name(desc.kind) + " with a fused ReLU");
  }
  // The add comes before the Add's ReLU, so it cannot follow a ReLU of the layer's own.
  if ((opt.add_input || opt.add_relu) &&
      !(opt.add_input && !opt.relu && be.fuses_add(desc.kind, opt.precision))) {
    throw UsageError("layer " + desc.name + ": " + device_kind_name(be.kind()) + " has no " +
                     layer_kind_name(desc.kind) + " with a fused residual add");
  }
  for (const LayerRow<B>& r : table)
    if (r.kind == desc.kind) return r.make({be, desc, in_shapes, opt});
  throw UsageError("layer " + desc.name + ": no " + device_kind_name(be.kind()) + " implementation of " +
                   layer_kind_name(desc.kind));
}

}  // namespace mg
