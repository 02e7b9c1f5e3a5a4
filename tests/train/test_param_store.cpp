// ParamStore's initialisation: He uniform for the CNNs' weights, GPT-2's N(0, 0.02) (residual projections
// 0.02/sqrt(2L), the position table too) for a model that asks for it, biases and betas 0, gammas 1, and the
// same values for the same seed; and a tied weight stored once, both its layers handed the same storage.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "backend/backend.h"
#include "models/registry.h"
#include "train/model_graph.h"
#include "train/param_store.h"

using namespace mg;

namespace {

struct Moments {
  double mean = 0, std = 0, max_abs = 0;
};

Moments moments(const std::vector<float>& v, const ParamEntry& e) {
  Moments m;
  for (size_t i = 0; i < e.count; ++i) m.mean += v[e.offset + i];
  m.mean /= static_cast<double>(e.count);
  for (size_t i = 0; i < e.count; ++i) {
    const double d = v[e.offset + i] - m.mean;
    m.std += d * d;
    m.max_abs = std::max(m.max_abs, std::fabs(static_cast<double>(v[e.offset + i])));
  }
  m.std = std::sqrt(m.std / static_cast<double>(e.count));
  return m;
}

}  // namespace

TEST_CASE("param store: GPT-2 starts from N(0, 0.02), residual projections scaled, CNNs from He uniform") {
  auto be = make_backend(DeviceKind::Cpu, 0, BackendOptions{});
  be->attach_thread();
  for (const std::string name : {"gpt2-tiny", "tiny"}) {
    const ModelDesc m = build_model(name, 10);
    ModelGraph net(*be, m, 2, name == "tiny" ? 16 : 8, Precision::FP32, 1, true);
    ParamStore a(*be, net.param_shapes()), b(*be, net.param_shapes());
    a.initialize(7);
    b.initialize(7);
    const std::vector<float> v = a.download_params();
    CHECK(v == b.download_params());
    for (const ParamEntry& e : a.entries()) {
      const std::string full = m.layers[static_cast<size_t>(e.layer)].name + "." + e.name;
      INFO(full << " (" << e.count << " values)");
      const Moments s = moments(v, e);
      if (e.name == "gamma") {
        CHECK(s.mean == 1.0);
        CHECK(s.std == 0.0);
      } else if (e.name == "bias" || e.name == "beta") {
        CHECK(s.max_abs == 0.0);
      } else if (name == "gpt2-tiny") {  // weight, position: 2 layers, so c_proj 0.02 / sqrt(4)
        const bool residual = full.find(".c_proj.") != std::string::npos;
        const double want = residual ? 0.01 : 0.02;
        CHECK(e.init_std == Approx(want));
        CHECK(s.std == Approx(want).epsilon(0.06));  // at least 4096 draws
        CHECK(std::fabs(s.mean) < 0.1 * want);
      } else {  // He uniform in +-sqrt(6 / fan_in)
        const double bound = std::sqrt(6.0 / (static_cast<double>(e.count) / static_cast<double>(e.shape[0])));
        CHECK(e.init_std == 0);
        CHECK(s.max_abs <= bound);
        CHECK(s.std == Approx(bound / std::sqrt(3.0)).epsilon(0.15));
      }
    }
  }
}

TEST_CASE("param store: GPT-2's tied head weight is stored once, the head bound to the token table's storage") {
  auto be = make_backend(DeviceKind::Cpu, 0, BackendOptions{});
  be->attach_thread();
  const ModelDesc m = build_model("gpt2-tiny");
  ModelGraph net(*be, m, 2, 8, Precision::FP32, 1, true);
  ParamStore store(*be, net.param_shapes());
  const int head = static_cast<int>(m.layers.size()) - 1, table = m.layers.back().tied_weight;
  REQUIRE(table == 1);
  CHECK(store.size() == static_cast<size_t>(count_params(m, 8)));  // the V x C table once
  for (const ParamEntry& e : store.entries()) CHECK(e.layer != head);  // the head owns nothing
  const std::vector<float*> hp = store.layer_params(head), hg = store.layer_grads(head);
  const std::vector<float*> tp = store.layer_params(table), tg = store.layer_grads(table);
  REQUIRE(hp.size() == 1);  // weight, no bias
  REQUIRE(tp.size() == 2);  // weight, position
  CHECK(hp[0] == tp[0]);
  CHECK(hg[0] == tg[0]);
  CHECK(tp[1] != tp[0]);
  CHECK(store.sharing_layers() == std::vector<int>{table, head});

  // A tie to a tensor that is not stored, or of another shape, is refused.
  std::vector<std::vector<ParamShape>> shapes = net.param_shapes();
  shapes[static_cast<size_t>(head)][0].shape = Shape{8, 64};
  CHECK_THROWS_AS(ParamStore(*be, shapes), Error);
  shapes = net.param_shapes();
  shapes[static_cast<size_t>(head)][0].tied_layer = 2;  // ln_1: no weight
  CHECK_THROWS_AS(ParamStore(*be, shapes), Error);
}

TEST_CASE("param store: the checksum, taken a slice at a time, is FNV-1a over every parameter byte") {
  auto be = make_backend(DeviceKind::Cpu, 0, BackendOptions{});
  be->attach_thread();
  // 2.5 slices of the checksum's 1 Mi-float slice, split over two layers.
  ParamStore store(*be, {{ParamShape{"weight", Shape{1536, 1024}, 0.02f}}, {ParamShape{"bias", Shape{1024 * 1024}}}});
  store.initialize(3);
  const std::vector<float> all = store.download_params();
  REQUIRE(all.size() == 2621440);
  uint64_t h = 1469598103934665603ull;
  const auto* b = reinterpret_cast<const unsigned char*>(all.data());
  for (size_t i = 0; i < all.size() * sizeof(float); ++i) {
    h ^= b[i];
    h *= 1099511628211ull;
  }
  CHECK(store.checksum() == h);
}
