#include "train/model_graph.h"

#include <algorithm>

#include "core/error.h"
#include "train/memory_plan.h"
#include "train/relu_fusion.h"

namespace mg {

namespace {

// An Add passes one gradient to both inputs (masked, with a fused ReLU), so when it is the first consumer of both
// in the backward walk their gradients can be one buffer the Add writes once: shared[b] = a. That holds while
// nothing writes the buffer before both producers have read it: every other consumer of one input (which adds
// its contribution to that input's gradient) must run its backward after the other input's producer.
// producer[x]: the layer whose backward reads x's output gradient (a fused ReLU's producer, else x).
std::vector<int> shared_add_grads(const ModelDesc& m, const std::vector<int>& producer,
                                  const std::vector<int>& last_use) {
  const int n = static_cast<int>(m.layers.size());
  const std::vector<std::vector<int>> readers = layer_readers(m);
  // Every consumer of x other than `add` runs its backward after layer `after`'s (lower index, later step).
  auto others_after = [&](int x, int add, int after) {
    for (int c : readers[x]) {
      if (c != add && c >= after) return false;
    }
    return true;
  };
  std::vector<int> shared(n, -1);
  for (int i = 1; i < n; ++i) {
    const LayerDesc& l = m.layers[i];
    if (l.kind != LayerKind::Add || l.inputs.size() != 2) continue;
    const int a = l.inputs[0], b = l.inputs[1];
    if (a == 0 || b == 0 || a == b || last_use[a] != i || last_use[b] != i) continue;
    if (others_after(a, i, producer[b]) && others_after(b, i, producer[a])) shared[b] = a;
  }
  return shared;
}

}  // namespace

ModelGraph::ModelGraph(Backend& be, const ModelDesc& model, int64_t batch, int64_t image_size, Precision precision,
                       uint64_t seed, bool training, bool reuse_buffers, bool fuse_layers)
    : be_(be), model_(model), act_(activation_dtype(precision)), training_(training) {
  const std::vector<Shape> shapes = infer_shapes(model, batch, image_size);
  const int n = static_cast<int>(model.layers.size());
  ops_.resize(n);
  out_.resize(n);
  grad_.resize(n);
  // fused[i] = j: ReLU i is computed by layer j, so it has no op, its output is j's and j's output gradient is
  // its own (relu_of[j] = i).
  const std::vector<int> fused = fuse_layers ? relu_fusion(model, be) : std::vector<int>(n, -1);
  std::vector<int> relu_of(n, -1);
  for (int i = 1; i < n; ++i) {
    if (fused[i] >= 0) relu_of[fused[i]] = i;
  }
  const std::vector<std::vector<int>> readers = layer_readers(model);
  // In place: a ReLU that is the only reader of a Conv, BatchNorm or Add output overwrites it, and so does an
  // Add over an input it alone reads (the later one: the batch norm right before an Add may then compute it).
  // Those layers' backward never reads their output, ReLU's reads only its own, and only the last writer of a
  // shared buffer reads it in backward (backend.h), so each chain keeps one activation.
  // inplace_of[i] = j: layer i's output is layer j's buffer. A fused ReLU is its producer's output, with or
  // without buffer reuse.
  std::vector<int> inplace_of(n, -1);
  auto root = [&](int j) { return inplace_of[j] >= 0 ? inplace_of[j] : j; };
  auto overwritable = [&](int j) {
    const LayerKind k = model.layers[j].kind;
    return j != 0 && readers[j].size() == 1 &&
           (k == LayerKind::Conv || k == LayerKind::BatchNorm || k == LayerKind::Add);
  };
  for (int i = 1; i < n; ++i) {
    const LayerDesc& l = model.layers[i];
    if (fused[i] >= 0) {
      inplace_of[i] = root(fused[i]);
    } else if (reuse_buffers && l.kind == LayerKind::Relu && l.inputs.size() == 1 && overwritable(l.inputs[0])) {
      inplace_of[i] = root(l.inputs[0]);
    } else if (reuse_buffers && l.kind == LayerKind::Add && l.inputs.size() == 2 && l.inputs[0] != l.inputs[1]) {
      for (int j : {std::max(l.inputs[0], l.inputs[1]), std::min(l.inputs[0], l.inputs[1])}) {
        if (!overwritable(j)) continue;
        inplace_of[i] = root(j);
        break;
      }
    }
  }
  // add_into[j] = i: batch norm j, right before the Add i that runs in place over it, computes the Add (with its
  // fused ReLU) as it writes its output; the Add keeps its op for backward only.
  add_into_.assign(n, -1);
  if (fuse_layers) {
    for (int i = 2; i < n; ++i) {
      const LayerDesc& l = model.layers[i];
      const int j = i - 1;
      if (l.kind != LayerKind::Add || inplace_of[i] != root(j)) continue;
      if (model.layers[j].kind == LayerKind::BatchNorm && be.fuses_add(LayerKind::BatchNorm, precision))
        add_into_[j] = i;
    }
  }
  for (int i = 1; i < n; ++i) {
    if (fused[i] >= 0) continue;
    const LayerDesc& l = model.layers[i];
    std::vector<Shape> in;
    for (int j : l.inputs) in.push_back(shapes[j]);
    LayerOptions opt;
    opt.precision = precision;
    opt.seed = seed * 1000003ull + i;
    opt.backward = training;
    opt.input_grad = std::any_of(l.inputs.begin(), l.inputs.end(), [](int j) { return j != 0; });
    opt.relu = relu_of[i] >= 0;
    if (add_into_[i] >= 0) {
      opt.add_input = true;
      opt.add_relu = relu_of[add_into_[i]] >= 0;
    }
    ops_[i] = be.create_layer(l, in, opt);
    MG_ENSURE(ops_[i]->output_shape() == shapes[i],
              "layer " + l.name + " output " + ops_[i]->output_shape().str() + " != " + shapes[i].str());
  }
  auto bytes = [&](int layer) { return static_cast<size_t>(shapes[layer].numel()) * dtype_size(act_); };
  // last_use[j]: the highest-numbered layer reading layer j's output.
  std::vector<int> last_use(n, -1);
  for (int i = 1; i < n; ++i) {
    for (int j : model.layers[i].inputs) last_use[j] = std::max(last_use[j], i);
  }
  // Where a buffer's contents must last: to the last reader of any layer writing it in place.
  std::vector<int> last_of(last_use);
  for (int i = 1; i < n; ++i) {
    if (inplace_of[i] >= 0) last_of[inplace_of[i]] = std::max(last_of[inplace_of[i]], std::max(i, last_use[i]));
  }

  // Tensors to place: what each one is, and its lifetime in steps of the walk it lives in.
  struct Placed {
    Tensor* where;
    Shape shape;
  };
  std::vector<Placed> placed;
  std::vector<Lifetime> lifetimes;
  auto place = [&](Tensor* t, const Shape& s, size_t b, int first, int last) {
    placed.push_back({t, s});
    lifetimes.push_back({b, first, last});
  };
  std::vector<Tensor> temporaries;  // the plan fills them; din_ and add_ then copy them
  std::vector<int> shared_of(n, -1);  // shared_of[b] = a: b's output gradient is a's (shared_add_grads)
  std::vector<std::vector<std::pair<int, size_t>>> temp_of(n);  // layer -> (input k or producer j, temporary)
  if (training) {
    // Every activation stays for the backward pass: own buffers.
    for (int i = 0; i < n; ++i) {
      if (inplace_of[i] < 0) place(&out_[i], shapes[i], bytes(i), 0, 2 * n);
    }
    // Backward walk: step 0 is the loss, step n - i is layer i's backward.
    temporaries.reserve(static_cast<size_t>(n) * 4);
    std::vector<int> born(n, -1);
    born[n - 1] = 0;
    din_.assign(n, {});
    add_.assign(n, {});
    for (int i = n - 1; i >= 1; --i) {
      const int step = n - i;
      const auto& ins = model.layers[i].inputs;
      for (size_t k = 0; k < ins.size(); ++k) {
        const int j = ins[k];
        if (j == 0) continue;
        if (born[j] < 0) {
          born[j] = step;
        } else {
          temp_of[i].emplace_back(static_cast<int>(k), temporaries.size());
          temporaries.emplace_back();
        }
      }
    }
    // A fused pair's one gradient lives from the ReLU's first consumer to the producer's step; an Add's shared
    // input gradient to the later of its two readers' steps.
    std::vector<int> producer(n);
    for (int j = 0; j < n; ++j) producer[j] = fused[j] >= 0 ? fused[j] : j;
    if (reuse_buffers) shared_of = shared_add_grads(model, producer, last_use);
    std::vector<int> last(n);
    for (int j = 1; j < n; ++j) last[j] = n - producer[j];
    for (int j = 1; j < n; ++j) {
      if (shared_of[j] >= 0) last[shared_of[j]] = std::max(last[shared_of[j]], last[j]);
    }
    for (int j = 1; j < n; ++j) {
      if (relu_of[j] >= 0 || shared_of[j] >= 0) continue;
      place(&grad_[j], shapes[j], bytes(j), std::min(born[j] < 0 ? last[j] : born[j], last[j]), last[j]);
    }
    for (int i = 1; i < n; ++i) {
      for (auto [k, t] : temp_of[i]) {
        const int j = model.layers[i].inputs[k];
        place(&temporaries[t], shapes[j], bytes(j), n - i, n - i);
      }
    }
  } else {
    // Inference: layer i's output lives from its forward step to its last reader's; the logits to the end.
    for (int i = 0; i < n; ++i) {
      if (inplace_of[i] < 0) place(&out_[i], shapes[i], bytes(i), i, std::max(i, last_of[i]));
    }
    const int logits = inplace_of[n - 1] >= 0 ? inplace_of[n - 1] : n - 1;
    for (size_t t = 0; t < placed.size(); ++t) {
      if (placed[t].where == &out_[logits]) lifetimes[t].last = n;
    }
  }

  const MemoryPlan plan = plan_memory(lifetimes, reuse_buffers);
  for (size_t b : plan.buffer_bytes) buffers_.emplace_back(be, b);
  for (size_t t = 0; t < placed.size(); ++t) {
    *placed[t].where = buffers_[plan.buffer_of[t]].tensor(placed[t].shape, act_);
  }
  for (int i = 1; i < n; ++i) {
    if (inplace_of[i] >= 0) out_[i] = Tensor{out_[inplace_of[i]].data, shapes[i], act_};
  }
  if (training) {
    for (int j = 1; j < n; ++j) {
      if (shared_of[j] >= 0) grad_[j] = Tensor{grad_[shared_of[j]].data, shapes[j], act_};
    }
    for (int j = 1; j < n; ++j) {
      if (relu_of[j] >= 0) grad_[j] = grad_[relu_of[j]];
    }
    for (int i = n - 1; i >= 1; --i) {
      const auto& ins = model.layers[i].inputs;
      din_[i].resize(ins.size());
      for (size_t k = 0; k < ins.size(); ++k) {
        // The images need no gradient, and an Add writes a shared gradient once: empty tensors.
        const bool second = model.layers[i].kind == LayerKind::Add && k == 1 && shared_of[ins[k]] == ins[0];
        if (ins[k] != 0 && !second) din_[i][k] = grad_[ins[k]];
      }
      for (auto [k, t] : temp_of[i]) {
        din_[i][k] = temporaries[t];
        add_[i].emplace_back(ins[k], temporaries[t]);
      }
    }
  }
  buffers_.emplace_back(be, sizeof(float));
  loss_ = buffers_.back().tensor(Shape{1}, DType::F32);
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
}

void ModelGraph::forward(const Tensor& images, bool training) {
  MG_ENSURE(images.shape == out_[0].shape, "input batch " + images.shape.str() + " != " + out_[0].shape.str());
  be_.cast(out_[0], images);  // fp32 -> activation dtype (a copy at fp32)
  for (size_t i = 1; i < ops_.size(); ++i) {
    if (!ops_[i]) continue;                                  // a ReLU fused into its producer
    if (add_into_[i - 1] == static_cast<int>(i)) continue;  // an Add its batch norm computed
    std::vector<Tensor> in;
    for (int j : model_.layers[i].inputs) in.push_back(out_[j]);
    if (const int a = add_into_[i]; a >= 0) {
      const auto& ins = model_.layers[a].inputs;
      in.push_back(out_[ins[0] == static_cast<int>(i) ? ins[1] : ins[0]]);
    }
    ops_[i]->forward(in, out_[i], training);
  }
}

void ModelGraph::loss(const Tensor& labels, float loss_scale) {
  be_.softmax_xent(out_.back(), labels, loss_, grad_.empty() ? Tensor{} : grad_.back(), loss_scale);
}

void ModelGraph::backward(bool accumulate_param_grads, const std::function<void(int)>& after_layer) {
  MG_ENSURE(training_, "backward on a model graph built for inference");
  for (size_t i = ops_.size() - 1; i >= 1; --i) {
    if (ops_[i]) {
      std::vector<Tensor> in;
      for (int j : model_.layers[i].inputs) in.push_back(out_[j]);
      ops_[i]->backward(in, out_[i], grad_[i], din_[i], accumulate_param_grads);
    }
    for (const auto& [j, t] : add_[i]) be_.add_inplace(grad_[j], t);
    if (after_layer) after_layer(static_cast<int>(i));
  }
}

}  // namespace mg
