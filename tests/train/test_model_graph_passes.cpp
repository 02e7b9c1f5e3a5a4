// The network tells each layer which passes will run, so a backend prepares only those (cuDNN searches no
// backward algorithm under --forward-only, and no backward-data algorithm for the layer reading the images).
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <string>

#include "backend/cpu/cpu_backend.h"
#include "core/error.h"
#include "models/registry.h"
#include "support/delegating_backend.h"
#include "train/model_graph.h"
#include "train/relu_fusion.h"

using namespace mg;
using mg::test::RecordingBackend;

TEST_CASE("network: layers learn which passes run for the first layer and under forward-only", "[train][passes]") {
  BackendOptions opt;
  opt.threads = 1;
  auto cpu = make_backend(DeviceKind::Cpu, 0, opt);
  const ModelDesc m = build_model("tiny", 4);
  {
    RecordingBackend be(*cpu);
    ModelGraph net(be, m, 2, m.default_image_size, Precision::FP32, 1, /*training=*/true);
    REQUIRE(be.seen.count("block1.conv"));
    CHECK(be.seen["block1.conv"].backward);
    CHECK_FALSE(be.seen["block1.conv"].input_grad);  // reads the images
    CHECK(be.seen["block2.conv"].backward);
    CHECK(be.seen["block2.conv"].input_grad);
    CHECK(be.seen["fc"].input_grad);
  }
  {
    RecordingBackend be(*cpu);
    ModelGraph net(be, m, 2, m.default_image_size, Precision::FP32, 1, /*training=*/false);
    // Every layer but the input and the ReLUs folded into their batch norms.
    const std::vector<int> fused = relu_fusion(m, be);
    REQUIRE(be.seen.size() == m.layers.size() - 1 - std::count_if(fused.begin(), fused.end(), [](int j) {
              return j >= 0;
            }));
    for (const auto& kv : be.seen) {
      INFO(kv.first);
      CHECK_FALSE(kv.second.backward);
    }
  }
}

namespace {

class NoFusion final : public test::DelegatingBackend {
 public:
  using DelegatingBackend::DelegatingBackend;
  bool fuses_relu(LayerKind) const override { return false; }
  bool fuses_add(LayerKind, Precision) const override { return false; }
};

}  // namespace

TEST_CASE("network: a ReLU is folded into the batch norm or add it alone reads, where the backend offers it",
          "[train][passes][fusion]") {
  BackendOptions opt;
  opt.threads = 1;
  auto cpu = make_backend(DeviceKind::Cpu, 0, opt);
  const ModelDesc m = build_model("resnet18", 10);
  const std::vector<int> fused = relu_fusion(m, *cpu);
  REQUIRE(fused.size() == m.layers.size());
  std::vector<int> readers(m.layers.size(), 0);
  for (const LayerDesc& l : m.layers)
    for (int j : l.inputs) ++readers[j];
  int bn = 0, add = 0;
  for (size_t i = 0; i < m.layers.size(); ++i) {
    const LayerDesc& l = m.layers[i];
    INFO(l.name);
    if (l.kind != LayerKind::Relu) {
      CHECK(fused[i] == -1);
      continue;
    }
    const int j = l.inputs[0];
    const LayerKind k = m.layers[j].kind;
    const bool foldable = readers[j] == 1 && (k == LayerKind::BatchNorm || k == LayerKind::Add);
    CHECK(fused[i] == (foldable ? j : -1));
    bn += fused[i] >= 0 && k == LayerKind::BatchNorm;
    add += fused[i] >= 0 && k == LayerKind::Add;
  }
  // resnet18: the stem, two in each of 8 basic blocks (bn1 and the add), and nothing else.
  CHECK(bn == 9);
  CHECK(add == 8);

  NoFusion none(*cpu);
  for (int j : relu_fusion(m, none)) CHECK(j == -1);
  // The graph asks the backend for exactly the fused layers it decided on, and no ReLU op for them.
  RecordingBackend rec(*cpu);
  ModelGraph net(rec, m, 2, 32, Precision::FP32, 1, /*training=*/true);
  for (size_t i = 1; i < m.layers.size(); ++i) {
    const LayerDesc& l = m.layers[i];
    INFO(l.name);
    if (fused[i] >= 0) {
      CHECK(rec.seen.count(l.name) == 0);
    } else {
      REQUIRE(rec.seen.count(l.name) == 1);
      const bool has_relu = std::find(fused.begin(), fused.end(), static_cast<int>(i)) != fused.end();
      CHECK(rec.seen[l.name].relu == has_relu);
    }
  }
  // A backend without the fusion is never asked for it.
  RecordingBackend rec_none(none);
  ModelGraph plain(rec_none, m, 2, 32, Precision::FP32, 1, /*training=*/true);
  CHECK(rec_none.seen.size() == m.layers.size() - 1);
  for (const auto& kv : rec_none.seen) CHECK_FALSE(kv.second.relu);
}

TEST_CASE("network: the batch norm right before a residual add computes it, where the backend offers it",
          "[train][passes][fusion]") {
  BackendOptions opt;
  opt.threads = 1;
  opt.cpu_conv_algo = CpuConvAlgo::Direct;  // only the options are looked at: no timing at set-up
  auto cpu = make_backend(DeviceKind::Cpu, 0, opt);
  for (const char* name : {"resnet18", "resnet50"}) {
    INFO(name);
    const ModelDesc m = build_model(name, 10);
    RecordingBackend rec(*cpu);
    ModelGraph net(rec, m, 2, 32, Precision::FP32, 1, /*training=*/true);
    int fused = 0;
    for (size_t i = 1; i < m.layers.size(); ++i) {
      const LayerDesc& l = m.layers[i];
      if (!rec.seen.count(l.name)) continue;  // a fused ReLU
      INFO(l.name);
      const LayerOptions& o = rec.seen[l.name];
      // Every block ends in batch norm, add, ReLU (the batch norm is the branch's last, or the downsampling
      // shortcut's where the block has one), and the ReLU is folded into the add, so the batch norm applies it.
      const bool before_add = l.kind == LayerKind::BatchNorm && i + 1 < m.layers.size() &&
                              m.layers[i + 1].kind == LayerKind::Add;
      CHECK(o.add_input == before_add);
      CHECK(o.add_relu == before_add);
      CHECK_FALSE((o.relu && o.add_input));
      fused += o.add_input;
    }
    // 8 basic blocks, 16 bottlenecks.
    CHECK(fused == (std::string(name) == "resnet18" ? 8 : 16));
    // Neither without the fusions nor at a precision whose batch norm cannot add (bf16 is oneDNN's).
    RecordingBackend plain(*cpu);
    ModelGraph unfused(plain, m, 2, 32, Precision::FP32, 1, true, true, /*fuse_layers=*/false);
    for (const auto& kv : plain.seen) CHECK_FALSE(kv.second.add_input);
    if (cpu_has_bf16()) {
      RecordingBackend half(*cpu);
      ModelGraph mixed(half, m, 2, 32, Precision::BF16, 1, true);
      for (const auto& kv : half.seen) CHECK_FALSE(kv.second.add_input);
    }
    NoFusion none(*cpu);
    RecordingBackend rec_none(none);
    ModelGraph other(rec_none, m, 2, 32, Precision::FP32, 1, true);
    for (const auto& kv : rec_none.seen) CHECK_FALSE(kv.second.add_input);
  }
  // Asked for anyway, a backend that does not offer it says so: another kind, bf16 batch norm, the ReLU
  // without the add, or the add together with the batch norm's own ReLU.
  const ModelDesc m = build_model("resnet18", 10);
  const std::vector<Shape> shapes = infer_shapes(m, 2, 32);
  auto refused = [&](LayerKind kind, const LayerOptions& o) {
    for (const LayerDesc& l : m.layers) {
      if (l.kind != kind) continue;
      try {
        cpu->create_layer(l, {shapes[l.inputs[0]]}, o);
      } catch (const UsageError& e) {
        return std::string(e.what()).find("fused residual add") != std::string::npos;
      }
      return false;
    }
    return false;
  };
  LayerOptions o;
  o.add_input = true;
  CHECK(refused(LayerKind::Conv, o));
  o.precision = Precision::BF16;
  CHECK(refused(LayerKind::BatchNorm, o));
  o = LayerOptions{};
  o.add_relu = true;
  CHECK(refused(LayerKind::BatchNorm, o));
  o.add_input = true;
  o.relu = true;
  CHECK(refused(LayerKind::BatchNorm, o));
}
