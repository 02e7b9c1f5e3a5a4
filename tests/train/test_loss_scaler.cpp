// fp16 loss scaling across data-parallel replicas: an overflow on one replica must make every replica skip the
// step and halve its scale at the same step, because the decision reads the all-reduced gradients.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "core/run_on_threads.h"
#include "models/registry.h"
#include "test_support.h"
#include "train/grad_sync.h"
#include "train/loss_scaler.h"
#include "train/model_graph.h"
#include "train/param_store.h"

using namespace mg;

TEST_CASE("loss scaler: halves on overflow and grows after the interval but never below 1", "[train][loss-scale]") {
  LossScaler s(true, 8.0f, 3);
  CHECK_FALSE(s.update(0));
  CHECK(s.update(5));
  CHECK(s.scale() == 4.0f);
  CHECK(s.overflow_steps() == 1);
  for (int i = 0; i < 3; ++i) CHECK_FALSE(s.update(0));
  CHECK(s.scale() == 8.0f);
  for (int i = 0; i < 10; ++i) s.update(1);
  CHECK(s.scale() == 1.0f);
  LossScaler off(false, 1024.0f);
  CHECK(off.scale() == 1.0f);
  CHECK_FALSE(off.update(7));
  CHECK(off.overflow_steps() == 0);
}

TEST_CASE("loss scaler: a forced overflow on one CPU replica skips the step on every replica",
          "[train][loss-scale]") {
  const int n = 2;
  const int64_t batch = 2, image = 16;
  mg::test::CpuWorld world = mg::test::make_replica_world(n, "loss-scale");
  const ModelDesc m = build_model("tiny", 4);
  std::vector<float> scale_after(n), skipped(n);
  mg::run_on_threads(n, [&](int r) {
    Backend& be = *world.backends[r];
    be.attach_thread();
    ModelGraph net(be, m, batch, image, Precision::FP32, 7, true);
    ParamStore store(be, net.param_shapes());
    store.initialize(42);
    net.bind(store);
    const size_t per = static_cast<size_t>(image * image * 3);
    const auto images = mgtest::make_images(batch * per, 100 + r);
    const auto labels = mgtest::make_labels(batch, 4, 200 + r);
    DeviceBuffer img(be, batch * per * sizeof(float)), lab(be, batch * sizeof(int32_t));
    be.copy_h2d(img.get(), images.data(), images.size() * sizeof(float), StreamKind::Compute);
    be.copy_h2d(lab.get(), labels.data(), labels.size() * sizeof(int32_t), StreamKind::Compute);
    GradSync sync(be, world.comm(r), store, 0, DType::F32, /*overlap=*/false);
    LossScaler scaler(true, 1024.0f);
    sync.begin_step(0);
    net.forward(img.tensor(Shape{batch, 3, image, image}, DType::F32), true);
    net.loss(lab.tensor(Shape{batch}, DType::I32), scaler.scale());
    net.backward(false, nullptr);
    if (r == 0) {  // this replica's fp16 gradients overflowed; the other's are fine
      const float inf = std::numeric_limits<float>::infinity();
      be.copy_h2d(store.grads() + store.size() / 2, &inf, sizeof(float), StreamKind::Compute);
    }
    Tensor g{store.grads(), Shape{static_cast<int64_t>(store.size())}, DType::F32};
    if (r == 1) REQUIRE(be.count_nonfinite(g) == 0);  // its own gradients alone would not skip
    auto end = be.create_event();
    sync.finish(*end);
    skipped[r] = scaler.check_and_update(be, g) ? 1.0f : 0.0f;
    scale_after[r] = scaler.scale();
    be.synchronize(StreamKind::Comm);
  });
  CHECK(skipped[0] == 1.0f);
  CHECK(skipped[1] == 1.0f);
  CHECK(scale_after[0] == 512.0f);
  CHECK(scale_after[1] == 512.0f);
}
