// Data parallelism is exact: N replicas on batch b each, after all-reduce, hold the gradient one replica computes
// on the N*b concatenated batch (network without batch-norm, so per-replica statistics do not enter).
#include <catch2/catch.hpp>

#include <cmath>

#include "core/run_on_threads.h"
#include "models/registry.h"
#include "test_support.h"
#include "train/grad_sync.h"
#include "train/model_graph.h"
#include "train/param_store.h"

using namespace mg;

namespace {

constexpr int64_t kImage = 16;
constexpr int kClasses = 10;

struct Grads {
  std::vector<float> g;
  size_t params = 0;
};

// Gradient of the mean loss over `batch` samples starting at `first`, on one backend (optionally all-reduced).
std::vector<float> replica_grads(Backend& be, Communicator* comm, const ModelDesc& m, const std::vector<float>& images,
                                 const std::vector<int32_t>& labels, int64_t first, int64_t batch, size_t bucket_bytes,
                                 bool overlap) {
  ModelGraph net(be, m, batch, kImage, Precision::FP32, 7, true);
  ParamStore store(be, net.param_shapes());
  store.initialize(42);
  net.bind(store);
  const size_t per = static_cast<size_t>(kImage * kImage * 3);
  DeviceBuffer img(be, batch * per * sizeof(float)), lab(be, batch * sizeof(int32_t));
  be.copy_h2d(img.get(), images.data() + first * per, batch * per * sizeof(float), StreamKind::Compute);
  be.copy_h2d(lab.get(), labels.data() + first, batch * sizeof(int32_t), StreamKind::Compute);
  GradSync sync(be, comm, store, bucket_bytes, DType::F32, overlap);
  net.forward(img.tensor(Shape{batch, 3, kImage, kImage}, DType::F32), true);
  net.loss(lab.tensor(Shape{batch}, DType::I32), 1.0f);
  net.backward(false, [&](int layer) { sync.on_layer_done(layer); });
  auto end = be.create_event();
  sync.finish(*end);
  be.synchronize(StreamKind::Compute);
  be.synchronize(StreamKind::Comm);
  return store.download_grads();
}

}  // namespace

TEST_CASE("N replicas' all-reduced gradients equal one replica's on the concatenated batch", "[train][equivalence]") {
  const ModelDesc m = build_model("tiny_nobn", kClasses);
  const int64_t b = 3;
  for (int n : {1, 2, 3, 4}) {
    for (size_t bucket : {size_t{256}, size_t{0}}) {  // 256 B splits layers into many buckets; 0 = one bucket
      DYNAMIC_SECTION("replicas " << n << ", bucket bytes " << bucket) {
        const auto images = mgtest::make_images(static_cast<size_t>(n * b * kImage * kImage * 3), 11);
        const auto labels = mgtest::make_labels(static_cast<size_t>(n * b), kClasses, 12);
        mg::test::CpuWorld ref_world = mg::test::make_replica_world(1);
        const std::vector<float> ref =
            replica_grads(*ref_world.backends[0], nullptr, m, images, labels, 0, n * b, bucket, true);

        mg::test::CpuWorld world =
            mg::test::make_replica_world(n, "eq" + std::to_string(n) + "_" + std::to_string(bucket));
        std::vector<std::vector<float>> got(n);
        mg::run_on_threads(n, [&](int i) {
          world.backends[i]->attach_thread();
          got[i] = replica_grads(*world.backends[i], world.comm(i), m, images, labels, i * b, b, bucket, true);
        });
        double max_err = 0, max_ref = 0;
        for (int i = 0; i < n; ++i) {
          REQUIRE(got[i].size() == ref.size());
          for (size_t k = 0; k < ref.size(); ++k) {
            // Each replica's loss is a mean over b samples; the sum over N replicas is N times the mean over N*b.
            max_err = std::max(max_err, std::abs(static_cast<double>(got[i][k]) / n - ref[k]));
            max_ref = std::max(max_ref, std::abs(static_cast<double>(ref[k])));
          }
        }
        INFO("max abs error " << max_err << " vs max |grad| " << max_ref);
        REQUIRE(max_ref > 0);
        REQUIRE(max_err <= 1e-4 * max_ref + 1e-7);
      }
    }
  }
}

TEST_CASE("overlapped and non-overlapped all-reduce produce identical gradients", "[train][overlap]") {
  const ModelDesc m = build_model("tiny_nobn", kClasses);
  const int n = 2;
  const int64_t b = 2;
  const auto images = mgtest::make_images(static_cast<size_t>(n * b * kImage * kImage * 3), 21);
  const auto labels = mgtest::make_labels(static_cast<size_t>(n * b), kClasses, 22);
  std::vector<std::vector<float>> with(n), without(n);
  mg::test::CpuWorld w1 = mg::test::make_replica_world(n, "ov1");
  mg::test::CpuWorld w2 = mg::test::make_replica_world(n, "ov2");
  mg::run_on_threads(n, [&](int i) {
    w1.backends[i]->attach_thread();
    with[i] = replica_grads(*w1.backends[i], w1.comm(i), m, images, labels, i * b, b, 512, true);
  });
  mg::run_on_threads(n, [&](int i) {
    w2.backends[i]->attach_thread();
    without[i] = replica_grads(*w2.backends[i], w2.comm(i), m, images, labels, i * b, b, 512, false);
  });
  REQUIRE(with[0] == without[0]);
  REQUIRE(with[0] == with[1]);
}

TEST_CASE("K accumulated micro-batches give the gradient of one K-times larger batch", "[train][accumulation]") {
  const ModelDesc m = build_model("tiny_nobn", kClasses);
  const int K = 3;
  const int64_t b = 2;
  const auto images = mgtest::make_images(static_cast<size_t>(K * b * kImage * kImage * 3), 31);
  const auto labels = mgtest::make_labels(static_cast<size_t>(K * b), kClasses, 32);
  mg::test::CpuWorld world = mg::test::make_replica_world(1);
  Backend& be = *world.backends[0];
  const std::vector<float> ref = replica_grads(be, nullptr, m, images, labels, 0, K * b, 0, true);

  ModelGraph net(be, m, b, kImage, Precision::FP32, 7, true);
  ParamStore store(be, net.param_shapes());
  store.initialize(42);
  net.bind(store);
  const size_t per = static_cast<size_t>(kImage * kImage * 3);
  DeviceBuffer img(be, b * per * sizeof(float)), lab(be, b * sizeof(int32_t));
  for (int k = 0; k < K; ++k) {
    be.copy_h2d(img.get(), images.data() + k * b * per, b * per * sizeof(float), StreamKind::Compute);
    be.copy_h2d(lab.get(), labels.data() + k * b, b * sizeof(int32_t), StreamKind::Compute);
    net.forward(img.tensor(Shape{b, 3, kImage, kImage}, DType::F32), true);
    net.loss(lab.tensor(Shape{b}, DType::I32), 1.0f);
    net.backward(k > 0, nullptr);
  }
  const std::vector<float> acc = store.download_grads();
  REQUIRE(acc.size() == ref.size());
  double max_err = 0, max_ref = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    max_err = std::max(max_err, std::abs(static_cast<double>(acc[i]) / K - ref[i]));
    max_ref = std::max(max_ref, std::abs(static_cast<double>(ref[i])));
  }
  INFO("max abs error " << max_err << " vs max |grad| " << max_ref);
  REQUIRE(max_err <= 1e-4 * max_ref + 1e-7);
}

TEST_CASE("buckets cover every gradient once, in reverse layer order", "[train][buckets]") {
  const ModelDesc m = build_model("tiny_nobn", kClasses);
  mg::test::CpuWorld world = mg::test::make_replica_world(1);
  ModelGraph net(*world.backends[0], m, 2, kImage, Precision::FP32, 1, true);
  ParamStore store(*world.backends[0], net.param_shapes());
  for (size_t bytes : {size_t{4}, size_t{100}, size_t{4096}, size_t{1} << 30}) {
    const auto buckets = plan_buckets(store, bytes);
    REQUIRE(!buckets.empty());
    REQUIRE(buckets.front().end == store.size());
    REQUIRE(buckets.back().begin == 0);
    for (size_t i = 0; i < buckets.size(); ++i) {
      REQUIRE(buckets[i].end - buckets[i].begin <= std::max<size_t>(bytes / 4, 1));
      if (i > 0) {
        REQUIRE(buckets[i].end == buckets[i - 1].begin);
        REQUIRE(buckets[i].ready_layer <= buckets[i - 1].ready_layer);
      }
    }
  }
  REQUIRE(plan_buckets(store, size_t{1} << 30).size() == 1);
}
