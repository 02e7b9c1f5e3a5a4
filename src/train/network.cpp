#include "train/network.h"

#include <algorithm>

#include "core/error.h"

namespace mg {

Network::Network(Backend& be, const ModelDesc& model, int64_t batch, int64_t image_size, Precision precision,
                 uint64_t seed, bool training)
    : be_(be), model_(model), act_(activation_dtype(precision)) {
  const std::vector<Shape> shapes = infer_shapes(model, batch, image_size);
  const size_t n = model.layers.size();
  ops_.resize(n);
  out_.resize(n);
  grad_.resize(n);
  auto alloc = [&](const Shape& s, DType t) {
    buffers_.emplace_back(be, static_cast<size_t>(s.numel()) * dtype_size(t));
    return buffers_.back().tensor(s, t);
  };
  size_t max_inputs = 0;
  int64_t max_numel = 0;
  for (size_t i = 0; i < n; ++i) {
    const LayerDesc& l = model.layers[i];
    out_[i] = alloc(shapes[i], act_);
    if (i == 0) continue;
    std::vector<Shape> in;
    for (int j : l.inputs) in.push_back(shapes[j]);
    LayerOptions opt;
    opt.precision = precision;
    opt.seed = seed * 1000003ull + i;
    opt.backward = training;
    opt.input_grad = std::any_of(l.inputs.begin(), l.inputs.end(), [](int j) { return j != 0; });
    ops_[i] = be.create_layer(l, in, opt);
    MG_ENSURE(ops_[i]->output_shape() == shapes[i],
              "layer " + l.name + " output " + ops_[i]->output_shape().str() + " != " + shapes[i].str());
    max_inputs = std::max(max_inputs, l.inputs.size());
    max_numel = std::max(max_numel, shapes[i].numel());
  }
  if (training) {
    for (size_t i = 1; i < n; ++i) grad_[i] = alloc(shapes[i], act_);
    for (size_t k = 0; k < max_inputs; ++k) scratch_.push_back(alloc(Shape{max_numel}, act_));
  }
  loss_ = alloc(Shape{1}, DType::F32);
}

Network::~Network() = default;

std::vector<std::vector<ParamShape>> Network::param_shapes() const {
  std::vector<std::vector<ParamShape>> v(ops_.size());
  for (size_t i = 1; i < ops_.size(); ++i) v[i] = ops_[i]->params();
  return v;
}

void Network::bind(const ParamStore& store) {
  for (size_t i = 1; i < ops_.size(); ++i) {
    ops_[i]->bind(store.layer_params(static_cast<int>(i)), store.layer_grads(static_cast<int>(i)));
  }
}

void Network::forward(const Tensor& images, bool training) {
  MG_ENSURE(images.shape == out_[0].shape, "input batch " + images.shape.str() + " != " + out_[0].shape.str());
  be_.cast(out_[0], images);  // fp32 -> activation dtype (a copy at fp32)
  for (size_t i = 1; i < ops_.size(); ++i) {
    std::vector<Tensor> in;
    for (int j : model_.layers[i].inputs) in.push_back(out_[j]);
    ops_[i]->forward(in, out_[i], training);
  }
}

void Network::loss(const Tensor& labels, float loss_scale) {
  be_.softmax_xent(out_.back(), labels, loss_, grad_.empty() ? Tensor{} : grad_.back(), loss_scale);
}

void Network::backward(bool accumulate_param_grads, const std::function<void(int)>& after_layer) {
  MG_ENSURE(!scratch_.empty() || ops_.size() <= 1, "backward on a network built for inference");
  const size_t n = ops_.size();
  // written[j]: layer j's output gradient already holds one consumer's contribution this pass.
  std::vector<bool> written(n, false);
  written[n - 1] = true;  // from the loss
  for (size_t i = n - 1; i >= 1; --i) {
    const LayerDesc& l = model_.layers[i];
    std::vector<Tensor> in, din;
    std::vector<std::pair<int, size_t>> pending_adds;  // (producer, scratch slot)
    for (size_t k = 0; k < l.inputs.size(); ++k) {
      const int j = l.inputs[k];
      in.push_back(out_[j]);
      if (j == 0) {
        din.push_back(Tensor{});  // the images need no gradient
      } else if (!written[j]) {
        din.push_back(grad_[j]);
        written[j] = true;
      } else {
        Tensor s = scratch_[k];
        s.shape = out_[j].shape;
        din.push_back(s);
        pending_adds.emplace_back(j, k);
      }
    }
    ops_[i]->backward(in, out_[i], grad_[i], din, accumulate_param_grads);
    for (auto [j, k] : pending_adds) {
      Tensor s = scratch_[k];
      s.shape = out_[j].shape;
      be_.add_inplace(grad_[j], s);
    }
    if (after_layer) after_layer(static_cast<int>(i));
  }
}

}  // namespace mg
