// The memory plan: tensors share a buffer only when their lifetimes do not overlap, and a network whose
// gradients and temporaries (or, in inference, activations) share buffers computes bitwise what one with a
// buffer per tensor computes, in less memory.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>

#include "models/registry.h"
#include "test_support.h"
#include "train/memory_plan.h"
#include "train/model_graph.h"
#include "train/param_store.h"

using namespace mg;

TEST_CASE("memory plan: only tensors with disjoint lifetimes share, and every buffer holds its tensors") {
  // A chain (each tensor overlaps its neighbours), a long-lived tensor, and a residual-like pair.
  std::vector<Lifetime> t = {{100, 0, 1}, {200, 1, 2}, {50, 2, 3}, {300, 3, 4}, {10, 0, 9}, {120, 5, 7}, {80, 6, 6}};
  const MemoryPlan p = plan_memory(t, true);
  REQUIRE(p.buffer_of.size() == t.size());
  for (size_t a = 0; a < t.size(); ++a) {
    REQUIRE(p.buffer_bytes.at(p.buffer_of[a]) >= t[a].bytes);
    for (size_t b = a + 1; b < t.size(); ++b) {
      if (p.buffer_of[a] != p.buffer_of[b]) continue;
      INFO("tensors " << a << " and " << b << " share buffer " << p.buffer_of[a]);
      REQUIRE((t[a].last < t[b].first || t[b].last < t[a].first));
    }
  }
  CHECK(p.buffer_bytes.size() <= 4);
  CHECK(p.total_bytes() < 860);  // the sum of all tensors

  const MemoryPlan own = plan_memory(t, false);
  CHECK(own.buffer_bytes.size() == t.size());
  CHECK(own.total_bytes() == 860);
  CHECK_THROWS(plan_memory({{8, 3, 2}}, true));
}

namespace {

struct Pass {
  std::vector<float> logits, grads;
  size_t buffer_bytes = 0, peak_bytes = 0;
};

// One forward (and, when training, backward) pass of model m on fixed data.
Pass run(const std::string& model, bool training, bool reuse, bool fuse = true) {
  constexpr int64_t batch = 2, image = 32;
  mg::test::CpuWorld w = mg::test::make_replica_world(1);
  Backend& be = *w.backends[0];
  const ModelDesc m = build_model(model, 10);
  ModelGraph net(be, m, batch, image, Precision::FP32, 7, training, reuse, fuse);
  ParamStore store(be, net.param_shapes());
  store.initialize(42);
  net.bind(store);
  const auto images = mgtest::make_images(static_cast<size_t>(batch * image * image * 3), 3);
  const auto labels = mgtest::make_labels(batch, 10, 4);
  DeviceBuffer img(be, images.size() * sizeof(float)), lab(be, labels.size() * sizeof(int32_t));
  be.copy_h2d(img.get(), images.data(), images.size() * sizeof(float), StreamKind::Compute);
  be.copy_h2d(lab.get(), labels.data(), labels.size() * sizeof(int32_t), StreamKind::Compute);
  // Two passes: the second runs on buffers the first left full of other tensors' values.
  for (int pass = 0; pass < 2; ++pass) {
    net.forward(img.tensor(Shape{batch, 3, image, image}, DType::F32), training);
    if (training) {
      net.loss(lab.tensor(Shape{batch}, DType::I32), 1.0f);
      net.backward(false, nullptr);
    }
  }
  be.synchronize(StreamKind::Compute);
  Pass p;
  p.logits.resize(static_cast<size_t>(net.logits().shape.numel()));
  be.copy_d2h(p.logits.data(), net.logits().data, p.logits.size() * sizeof(float), StreamKind::Compute);
  be.synchronize(StreamKind::Compute);
  if (training) p.grads = store.download_grads();
  p.buffer_bytes = net.buffer_bytes();
  p.peak_bytes = be.peak_memory_bytes();
  return p;
}

// ||a - b|| / ||b||.
double rel_err(const std::vector<float>& a, const std::vector<float>& b) {
  REQUIRE(a.size() == b.size());
  double num = 0, den = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    num += (static_cast<double>(a[i]) - b[i]) * (static_cast<double>(a[i]) - b[i]);
    den += static_cast<double>(b[i]) * b[i];
  }
  return std::sqrt(num / den);
}

}  // namespace

TEST_CASE("shared gradient and temporary buffers give bitwise the gradients of a buffer per tensor") {
  // resnet18: residual adds (a gradient summed from two consumers); tiny: a plain chain.
  // With and without fused ReLUs (which share their producer's buffers either way).
  for (const char* model : {"resnet18", "tiny"}) {
    for (bool fuse : {false, true}) {
      INFO(model << (fuse ? " fused" : " unfused"));
      const Pass own = run(model, true, false, fuse), shared = run(model, true, true, fuse);
      REQUIRE(own.grads.size() == shared.grads.size());
      CHECK(std::memcmp(own.grads.data(), shared.grads.data(), own.grads.size() * sizeof(float)) == 0);
      CHECK(std::memcmp(own.logits.data(), shared.logits.data(), own.logits.size() * sizeof(float)) == 0);
      CHECK(shared.buffer_bytes < own.buffer_bytes * (fuse ? 9 : 3) / (fuse ? 10 : 4));
    }
  }
}

TEST_CASE("inference shares activation buffers and gives bitwise the same logits") {
  for (bool fuse : {false, true}) {
    INFO((fuse ? "fused" : "unfused"));
    const Pass own = run("resnet18", false, false, fuse), shared = run("resnet18", false, true, fuse);
    CHECK(std::memcmp(own.logits.data(), shared.logits.data(), own.logits.size() * sizeof(float)) == 0);
    // Fused ReLUs already share their producers' buffers in `own`.
    CHECK(shared.buffer_bytes < own.buffer_bytes / (fuse ? 3 : 4));
  }
}

TEST_CASE("ReLUs fused into batch norms and residual adds give the separate layers' results in no more memory",
          "[train][fusion]") {
  // resnet18 folds 9 batch-norm and 8 add ReLUs; tiny its two batch-norm ones. The fused backward masks the
  // gradient inside the batch norm (a oneDNN workspace) or the add, so a wrong mask shows in every gradient
  // upstream of it.
  for (const char* model : {"resnet18", "tiny"}) {
    INFO(model);
    const Pass plain = run(model, true, true, /*fuse=*/false), fused = run(model, true, true, /*fuse=*/true);
    REQUIRE(plain.grads.size() == fused.grads.size());
    CHECK(rel_err(fused.logits, plain.logits) < 1e-5);
    CHECK(rel_err(fused.grads, plain.grads) < 1e-5);
    CHECK(fused.buffer_bytes <= plain.buffer_bytes);
    // What the fusion may add: oneDNN's ReLU mask of each fused batch norm, one bit per element (rounded up
    // per layer to a cache line), kept from forward to backward.
    const ModelDesc m = build_model(model, 10);
    const std::vector<Shape> shapes = infer_shapes(m, 2, 32);
    size_t masks = 0;
    for (size_t i = 0; i < m.layers.size(); ++i) {
      if (m.layers[i].kind == LayerKind::BatchNorm && i + 1 < m.layers.size() &&
          m.layers[i + 1].kind == LayerKind::Relu) {
        masks += (static_cast<size_t>(shapes[i].numel()) / 8 + 64) / 64 * 64;
      }
    }
    CHECK(masks > 0);
    CHECK(fused.peak_bytes <= plain.peak_bytes + masks);
  }
  // Inference: the fused forward alone, with the buffer reuse of inference.
  const Pass plain = run("resnet18", false, true, false), fused = run("resnet18", false, true, true);
  CHECK(rel_err(fused.logits, plain.logits) < 1e-5);
  CHECK(fused.buffer_bytes <= plain.buffer_bytes);
}
