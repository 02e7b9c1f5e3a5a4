// The memory plan: tensors share a buffer only when their lifetimes do not overlap, and a network whose
// gradients and temporaries (or, in inference, activations) share buffers computes bitwise what one with a
// buffer per tensor computes, in less memory.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <string>

#include "check/layer_check.h"
#include "models/net_builder.h"
#include "models/registry.h"
#include "support/edge_model.h"
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
  // resnet18: residual adds (a gradient summed from two consumers); tiny: a plain chain; gpt2-tiny and vit-tiny:
  // the transformer layers, whose residual stream is read by a layer norm and an add (a temporary summed into
  // its gradient), attention reading the fused qkv, and (gpt2-tiny) token ids in and the tied head.
  // With and without fused ReLUs (which share their producer's buffers either way).
  for (const char* model : {"resnet18", "tiny", "gpt2-tiny", "vit-tiny"}) {
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
  // The transformers: attention reads the fused qkv, the residual stream is read by a layer norm and an add.
  for (const char* model : {"resnet18", "gpt2-tiny", "vit-tiny"}) {
    for (bool fuse : {false, true}) {
      INFO(model << (fuse ? " fused" : " unfused"));
      const Pass own = run(model, false, false, fuse), shared = run(model, false, true, fuse);
      REQUIRE(own.logits.size() == shared.logits.size());
      CHECK(std::memcmp(own.logits.data(), shared.logits.data(), own.logits.size() * sizeof(float)) == 0);
      // Fused ReLUs already share their producers' buffers in `own`.
      if (std::string(model) == "resnet18") {
        CHECK(shared.buffer_bytes < own.buffer_bytes / (fuse ? 3 : 4));
      } else {
        CHECK(shared.buffer_bytes < own.buffer_bytes / 3);
      }
    }
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
  // (tests/support/edge_model.h: the network; test_model_graph_passes.cpp checks which of its layers are fused.)
  const ModelDesc m = mg::test::edge_model();
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
