#include "train/graph_plan.h"

#include <algorithm>
#include <numeric>

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

// The first layer of i's in-place chain (i itself when it has its own output).
int root(const GraphPlan& p, int i) { return p.layers[i].in_place_of >= 0 ? p.layers[i].in_place_of : i; }

// Folded ReLUs, in-place outputs and the Adds batch norms compute.
void plan_fusions(const ModelDesc& m, const GraphPlanOptions& o, GraphPlan& p) {
  const int n = static_cast<int>(m.layers.size());
  const std::vector<int> fused = o.fuse_layers ? relu_fusion(m, o.caps) : std::vector<int>(n, -1);
  const std::vector<std::vector<int>> readers = layer_readers(m);
  for (int i = 1; i < n; ++i) {
    LayerPlan& l = p.layers[i];
    l.has_op = fused[i] < 0;
    l.input_grad = std::any_of(m.layers[i].inputs.begin(), m.layers[i].inputs.end(), [](int j) { return j != 0; });
    if (fused[i] >= 0) {
      l.relu_by = fused[i];
      p.layers[fused[i]].relu = i;
    }
  }
  // In place: a ReLU that is the only reader of a Conv, Linear, BatchNorm or Add output overwrites it, and so does
  // an Add over an input it alone reads (the later one: the batch norm right before an Add may then compute it;
  // a transformer's residual Add takes its projection's output).
  // Those layers' backward never reads their output, ReLU's reads only its own, and only the last writer of a
  // shared buffer reads it in backward (backend.h), so each chain keeps one activation. A fused ReLU is its
  // producer's output, with or without buffer reuse.
  auto overwritable = [&](int j) {
    const LayerKind k = m.layers[j].kind;
    return j != 0 && readers[j].size() == 1 &&
           (k == LayerKind::Conv || k == LayerKind::Linear || k == LayerKind::BatchNorm || k == LayerKind::Add);
  };
  for (int i = 1; i < n; ++i) {
    const LayerDesc& l = m.layers[i];
    int& over = p.layers[i].in_place_of;
    if (fused[i] >= 0) {
      over = root(p, fused[i]);
    } else if (o.reuse_buffers && l.kind == LayerKind::Relu && l.inputs.size() == 1 && overwritable(l.inputs[0])) {
      over = root(p, l.inputs[0]);
    } else if (o.reuse_buffers && l.kind == LayerKind::Add && l.inputs.size() == 2 && l.inputs[0] != l.inputs[1]) {
      for (int j : {std::max(l.inputs[0], l.inputs[1]), std::min(l.inputs[0], l.inputs[1])}) {
        if (!overwritable(j)) continue;
        over = root(p, j);
        break;
      }
    }
  }
  // A batch norm right before the Add that runs in place over it computes the Add (with its fused ReLU) as it
  // writes its output; the Add keeps its op for backward only.
  if (!o.fuse_layers || !o.caps.batch_norm_adds) return;
  for (int i = 2; i < n; ++i) {
    const int j = i - 1;
    if (m.layers[i].kind != LayerKind::Add || p.layers[i].in_place_of != root(p, j)) continue;
    if (m.layers[j].kind != LayerKind::BatchNorm) continue;
    p.layers[j].add = i;
    p.layers[i].add_by = j;
  }
}

int place(GraphPlan& p, PlannedTensor::Kind kind, int layer, int input, const Shape& shape, int first, int last) {
  const DType t = kind == PlannedTensor::Kind::Output && layer == 0 ? p.input : p.act;
  const size_t bytes = static_cast<size_t>(shape.numel()) * dtype_size(t);
  p.tensors.push_back({kind, layer, input, shape, Lifetime{bytes, first, last}, -1});
  return static_cast<int>(p.tensors.size()) - 1;
}

// Every output that is not written over another: training keeps them all to the end of the backward walk;
// inference from the forward step to the last reader of its buffer's contents, the logits to the loss.
void place_outputs(const ModelDesc& m, GraphPlan& p) {
  const int n = static_cast<int>(m.layers.size());
  // last_of[j]: where buffer j's contents must last, to the last reader of any layer writing it in place.
  std::vector<int> last_of(n);
  for (int i = 0; i < n; ++i) last_of[i] = p.layers[i].last_reader;
  for (int i = 1; i < n; ++i) {
    const int over = p.layers[i].in_place_of;
    if (over >= 0) last_of[over] = std::max(last_of[over], std::max(i, p.layers[i].last_reader));
  }
  for (int i = 0; i < n; ++i) {
    if (p.layers[i].in_place_of >= 0) continue;
    const int first = p.training ? 0 : i, last = p.training ? 2 * n : std::max(i, last_of[i]);
    p.layers[i].out_tensor = place(p, PlannedTensor::Kind::Output, i, -1, p.layers[i].shape, first, last);
  }
  if (!p.training) p.tensors[p.layers[root(p, n - 1)].out_tensor].life.last = n;
}

// Each output gradient from its first consumer's backward step to its producer's (a fused pair's to the
// producer's, an Add's shared one to the later of its two readers'), and a one-step temporary for every later
// consumer's contribution. Returns shared[b] = a where an Add's input b takes input a's gradient.
std::vector<int> place_gradients(const ModelDesc& m, const GraphPlanOptions& o, GraphPlan& p) {
  const int n = static_cast<int>(m.layers.size());
  std::vector<int> born(n, -1);
  born[n - 1] = 0;
  std::vector<std::vector<int>> temp_inputs(n);  // per consumer: the inputs it writes through a temporary
  for (int i = n - 1; i >= 1; --i) {
    const auto& ins = m.layers[i].inputs;
    for (size_t k = 0; k < ins.size(); ++k) {
      if (ins[k] == 0) continue;
      if (born[ins[k]] < 0) {
        born[ins[k]] = n - i;
      } else {
        temp_inputs[i].push_back(static_cast<int>(k));
      }
    }
  }
  std::vector<int> producer(n), last_use(n);
  for (int j = 0; j < n; ++j) {
    producer[j] = p.layers[j].relu_by >= 0 ? p.layers[j].relu_by : j;
    last_use[j] = p.layers[j].last_reader;
  }
  const std::vector<int> shared = o.reuse_buffers ? shared_add_grads(m, producer, last_use) : std::vector<int>(n, -1);
  std::vector<int> last(n);
  for (int j = 1; j < n; ++j) last[j] = n - producer[j];
  for (int j = 1; j < n; ++j) {
    if (shared[j] >= 0) last[shared[j]] = std::max(last[shared[j]], last[j]);
  }
  for (int j = 1; j < n; ++j) {
    LayerPlan& l = p.layers[j];
    l.grad_of = l.relu >= 0 ? l.relu : shared[j];
    if (l.grad_of >= 0) continue;
    const int first = std::min(born[j] < 0 ? last[j] : born[j], last[j]);
    l.grad_tensor = place(p, PlannedTensor::Kind::Gradient, j, -1, l.shape, first, last[j]);
  }
  for (int i = 1; i < n; ++i) {
    p.layers[i].input_grads.resize(m.layers[i].inputs.size());
    for (int k : temp_inputs[i]) {
      const Shape& s = p.layers[m.layers[i].inputs[k]].shape;
      p.layers[i].input_grads[k].temporary = place(p, PlannedTensor::Kind::Temporary, i, k, s, n - i, n - i);
    }
  }
  return shared;
}

// The memory plan's buffers, then where every layer's output, gradient and input gradients land in them.
void assign_buffers(const ModelDesc& m, const GraphPlanOptions& o, const std::vector<int>& shared, GraphPlan& p) {
  std::vector<Lifetime> lifetimes;
  for (const PlannedTensor& t : p.tensors) lifetimes.push_back(t.life);
  const MemoryPlan mem = plan_memory(lifetimes, o.reuse_buffers);
  p.buffer_bytes = mem.buffer_bytes;
  for (size_t t = 0; t < p.tensors.size(); ++t) p.tensors[t].buffer = mem.buffer_of[t];
  const int n = static_cast<int>(m.layers.size());
  for (int i = 0; i < n; ++i) {
    LayerPlan& l = p.layers[i];
    l.out_buffer = p.tensors[p.layers[root(p, i)].out_tensor].buffer;
    if (!p.training || i == 0) continue;
    int g = i;
    while (p.layers[g].grad_tensor < 0) g = p.layers[g].grad_of;
    l.grad_buffer = p.tensors[p.layers[g].grad_tensor].buffer;
  }
  for (int i = 1; p.training && i < n; ++i) {
    const auto& ins = m.layers[i].inputs;
    for (size_t k = 0; k < ins.size(); ++k) {
      InputGradPlan& g = p.layers[i].input_grads[k];
      // The images need no gradient, and an Add writes a shared gradient once.
      const bool second = m.layers[i].kind == LayerKind::Add && k == 1 && shared[ins[k]] == ins[0];
      if (g.temporary >= 0) {
        g.buffer = p.tensors[g.temporary].buffer;
      } else if (ins[k] != 0 && !second) {
        g.buffer = p.layers[ins[k]].grad_buffer;
      }
    }
  }
  p.loss_buffer = static_cast<int>(p.buffer_bytes.size());
  p.buffer_bytes.push_back(sizeof(float));
}

}  // namespace

size_t GraphPlan::total_bytes() const { return std::accumulate(buffer_bytes.begin(), buffer_bytes.end(), size_t{0}); }

GraphPlan plan_graph(const ModelDesc& m, const GraphPlanOptions& o) {
  const std::vector<Shape> shapes = infer_shapes(m, o.batch, o.image_size);
  const int n = static_cast<int>(m.layers.size());
  GraphPlan p;
  p.act = activation_dtype(o.precision);
  p.input = m.tokens ? DType::I32 : p.act;
  p.training = o.training;
  p.layers.resize(n);
  for (int i = 0; i < n; ++i) p.layers[i].shape = shapes[i];
  for (int i = 1; i < n; ++i) {
    for (int j : m.layers[i].inputs) p.layers[j].last_reader = std::max(p.layers[j].last_reader, i);
  }
  plan_fusions(m, o, p);
  place_outputs(m, p);
  std::vector<int> shared(n, -1);
  if (o.training) shared = place_gradients(m, o, p);
  assign_buffers(m, o, shared, p);
  return p;
}

}  // namespace mg
