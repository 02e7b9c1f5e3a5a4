// Where a step's communication time goes in the breakdown: each all-reduce takes a known time (DelayCommunicator)
// and each layer's backward a known time too, so without overlap the wait shows as exposed communication, and with
// overlap most of it moves under backward. Only lower bounds on measured times (sleeps last at least as long as
// asked, however busy the cores), and upper bounds with a margin of whole all-reduces or half of backward.
#include <catch2/catch.hpp>

#include <chrono>
#include <thread>

#include "models/registry.h"
#include "support/delay_communicator.h"
#include "support/delegating_backend.h"
#include "train/replica.h"

using namespace mg;
using namespace std::chrono_literals;

namespace {

// A layer whose backward takes at least `extra` longer (on the host, where the CPU Compute stream runs it).
class SlowBackwardLayer final : public LayerOp {
 public:
  SlowBackwardLayer(std::unique_ptr<LayerOp> inner, std::chrono::milliseconds extra)
      : inner_(std::move(inner)), extra_(extra) {}
  Shape output_shape() const override { return inner_->output_shape(); }
  std::vector<ParamShape> params() const override { return inner_->params(); }
  void bind(const std::vector<float*>& p, const std::vector<float*>& g) override { inner_->bind(p, g); }
  void forward(const std::vector<Tensor>& in, const Tensor& out, bool training) override {
    inner_->forward(in, out, training);
  }
  void backward(const std::vector<Tensor>& in, const Tensor& out, const Tensor& dout, const std::vector<Tensor>& din,
                bool accumulate) override {
    inner_->backward(in, out, dout, din, accumulate);
    std::this_thread::sleep_for(extra_);
  }

 private:
  std::unique_ptr<LayerOp> inner_;
  std::chrono::milliseconds extra_;
};

class SlowBackwardBackend final : public test::DelegatingBackend {
 public:
  SlowBackwardBackend(Backend& b, std::chrono::milliseconds extra) : DelegatingBackend(b), extra_(extra) {}
  std::unique_ptr<LayerOp> create_layer(const LayerDesc& d, const std::vector<Shape>& in,
                                        const LayerOptions& o) override {
    return std::make_unique<SlowBackwardLayer>(b_.create_layer(d, in, o), extra_);
  }

 private:
  std::chrono::milliseconds extra_;
};

constexpr auto kAllreduce = 20ms;  // each all-reduce
constexpr auto kLayerBackward = 2 * kAllreduce;  // added to each layer's backward, so one all-reduce hides under it
constexpr double kX = std::chrono::duration<double>(kAllreduce).count();

struct Step {
  StepBreakdown b;
  int64_t allreduces = 0;
};

// Timed steps (after one warm-up) of the tiny network in 1 KiB buckets (four ready at its second convolution, two
// at its first), with or without overlap.
std::vector<Step> run_steps(bool overlap) {
  RunConfig c;
  c.model = "tiny";
  c.num_classes = 4;
  c.device = DeviceKind::Cpu;
  c.overlap = overlap;
  c.bucket_mb = 1.0 / 1024;
  const ModelDesc model = build_model(c.model, c.num_classes);
  auto cpu = make_backend(DeviceKind::Cpu, 0, BackendOptions{1});
  SlowBackwardBackend be(*cpu, kLayerBackward);
  be.attach_thread();
  test::DelayCommunicator comm(be, kAllreduce);
  Replica rep(c, model, be, &comm, ReplicaPlacement{0, 1}, 2, model.min_image_size);
  std::vector<Step> steps;
  for (int i = 0; i < 4; ++i) {
    const int64_t before = comm.issued();
    Step s{rep.step(i), 0};
    s.allreduces = comm.issued() - before;
    if (i > 0) steps.push_back(s);
  }
  return steps;
}

}  // namespace

TEST_CASE("breakdown: without overlap, the all-reduce time is exposed communication", "[train][timing]") {
  for (const Step& s : run_steps(false)) {
    INFO("all-reduces " << s.allreduces << ", exposed " << s.b.comm_exposed << " s, overlapped "
                        << s.b.comm_overlapped << " s, optimizer " << s.b.optimizer << " s");
    REQUIRE(s.allreduces >= 3);
    CHECK(s.b.comm_exposed >= 0.9 * kX * static_cast<double>(s.allreduces));
    // Nor the all-reduces plus half of backward (every layer's 40 ms): backward is not counted as waiting, and
    // wake-ups on busy cores have that much room.
    CHECK(s.b.comm_exposed < kX * static_cast<double>(s.allreduces) + 0.5 * s.b.backward);
    CHECK(s.b.backward >= 0.9 * 2 * std::chrono::duration<double>(kLayerBackward).count());
    // The buckets start after backward ends and the exposed wait ends after the last: nothing to overlap.
    CHECK(s.b.comm_overlapped <= 0.1 * kX);
  }
}

TEST_CASE("breakdown: with overlap, all-reduces run under backward and only what is left is exposed",
          "[train][timing]") {
  for (const Step& s : run_steps(true)) {
    INFO("all-reduces " << s.allreduces << ", exposed " << s.b.comm_exposed << " s, overlapped "
                        << s.b.comm_overlapped << " s");
    REQUIRE(s.allreduces >= 3);
    const double all = kX * static_cast<double>(s.allreduces);
    // The last bucket is ready as backward ends, so at least its all-reduce is exposed.
    CHECK(s.b.comm_exposed >= 0.9 * kX);
    // Each earlier one had a layer's backward (twice its time) to run under: whole all-reduces of margin.
    CHECK(s.b.comm_exposed < all - kX);
    CHECK(s.b.comm_overlapped > 0);
    CHECK(s.b.comm_exposed + s.b.comm_overlapped >= 0.9 * all);
  }
}
