// --layer-times: each layer's forward and backward time lands on that layer. One layer's forward and another's
// backward sleep a known time (on the host, where the CPU Compute stream runs them); only lower bounds on those
// two layers are checked, so a busy machine cannot fail it, while an interval given to the wrong layer does.
#include <catch2/catch.hpp>

#include <chrono>
#include <string>
#include <thread>

#include "models/registry.h"
#include "support/delegating_backend.h"
#include "train/replica.h"

using namespace mg;
using namespace std::chrono_literals;

namespace {

constexpr auto kSleep = 30ms;
constexpr double kSleepS = 0.029;  // kSleep less the host clock's rounding

class SleepyLayer final : public LayerOp {
 public:
  SleepyLayer(std::unique_ptr<LayerOp> inner, bool in_forward, bool in_backward)
      : inner_(std::move(inner)), fwd_(in_forward), bwd_(in_backward) {}
  Shape output_shape() const override { return inner_->output_shape(); }
  std::vector<ParamShape> params() const override { return inner_->params(); }
  void bind(const std::vector<float*>& p, const std::vector<float*>& g) override { inner_->bind(p, g); }
  void forward(const std::vector<Tensor>& in, const Tensor& out, bool training) override {
    inner_->forward(in, out, training);
    if (fwd_) std::this_thread::sleep_for(kSleep);
  }
  void backward(const std::vector<Tensor>& in, const Tensor& out, const Tensor& dout, const std::vector<Tensor>& din,
                bool accumulate) override {
    inner_->backward(in, out, dout, din, accumulate);
    if (bwd_) std::this_thread::sleep_for(kSleep);
  }

 private:
  std::unique_ptr<LayerOp> inner_;
  bool fwd_, bwd_;
};

// block2.conv sleeps in forward, pool in backward.
class SleepyBackend final : public test::DelegatingBackend {
 public:
  using DelegatingBackend::DelegatingBackend;
  std::unique_ptr<LayerOp> create_layer(const LayerDesc& d, const std::vector<Shape>& in,
                                        const LayerOptions& o) override {
    return std::make_unique<SleepyLayer>(b_.create_layer(d, in, o), d.name == "block2.conv", d.name == "pool");
  }
};

const LayerTime& entry(const std::vector<LayerTime>& v, const std::string& name) {
  for (const LayerTime& t : v)
    if (t.name == name) return t;
  FAIL("no layer_times entry " << name);
  return v.front();
}

}  // namespace

TEST_CASE("layer times: the last warm-up step's time lands on the layer that spent it", "[train][timing]") {
  RunConfig c;
  c.model = "tiny";
  c.num_classes = 4;
  c.device = DeviceKind::Cpu;
  c.warmup = 2;
  c.layer_times = GENERATE(true, false);
  const ModelDesc model = build_model(c.model, c.num_classes);
  auto cpu = make_backend(DeviceKind::Cpu, 0, BackendOptions{1});
  SleepyBackend be(*cpu);
  be.attach_thread();
  Replica rep(c, model, be, nullptr, ReplicaPlacement{0, 1}, 2, model.min_image_size);
  rep.step(0);
  CHECK(rep.layer_times().empty());  // step 0 is not the last warm-up step
  rep.step(1);
  if (!c.layer_times) {
    CHECK(rep.layer_times().empty());
    return;
  }
  const std::vector<LayerTime> times = rep.layer_times();
  REQUIRE(times.size() == model.layers.size() + 1);  // every layer (the fused ReLUs by their backward), the loss
  for (size_t i = 0; i < model.layers.size(); ++i) {
    CHECK(times[i].layer == static_cast<int>(i));
    CHECK(times[i].name == model.layers[i].name);
  }
  CHECK(times.back().kind == "loss");
  CHECK(entry(times, "block2.conv").forward_s >= kSleepS);
  CHECK(entry(times, "pool").backward_s >= kSleepS);
  CHECK(entry(times, "block1.relu").forward_s == 0);  // fused into block1.bn
  CHECK(entry(times, "input").backward_s == 0);
  rep.step(2);
  CHECK(rep.layer_times().size() == times.size());  // a timed step leaves them as they were
  CHECK(entry(rep.layer_times(), "block2.conv").forward_s == entry(times, "block2.conv").forward_s);
}
