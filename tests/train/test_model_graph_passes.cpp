// The network tells each layer which passes will run, so a backend prepares only those (cuDNN searches no
// backward algorithm under --forward-only, and no backward-data algorithm for the layer reading the images).
#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "models/registry.h"
#include "support/delegating_backend.h"
#include "train/model_graph.h"

using namespace mg;

namespace {

class RecordingBackend final : public test::DelegatingBackend {
 public:
  using DelegatingBackend::DelegatingBackend;
  std::unique_ptr<LayerOp> create_layer(const LayerDesc& d, const std::vector<Shape>& in,
                                        const LayerOptions& o) override {
    seen[d.name] = o;
    return b_.create_layer(d, in, o);
  }
  std::map<std::string, LayerOptions> seen;
};

}  // namespace

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
    REQUIRE(be.seen.size() == m.layers.size() - 1);
    for (const auto& kv : be.seen) {
      INFO(kv.first);
      CHECK_FALSE(kv.second.backward);
    }
  }
}
