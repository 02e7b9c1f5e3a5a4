#include "train/model_graph.h"

#include "core/error.h"

namespace mg {

ModelGraph::ModelGraph(Backend& be, const ModelDesc& model, int64_t batch, int64_t image_size, Precision precision,
                       uint64_t seed, bool training, bool reuse_buffers, bool fuse_layers)
    : be_(be), model_(model), act_(activation_dtype(precision)), training_(training) {
  GraphPlanOptions o;
  o.batch = batch;
  o.image_size = image_size;
  o.precision = precision;
  o.training = training;
  o.reuse_buffers = reuse_buffers;
  o.fuse_layers = fuse_layers;
  o.caps = fusion_caps(be, precision);
  plan_ = plan_graph(model, o);
  create_ops(precision, seed);
  create_buffers();
}

void ModelGraph::create_ops(Precision precision, uint64_t seed) {
  const int n = static_cast<int>(model_.layers.size());
  ops_.resize(n);
  for (int i = 1; i < n; ++i) {
    const LayerPlan& p = plan_.layers[i];
    if (!p.has_op) continue;
    const LayerDesc& l = model_.layers[i];
    std::vector<Shape> in;
    for (int j : l.inputs) in.push_back(plan_.layers[j].shape);
    LayerOptions opt;
    opt.precision = precision;
    opt.seed = seed * 1000003ull + i;
    opt.backward = training_;
    opt.input_grad = p.input_grad;
    opt.relu = p.relu >= 0;
    if (p.add >= 0) {
      opt.add_input = true;
      opt.add_relu = plan_.layers[p.add].relu >= 0;
    }
    ops_[i] = be_.create_layer(l, in, opt);
    MG_ENSURE(ops_[i]->output_shape() == p.shape,
              "layer " + l.name + " output " + ops_[i]->output_shape().str() + " != " + p.shape.str());
  }
}

void ModelGraph::create_buffers() {
  const int n = static_cast<int>(model_.layers.size());
  for (size_t b : plan_.buffer_bytes) buffers_.emplace_back(be_, b);
  auto at = [&](int buffer, const Shape& s) { return buffers_[buffer].tensor(s, act_); };
  out_.resize(n);
  grad_.resize(n);
  for (int i = 0; i < n; ++i) out_[i] = at(plan_.layers[i].out_buffer, plan_.layers[i].shape);
  out_[0].dtype = plan_.input;
  if (training_) {
    din_.resize(n);
    add_.resize(n);
    for (int i = 1; i < n; ++i) {
      const LayerPlan& p = plan_.layers[i];
      grad_[i] = at(p.grad_buffer, p.shape);
      const auto& ins = model_.layers[i].inputs;
      din_[i].resize(ins.size());
      for (size_t k = 0; k < ins.size(); ++k) {
        const InputGradPlan& g = p.input_grads[k];
        if (g.buffer >= 0) din_[i][k] = at(g.buffer, plan_.layers[ins[k]].shape);
        if (g.temporary >= 0) add_[i].emplace_back(ins[k], din_[i][k]);
      }
    }
  }
  loss_ = buffers_[plan_.loss_buffer].tensor(Shape{1}, DType::F32);
}

size_t ModelGraph::buffer_bytes() const {
  size_t total = 0;
  for (const DeviceBuffer& b : buffers_) total += b.bytes();
  return total;
}

ModelGraph::~ModelGraph() = default;

std::vector<std::vector<ParamShape>> ModelGraph::param_shapes() const {
  std::vector<std::vector<ParamShape>> v(ops_.size());
  for (size_t i = 1; i < ops_.size(); ++i) {
    if (ops_[i]) v[i] = ops_[i]->params();
  }
  return v;
}

void ModelGraph::bind(const ParamStore& store) {
  for (size_t i = 1; i < ops_.size(); ++i) {
    if (!ops_[i]) continue;
    ops_[i]->bind(store.layer_params(static_cast<int>(i)), store.layer_grads(static_cast<int>(i)));
  }
  shares_.assign(ops_.size(), false);
  shared_grads_.clear();
  for (int l : store.sharing_layers()) shares_[static_cast<size_t>(l)] = true;
  for (const ParamEntry& e : store.entries())
    if (shares_[static_cast<size_t>(e.layer)])
      shared_grads_.push_back(Tensor{store.grads() + e.offset, e.shape, DType::F32});
}

void ModelGraph::forward(const Tensor& images, bool training, const std::function<void(int)>& after_layer) {
  MG_ENSURE(images.shape == out_[0].shape, "input batch " + images.shape.str() + " != " + out_[0].shape.str());
  if (out_[0].dtype == DType::I32) {  // a language model's token ids, as they are
    MG_ENSURE(images.dtype == DType::I32, "token ids must be int32, got " + std::string(dtype_name(images.dtype)));
    be_.copy_d2d(out_[0].data, images.data, images.bytes(), StreamKind::Compute);
  } else {
    be_.cast(out_[0], images);  // fp32 -> activation dtype (a copy at fp32)
  }
  if (after_layer) after_layer(0);
  for (size_t i = 1; i < ops_.size(); ++i) {
    if (!ops_[i]) continue;                                  // a ReLU fused into its producer
    if (plan_.layers[i].add_by >= 0) continue;                // an Add its batch norm computed
    std::vector<Tensor> in;
    for (int j : model_.layers[i].inputs) in.push_back(out_[j]);
    if (const int a = plan_.layers[i].add; a >= 0) {
      const auto& ins = model_.layers[a].inputs;
      in.push_back(out_[ins[0] == static_cast<int>(i) ? ins[1] : ins[0]]);
    }
    ops_[i]->forward(in, out_[i], training);
    if (after_layer) after_layer(static_cast<int>(i));
  }
}

void ModelGraph::loss(const Tensor& labels, float loss_scale) {
  be_.softmax_xent(out_.back(), labels, loss_, grad_.empty() ? Tensor{} : grad_.back(), loss_scale);
}

void ModelGraph::backward(bool accumulate_param_grads, const std::function<void(int)>& after_layer) {
  MG_ENSURE(training_, "backward on a model graph built for inference");
  // Every user of a shared tensor adds its part, so none may start from last step's sum.
  if (!accumulate_param_grads)
    for (const Tensor& g : shared_grads_) be_.fill(g, 0.0f);
  for (size_t i = ops_.size() - 1; i >= 1; --i) {
    if (ops_[i]) {
      std::vector<Tensor> in;
      for (int j : model_.layers[i].inputs) in.push_back(out_[j]);
      const bool shared = i < shares_.size() && shares_[i];
      ops_[i]->backward(in, out_[i], grad_[i], din_[i], accumulate_param_grads || shared);
    }
    for (const auto& [j, t] : add_[i]) be_.add_inplace(grad_[j], t);
    if (after_layer) after_layer(static_cast<int>(i));
  }
}

}  // namespace mg
