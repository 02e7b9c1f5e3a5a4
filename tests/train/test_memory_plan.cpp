// The memory plan: tensors share a buffer only when their lifetimes do not overlap, and a network whose
// gradients and temporaries (or, in inference, activations) share buffers computes bitwise what one with a
// buffer per tensor computes, in less memory.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>

#include "check/layer_check.h"
#include "models/net_builder.h"
#include "models/registry.h"
#include "support/delegating_backend.h"
#include "support/graph_pass.h"
#include "test_support.h"
#include "train/memory_plan.h"
#include "train/model_graph.h"
#include "train/param_store.h"

using namespace mg;
using check::rel_err;  // the norm-wise error mgbench check holds layers to

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

using Pass = mg::test::GraphPass;

// One pass on the CPU backend as a replica sets it up.
Pass run(const ModelDesc& m, bool training, bool reuse, bool fuse = true) {
  mg::test::CpuWorld w = mg::test::make_replica_world(1);
  return mg::test::run_graph(*w.backends[0], m, training, reuse, fuse);
}

Pass run(const std::string& model, bool training, bool reuse, bool fuse = true) {
  return run(build_model(model, 10), training, reuse, fuse);
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

TEST_CASE("fused ReLUs and shared add gradients where the shipped ResNets never put them", "[train][fusion]") {
  // Batch norm and a residual add straight on the images (no input gradient: the fused backward still masks
  // for gamma/beta); a batch norm read by its ReLU and by an add (not fused); an add whose inputs may share one
  // gradient (the other reader of its first input runs backward after the second input's producer), and one
  // whose may not (a later reader of its first input adds to that gradient before the second input's producer
  // reads its own): sharing there would hand b5 a gradient with c4's contribution in it.
  // (test_model_graph_passes.cpp checks which layers of this model the graph fuses.)
  NetBuilder b("edge", 10);
  const int b1 = b.batch_norm(NetBuilder::kInput, "b1", 1e-5f);
  const int r1 = b.relu(b1, "r1");
  const int c1 = b.conv(r1, "c1", 3, 3, 1, 1);
  const int r2 = b.relu(b.add(NetBuilder::kInput, c1, "a1"), "r2");
  const int b2 = b.batch_norm(b.conv(r2, "c2", 8, 3, 1, 1), "b2", 1e-5f);
  const int r3 = b.relu(b2, "r3");
  const int c3 = b.conv(r3, "c3", 8, 3, 1, 1);
  const int r4 = b.relu(b.add(b2, c3, "a2"), "r4");
  const int b5 = b.batch_norm(b.conv(r4, "c5", 8, 3, 1, 1), "b5", 1e-5f);
  const int c4 = b.conv(r4, "c4", 8, 3, 1, 1);
  const int r5 = b.relu(b.add(r4, b5, "a3"), "r5");
  const int r6 = b.relu(b.add(r5, c4, "a4"), "r6");
  // A batch norm that computes an add without a ReLU (the add has two readers), and an add that runs in place
  // over an add running in place over a convolution.
  const int b7 = b.batch_norm(b.conv(r6, "c7", 8, 3, 1, 1), "b7", 1e-5f);
  const int a5 = b.add(r6, b7, "a5");
  const int c8 = b.conv(a5, "c8", 8, 3, 1, 1);
  const int a6 = b.add(c8, a5, "a6");
  const int r7 = b.relu(b.add(a6, r6, "a7"), "r7");
  b.linear(b.global_avg_pool(r7, "gap"), "fc", 10);
  const ModelDesc m = b.finish(32);
  {
    mg::test::CpuWorld w = mg::test::make_replica_world(1);
    mg::test::RecordingBackend rec(*w.backends[0]);
    ModelGraph g(rec, m, 2, 32, Precision::FP32, 7, true);
    CHECK(rec.seen.at("b7").add_input);
    CHECK_FALSE(rec.seen.at("b7").add_relu);
    CHECK(rec.seen.count("a5") == 1);  // the add keeps its op, for its backward
    CHECK(rec.seen.at("a7").relu);
    CHECK_FALSE(rec.seen.at("b2").add_input);  // read by its ReLU and by an add
  }

  const Pass own = run(m, true, /*reuse=*/false), shared = run(m, true, /*reuse=*/true);
  REQUIRE(own.grads.size() == shared.grads.size());
  CHECK(std::memcmp(own.grads.data(), shared.grads.data(), own.grads.size() * sizeof(float)) == 0);
  CHECK(std::memcmp(own.logits.data(), shared.logits.data(), own.logits.size() * sizeof(float)) == 0);
  const Pass plain = run(m, true, true, /*fuse=*/false);
  CHECK(rel_err(shared.logits, plain.logits) < 1e-5);
  CHECK(rel_err(shared.grads, plain.grads) < 1e-5);
  const Pass infer = run(m, false, true), infer_plain = run(m, false, true, /*fuse=*/false);
  CHECK(rel_err(infer.logits, infer_plain.logits) < 1e-5);
}
