// The graph plan on its own, without a backend: walking its records forward and backward, every buffer holds
// what a layer reads when it reads it; the fusions are the ones the capabilities allow; and the graph built from
// it allocates exactly its buffers.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "backend/cpu/cpu_backend.h"
#include "models/registry.h"
#include "support/delegating_backend.h"
#include "support/edge_model.h"
#include "train/graph_plan.h"
#include "train/model_graph.h"

using namespace mg;

namespace {

// What a buffer holds: an activation, a gradient with the consumers summed into it so far, or a temporary.
struct Value {
  char kind;  // 'a', 'g', 't'
  int layer;
  int input = -1;         // 't': which input of the consumer `layer`
  std::vector<int> from;  // 'g': consumers summed in, sorted
  bool operator==(const Value& o) const {
    return kind == o.kind && layer == o.layer && input == o.input && from == o.from;
  }
};
Value act(int layer) { return {'a', layer, -1, {}}; }
Value grad(int layer, std::vector<int> from) { return {'g', layer, -1, std::move(from)}; }
Value temp(int layer, int input) { return {'t', layer, input, {}}; }

std::string str(const Value& v) {
  return std::string(1, v.kind) + std::to_string(v.layer) + (v.kind == 't' ? "." + std::to_string(v.input) : "");
}

// Runs the forward walk (and, training, the backward walk) over the plan's records alone, with the read and write
// rules backend.h gives every layer, and lists every read that would not find what it needs.
class Walk {
 public:
  Walk(const ModelDesc& m, const GraphPlan& p)
      : m_(m), p_(p), readers_(layer_readers(m)), held_(p.buffer_bytes.size()) {}

  std::vector<std::string> run() {
    sizes();
    forward();
    if (p_.training) backward();
    return faults_;
  }

 private:
  const LayerPlan& at(int i) const { return p_.layers[i]; }
  size_t bytes(const Shape& s) const { return static_cast<size_t>(s.numel()) * dtype_size(p_.act); }
  // The activation op i leaves in its output: the Add it computes, and the ReLU folded into either.
  int shown(int i) const {
    const int f = at(i).add >= 0 ? at(i).add : i;
    return at(f).relu >= 0 ? at(f).relu : f;
  }
  std::vector<int> sorted_readers(int j) const {
    std::vector<int> r = readers_[j];
    std::sort(r.begin(), r.end());
    return r;
  }
  void need(int buffer, const Value& v, const std::string& who) {
    const auto& h = held_.at(buffer);
    if (std::find(h.begin(), h.end(), v) == h.end()) faults_.push_back(who + " needs " + str(v) + " in buffer " +
                                                                        std::to_string(buffer));
  }

  void sizes() {
    for (size_t i = 0; i < p_.layers.size(); ++i) {
      const LayerPlan& l = at(static_cast<int>(i));
      if (p_.buffer_bytes.at(l.out_buffer) < bytes(l.shape)) faults_.push_back("output " + std::to_string(i));
      if (l.grad_buffer >= 0 && p_.buffer_bytes.at(l.grad_buffer) < bytes(l.shape))
        faults_.push_back("gradient " + std::to_string(i));
      for (size_t k = 0; k < l.input_grads.size(); ++k) {
        const int b = l.input_grads[k].buffer;
        if (b >= 0 && p_.buffer_bytes.at(b) < bytes(at(m_.layers[i].inputs[k]).shape))
          faults_.push_back("input gradient " + std::to_string(i));
      }
    }
  }

  void forward() {
    const int n = static_cast<int>(m_.layers.size());
    held_[at(0).out_buffer] = {act(0)};
    for (int i = 1; i < n; ++i) {
      const LayerPlan& l = at(i);
      if (!l.has_op || l.add_by >= 0) continue;  // a folded ReLU, an Add its batch norm computes
      const std::string who = "forward of " + m_.layers[i].name;
      // A layer that does not run in place must not write its output over an input it is reading.
      auto over = [&](int j) {
        if (l.in_place_of < 0 && at(j).out_buffer == l.out_buffer)
          faults_.push_back(who + " writes its output over its input " + m_.layers[j].name + " in buffer " +
                            std::to_string(l.out_buffer));
      };
      for (int j : m_.layers[i].inputs) {
        need(at(j).out_buffer, act(j), who);
        over(j);
      }
      if (l.add >= 0) {
        const auto& ins = m_.layers[l.add].inputs;
        const int other = ins[0] == i ? ins[1] : ins[0];
        need(at(other).out_buffer, act(other), who);
        over(other);
      }
      held_[l.out_buffer] = {act(shown(i))};
    }
    need(at(n - 1).out_buffer, act(n - 1), "the loss");
  }

  // Layer i's backward: what it reads (backend.h: ReLU reads only its output, Add neither inputs nor output
  // but a folded ReLU's mask, Conv, Linear and BatchNorm not their output), then what it writes.
  void backward_reads(int i, std::vector<int>& read) {
    const LayerPlan& l = at(i);
    const LayerKind k = m_.layers[i].kind;
    const std::string who = "backward of " + m_.layers[i].name;
    const int d = l.relu >= 0 ? l.relu : i;
    need(l.grad_buffer, grad(d, sorted_readers(d)), who);
    read.push_back(l.grad_buffer);
    if (k != LayerKind::Relu && k != LayerKind::Add) {
      for (int j : m_.layers[i].inputs) {
        need(at(j).out_buffer, act(j), who);
        read.push_back(at(j).out_buffer);
      }
    }
    const bool own = l.relu >= 0 || (k != LayerKind::Conv && k != LayerKind::Linear && k != LayerKind::BatchNorm &&
                                     k != LayerKind::Add);
    if (own) {
      need(l.out_buffer, act(shown(i)), who);
      read.push_back(l.out_buffer);
    }
  }

  void backward_writes(int i, const std::vector<int>& read) {
    const LayerPlan& l = at(i);
    const auto& ins = m_.layers[i].inputs;
    const std::string who = "backward of " + m_.layers[i].name;
    std::vector<int> written;
    for (size_t k = 0; k < ins.size(); ++k) {
      const int b = l.input_grads[k].buffer;
      if (b < 0) {
        // Only an Add may leave an input's gradient to the other input's, which must then be the same buffer.
        const bool shared = m_.layers[i].kind == LayerKind::Add && ins.size() == 2 &&
                            at(ins[k]).grad_buffer == l.input_grads[1 - k].buffer;
        if (ins[k] != 0 && !shared) faults_.push_back(who + " writes no gradient for input " + std::to_string(k));
        continue;
      }
      if (std::count(read.begin(), read.end(), b) || std::count(written.begin(), written.end(), b))
        faults_.push_back(who + " reads and writes buffer " + std::to_string(b) + " in one step");
      written.push_back(b);
      if (l.input_grads[k].temporary >= 0) {
        held_[b] = {temp(i, static_cast<int>(k))};
        continue;
      }
      held_[b] = {grad(ins[k], {i})};
      for (size_t o = 0; o < ins.size(); ++o) {
        if (o != k && ins[o] != 0 && l.input_grads[o].buffer < 0) held_[b].push_back(grad(ins[o], {i}));
      }
    }
  }

  // After layer i's backward: each temporary is added into its producer's gradient.
  void sums(int i) {
    const auto& ins = m_.layers[i].inputs;
    for (size_t k = 0; k < ins.size(); ++k) {
      const InputGradPlan& g = at(i).input_grads[k];
      if (g.temporary < 0) continue;
      const std::string who = "the sum after " + m_.layers[i].name;
      need(g.buffer, temp(i, static_cast<int>(k)), who);
      const int b = at(ins[k]).grad_buffer;
      auto& h = held_[b];
      auto it = std::find_if(h.begin(), h.end(), [&](const Value& v) { return v.kind == 'g' && v.layer == ins[k]; });
      if (it == h.end()) {
        faults_.push_back(who + " finds no gradient of " + m_.layers[ins[k]].name + " in buffer " + std::to_string(b));
        continue;
      }
      Value v = *it;
      v.from.push_back(i);
      std::sort(v.from.begin(), v.from.end());
      h = {v};
    }
  }

  void backward() {
    const int n = static_cast<int>(m_.layers.size());
    need(at(n - 1).out_buffer, act(n - 1), "the loss");
    held_[at(n - 1).grad_buffer] = {grad(n - 1, {})};
    for (int i = n - 1; i >= 1; --i) {
      if (at(i).has_op) {
        std::vector<int> read;
        backward_reads(i, read);
        backward_writes(i, read);
      }
      sums(i);
    }
  }

  const ModelDesc& m_;
  const GraphPlan& p_;
  std::vector<std::vector<int>> readers_;
  std::vector<std::vector<Value>> held_;
  std::vector<std::string> faults_;
};

// The CPU backend's fusions, CUDA's (ReLU folding, no batch-norm Add) and none.
std::vector<std::pair<const char*, FusionCaps>> all_caps() {
  return {{"cpu", {{LayerKind::BatchNorm, LayerKind::Add}, true}},
          {"cuda", {{LayerKind::BatchNorm, LayerKind::Add}, false}},
          {"none", {{}, false}}};
}

GraphPlanOptions options(const FusionCaps& caps, bool training, bool reuse, bool fuse) {
  GraphPlanOptions o;
  o.batch = 2;
  o.image_size = 32;
  o.caps = caps;
  o.training = training;
  o.reuse_buffers = reuse;
  o.fuse_layers = fuse;
  return o;
}

// The transformers at sequence length / image size 32: layer norms, attention, GELU and residual adds that
// read a layer two consumers share (the residual stream), the token input and the tied head (gpt2-tiny), the
// patch convolution and class token (vit-tiny).
std::vector<ModelDesc> models() {
  return {build_model("resnet18", 10), build_model("resnet50", 10), build_model("tiny", 10), test::edge_model(),
          build_model("gpt2-tiny"),    build_model("vit-tiny", 10)};
}

int count_if_layers(const GraphPlan& p, bool (*pred)(const LayerPlan&)) {
  return static_cast<int>(std::count_if(p.layers.begin(), p.layers.end(), pred));
}

// A backend that records the bytes of every allocation made through it (the graph's own buffers; the layers
// allocate through the backend they were created on).
class CountingBackend final : public test::DelegatingBackend {
 public:
  using DelegatingBackend::DelegatingBackend;
  void* device_alloc(size_t n) override {
    sizes.push_back(n);
    return b_.device_alloc(n);
  }
  std::vector<size_t> sizes;
};

}  // namespace

TEST_CASE("graph plan: walked forward and backward, every buffer holds what each layer reads when it reads it",
          "[train][plan]") {
  for (const ModelDesc& m : models()) {
    for (const auto& [caps_name, caps] : all_caps()) {
      for (int mode = 0; mode < 8; ++mode) {
        const bool training = mode & 1, reuse = mode & 2, fuse = mode & 4;
        INFO(m.name << " " << caps_name << (training ? " training" : " inference") << (reuse ? " shared" : " own")
                    << (fuse ? " fused" : " unfused"));
        const GraphPlan p = plan_graph(m, options(caps, training, reuse, fuse));
        REQUIRE(p.layers.size() == m.layers.size());
        const std::vector<std::string> faults = Walk(m, p).run();
        INFO(faults.size() << " faults, the first: " << (faults.empty() ? "" : faults.front()));
        CHECK(faults.empty());
      }
    }
  }
}

TEST_CASE("graph plan: shared buffers take less memory than a buffer per tensor, and lifetimes never cross",
          "[train][plan]") {
  for (const ModelDesc& m : models()) {
    for (bool training : {true, false}) {
      INFO(m.name << (training ? " training" : " inference"));
      const GraphPlan own = plan_graph(m, options(all_caps()[0].second, training, false, true));
      const GraphPlan shared = plan_graph(m, options(all_caps()[0].second, training, true, true));
      CHECK(own.buffer_bytes.size() == own.tensors.size() + 1);  // and the loss's
      CHECK(shared.total_bytes() < own.total_bytes());
      int crossings = 0;
      for (size_t a = 0; a < shared.tensors.size(); ++a) {
        for (size_t b = a + 1; b < shared.tensors.size(); ++b) {
          const PlannedTensor &x = shared.tensors[a], &y = shared.tensors[b];
          crossings += x.buffer == y.buffer && !(x.life.last < y.life.first || y.life.last < x.life.first);
        }
      }
      CHECK(crossings == 0);
    }
  }
}

TEST_CASE("graph plan: ReLUs fold and batch norms compute residual adds exactly where the capabilities allow",
          "[train][plan][fusion]") {
  const FusionCaps cpu = all_caps()[0].second, cuda = all_caps()[1].second, none = all_caps()[2].second;
  auto bn_adds = [](const LayerPlan& l) { return l.add >= 0; };
  auto folded = [](const LayerPlan& l) { return l.relu_by >= 0; };
  const ModelDesc r50 = build_model("resnet50", 10), r18 = build_model("resnet18", 10);
  // 16 bottlenecks, each ending in batch norm, add, ReLU.
  CHECK(count_if_layers(plan_graph(r50, options(cpu, true, true, true)), bn_adds) == 16);
  CHECK(count_if_layers(plan_graph(r50, options(cpu, false, true, true)), bn_adds) == 16);
  CHECK(count_if_layers(plan_graph(r50, options(cuda, true, true, true)), bn_adds) == 0);
  CHECK(count_if_layers(plan_graph(r50, options(cpu, true, true, false)), bn_adds) == 0);
  // resnet18: the stem and two per basic block (the first batch norm's and the add's).
  const GraphPlan p18 = plan_graph(r18, options(cpu, true, true, true));
  CHECK(count_if_layers(p18, folded) == 17);
  CHECK(count_if_layers(p18, bn_adds) == 8);
  CHECK(count_if_layers(plan_graph(r18, options(none, true, true, true)), folded) == 0);
  CHECK(count_if_layers(plan_graph(r18, options(cuda, true, true, false)), folded) == 0);
  const GraphPlan p50 = plan_graph(r50, options(cpu, true, true, true));
  for (size_t i = 1; i < r50.layers.size(); ++i) {
    const LayerPlan& l = p50.layers[i];
    INFO(r50.layers[i].name);
    CHECK(l.has_op == (l.relu_by < 0));
    if (l.add >= 0) {
      CHECK(r50.layers[i].kind == LayerKind::BatchNorm);
      CHECK(l.add == static_cast<int>(i) + 1);
      CHECK(l.relu == -1);
    }
  }
  // The CPU backend's own answers: batch norm adds at fp32 only.
  BackendOptions opt;
  opt.threads = 1;
  auto be = make_backend(DeviceKind::Cpu, 0, opt);
  CHECK(fusion_caps(*be, Precision::FP32).batch_norm_adds);
  CHECK_FALSE(fusion_caps(*be, Precision::BF16).batch_norm_adds);
  CHECK(fusion_caps(*be, Precision::FP32).relu_into == cpu.relu_into);
}

TEST_CASE("graph plan: a transformer's residual adds run in place over their projection's output", "[train][plan]") {
  for (const ModelDesc& m : {build_model("gpt2-tiny"), build_model("vit-tiny", 10)}) {
    const GraphPlan p = plan_graph(m, options(all_caps()[0].second, true, true, true));
    int over_linear = 0, adds = 0;
    for (size_t i = 1; i < m.layers.size(); ++i) {
      if (m.layers[i].kind != LayerKind::Add) continue;
      ++adds;
      const int over = p.layers[i].in_place_of;
      over_linear += over >= 0 && m.layers[over].kind == LayerKind::Linear;
    }
    INFO(m.name << ": " << over_linear << " of " << adds << " adds over a Linear");
    // Two a block (after attention and after the MLP), each over its projection: one buffer, not two.
    CHECK(adds == 2 * 2);
    CHECK(over_linear == adds);
  }
}

TEST_CASE("graph plan: the graph built from it allocates exactly the planned buffers", "[train][plan]") {
  BackendOptions opt;
  opt.threads = 1;
  opt.cpu_conv_algo = CpuConvAlgo::Direct;  // no timing at set-up
  auto cpu = make_backend(DeviceKind::Cpu, 0, opt);
  for (const ModelDesc& m : models()) {
    for (int mode = 0; mode < 4; ++mode) {
      const bool training = mode & 1, reuse = mode & 2;
      INFO(m.name << (training ? " training" : " inference") << (reuse ? " shared" : " own"));
      GraphPlanOptions o = options(fusion_caps(*cpu, Precision::FP32), training, reuse, true);
      const GraphPlan p = plan_graph(m, o);
      CountingBackend counting(*cpu);
      ModelGraph g(counting, m, o.batch, o.image_size, Precision::FP32, 1, training, reuse);
      CHECK(counting.sizes == p.buffer_bytes);
      CHECK(g.buffer_bytes() == p.total_bytes());
    }
  }
}
