// Weight tying (LayerDesc::tied_weight) on gpt2-tiny, whose head reads the token table: the table's gradient is
// the sum of what the embedding and the head each contribute (the same network with the head given its own copy
// of the table says what each contributes), a second step starts afresh instead of adding to the first's sums,
// and the table's gradient bucket waits for the embedding, the last layer of backward to write it.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "models/registry.h"
#include "test_support.h"
#include "train/grad_ready_clock.h"
#include "train/grad_sync.h"
#include "train/model_graph.h"
#include "train/param_store.h"

using namespace mg;

namespace tying {

constexpr int64_t kTieBatch = 2, kTieTokens = 8;
using Named = std::map<std::string, std::vector<float>>;  // "<layer>.<tensor>" -> values

std::string name_of(const ModelDesc& m, const ParamEntry& e) {
  return m.layers[static_cast<size_t>(e.layer)].name + "." + e.name;
}

// Each stored tensor's values in `flat`, by name.
Named by_name(const ModelDesc& m, const ParamStore& store, const std::vector<float>& flat) {
  Named out;
  for (const ParamEntry& e : store.entries()) {
    const auto at = flat.begin() + static_cast<std::ptrdiff_t>(e.offset);
    out[name_of(m, e)].assign(at, at + static_cast<std::ptrdiff_t>(e.count));
  }
  return out;
}

// GPT-2's initial parameters for m, by name.
Named initial_params(Backend& be, const ModelDesc& m) {
  ModelGraph net(be, m, kTieBatch, kTieTokens, Precision::FP32, 7, true);
  ParamStore store(be, net.param_shapes());
  store.initialize(42);
  return by_name(m, store, store.download_params());
}

// The gradients of m's stored tensors, by name, after `steps` steps (forward, loss, backward) from `params` on
// one fixed batch of tokens.
Named grads_after(Backend& be, const ModelDesc& m, const Named& params, int steps) {
  ModelGraph net(be, m, kTieBatch, kTieTokens, Precision::FP32, 7, true);
  ParamStore store(be, net.param_shapes());
  std::vector<float> flat(store.size());
  for (const ParamEntry& e : store.entries()) {
    const std::vector<float>& v = params.at(name_of(m, e));
    REQUIRE(v.size() == e.count);
    std::copy(v.begin(), v.end(), flat.begin() + static_cast<std::ptrdiff_t>(e.offset));
  }
  be.copy_h2d(store.params(), flat.data(), flat.size() * sizeof(float), StreamKind::Compute);
  net.bind(store);
  const auto classes = static_cast<int>(m.num_classes);
  const std::vector<int32_t> ids = mgtest::make_labels(kTieBatch * kTieTokens, classes, 3);
  const std::vector<int32_t> labels = mgtest::make_labels(kTieBatch * kTieTokens, classes, 4);
  DeviceBuffer x(be, ids.size() * sizeof(int32_t)), y(be, labels.size() * sizeof(int32_t));
  be.copy_h2d(x.get(), ids.data(), ids.size() * sizeof(int32_t), StreamKind::Compute);
  be.copy_h2d(y.get(), labels.data(), labels.size() * sizeof(int32_t), StreamKind::Compute);
  for (int s = 0; s < steps; ++s) {
    net.forward(x.tensor(Shape{kTieBatch, kTieTokens}, DType::I32), true);
    net.loss(y.tensor(Shape{kTieBatch * kTieTokens}, DType::I32), 1.0f);
    net.backward(false, nullptr);
  }
  return by_name(m, store, store.download_grads());
}

double max_abs(const std::vector<float>& v) {
  double m = 0;
  for (float x : v) m = std::max(m, std::fabs(static_cast<double>(x)));
  return m;
}

// max |a - b| over max |b|.
double error(const std::vector<float>& a, const std::vector<float>& b) {
  REQUIRE(a.size() == b.size());
  double d = 0;
  for (size_t i = 0; i < a.size(); ++i) d = std::max(d, std::fabs(static_cast<double>(a[i]) - b[i]));
  return d / std::max(max_abs(b), 1e-30);
}

}  // namespace tying

TEST_CASE("a tied table's gradient is the sum of the embedding's and the head's, and each step starts afresh",
          "[train][tying]") {
  mg::test::CpuWorld world = mg::test::make_replica_world(1);
  Backend& be = *world.backends[0];
  const ModelDesc tied = build_model("gpt2-tiny");
  ModelDesc untied = tied;
  untied.layers.back().tied_weight = -1;  // the head with a weight of its own, a copy of the table
  const tying::Named p = tying::initial_params(be, tied);
  REQUIRE(p.count("lm_head.weight") == 0);
  tying::Named pu = p;
  pu["lm_head.weight"] = p.at("wte_wpe.weight");

  const tying::Named g = tying::grads_after(be, tied, p, 1);
  const tying::Named g2 = tying::grads_after(be, tied, p, 2);
  const tying::Named gu = tying::grads_after(be, untied, pu, 1);
  const std::vector<float>& from_embedding = gu.at("wte_wpe.weight");
  const std::vector<float>& from_head = gu.at("lm_head.weight");
  std::vector<float> sum(from_embedding.size());
  for (size_t i = 0; i < sum.size(); ++i) sum[i] = from_embedding[i] + from_head[i];

  REQUIRE(g.size() + 1 == gu.size());
  for (const auto& [name, v] : g) {
    INFO(name);
    CHECK(tying::error(v, name == "wte_wpe.weight" ? sum : gu.at(name)) <= 1e-5);
    CHECK(tying::error(g2.at(name), v) <= 1e-6);  // the second step's gradient, not the two steps' sum
  }
  // Both uses matter here, so either one's part missing would show.
  CHECK(tying::error(from_embedding, sum) > 0.1);
  CHECK(tying::error(from_head, sum) > 0.1);
}

TEST_CASE("the tied table's gradient buckets are ready after the embedding's backward, never the head's",
          "[train][tying][buckets]") {
  mg::test::CpuWorld world = mg::test::make_replica_world(1);
  Backend& be = *world.backends[0];
  const ModelDesc m = build_model("gpt2-tiny");
  ModelGraph net(be, m, tying::kTieBatch, tying::kTieTokens, Precision::FP32, 1, true);
  ParamStore store(be, net.param_shapes());
  const int head = static_cast<int>(m.layers.size()) - 1, table = m.layers.back().tied_weight;
  const ParamEntry& first = store.entries().front();
  REQUIRE((first.layer == table && first.name == "weight"));
  for (size_t bytes : {size_t{4}, size_t{256}, size_t{4096}, size_t{1} << 30}) {
    INFO("bucket bytes " << bytes);
    for (const Bucket& b : plan_buckets(store, bytes)) {
      CHECK(b.ready_layer != head);
      if (b.begin < first.offset + first.count) CHECK(b.ready_layer == table);  // holds part of the table
    }
  }
  // The profile predict reads has the table once, at the embedding, and nothing at the head.
  GradReadyClock clock(be, store);
  size_t elements = 0;
  for (const GradientLayer& l : clock.layers()) {
    CHECK(l.layer != head);
    elements += l.elements;
  }
  CHECK(elements == store.size());
  CHECK(clock.layers().front().layer == table);
}
