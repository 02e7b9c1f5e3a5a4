// Data parallelism is exact: N replicas on batch b each, after all-reduce, hold the gradient one replica computes
// on the N*b concatenated batch (networks without batch-norm, so per-replica statistics do not enter): tiny_nobn,
// and gpt2-tiny, whose head shares the token table (one tensor written by two layers, exchanged once).
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
constexpr int64_t kTokens = 8;  // gpt2-tiny's sequence length here
constexpr int kClasses = 10;

// n samples of model m in host memory: images {3, kImage, kImage} NHWC or kTokens token ids each, and the labels
// (one per image, one per token).
struct Samples {
  bool tokens = false;
  int64_t size = 0;  // image size or sequence length
  std::vector<float> images;
  std::vector<int32_t> ids, labels;
  int64_t per_input() const { return tokens ? size : 3 * size * size; }
  int64_t per_label() const { return tokens ? size : 1; }
};

Samples make_samples(const ModelDesc& m, int64_t n, uint64_t seed) {
  Samples s;
  s.tokens = m.tokens;
  s.size = m.tokens ? kTokens : kImage;
  const auto classes = static_cast<int>(m.num_classes);
  if (m.tokens) {
    s.ids = mgtest::make_labels(static_cast<size_t>(n * s.per_input()), classes, seed);  // ids in [0, V)
  } else {
    s.images = mgtest::make_images(static_cast<size_t>(n * s.per_input()), seed);
  }
  s.labels = mgtest::make_labels(static_cast<size_t>(n * s.per_label()), classes, seed + 1);
  return s;
}

// Samples [first, first + batch) on the device: the input and label tensors, in buffers `in` and `lab`.
std::pair<Tensor, Tensor> upload(Backend& be, const Samples& s, int64_t first, int64_t batch, DeviceBuffer& in,
                                 DeviceBuffer& lab) {
  const auto n_in = static_cast<size_t>(batch * s.per_input()), n_lab = static_cast<size_t>(batch * s.per_label());
  in = DeviceBuffer(be, n_in * 4);
  lab = DeviceBuffer(be, n_lab * sizeof(int32_t));
  const void* src = s.tokens ? static_cast<const void*>(s.ids.data() + first * s.per_input())
                             : static_cast<const void*>(s.images.data() + first * s.per_input());
  be.copy_h2d(in.get(), src, n_in * 4, StreamKind::Compute);
  be.copy_h2d(lab.get(), s.labels.data() + first * s.per_label(), n_lab * sizeof(int32_t), StreamKind::Compute);
  const Tensor x = s.tokens ? in.tensor(Shape{batch, s.size}, DType::I32)
                            : in.tensor(Shape{batch, 3, s.size, s.size}, DType::F32);
  return {x, lab.tensor(Shape{static_cast<int64_t>(n_lab)}, DType::I32)};
}

// Gradient of the mean loss over `batch` samples starting at `first`, on one backend (optionally all-reduced).
std::vector<float> replica_grads(Backend& be, Communicator* comm, const ModelDesc& m, const Samples& s, int64_t first,
                                 int64_t batch, size_t bucket_bytes, bool overlap) {
  ModelGraph net(be, m, batch, s.size, Precision::FP32, 7, true);
  ParamStore store(be, net.param_shapes());
  store.initialize(42);
  net.bind(store);
  DeviceBuffer in, lab;
  const auto [x, y] = upload(be, s, first, batch, in, lab);
  GradSync sync(be, comm, store, bucket_bytes, DType::F32, overlap);
  net.forward(x, true);
  net.loss(y, 1.0f);
  net.backward(false, [&](int layer) { sync.on_layer_done(layer); });
  auto end = be.create_event();
  sync.finish(*end);
  be.synchronize(StreamKind::Compute);
  be.synchronize(StreamKind::Comm);
  return store.download_grads();
}

}  // namespace

TEST_CASE("N replicas' all-reduced gradients equal one replica's on the concatenated batch", "[train][equivalence]") {
  const int64_t b = 3;
  for (const char* name : {"tiny_nobn", "gpt2-tiny"}) {
    const ModelDesc m = build_model(name, kClasses);
    for (int n : {1, 2, 3, 4}) {
      // 256 B splits layers into many buckets, each launched from backward as it completes (overlap); 0 = one bucket
      for (size_t bucket : {size_t{256}, size_t{0}}) {
        DYNAMIC_SECTION(name << ", replicas " << n << ", bucket bytes " << bucket) {
          const Samples s = make_samples(m, n * b, 11);
          mg::test::CpuWorld ref_world = mg::test::make_replica_world(1);
          const std::vector<float> ref = replica_grads(*ref_world.backends[0], nullptr, m, s, 0, n * b, bucket, true);

          mg::test::CpuWorld world = mg::test::make_replica_world(
              n, std::string("eq_") + name + std::to_string(n) + "_" + std::to_string(bucket));
          std::vector<std::vector<float>> got(n);
          mg::run_on_threads(n, [&](int i) {
            world.backends[i]->attach_thread();
            got[i] = replica_grads(*world.backends[i], world.comm(i), m, s, i * b, b, bucket, true);
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
}

TEST_CASE("overlapped and non-overlapped all-reduce produce identical gradients", "[train][overlap]") {
  for (const char* name : {"tiny_nobn", "gpt2-tiny"}) {
    INFO(name);
    const ModelDesc m = build_model(name, kClasses);
    const int n = 2;
    const int64_t b = 2;
    const Samples s = make_samples(m, n * b, 21);
    std::vector<std::vector<float>> with(n), without(n);
    mg::test::CpuWorld w1 = mg::test::make_replica_world(n, std::string("ov1_") + name);
    mg::test::CpuWorld w2 = mg::test::make_replica_world(n, std::string("ov2_") + name);
    mg::run_on_threads(n, [&](int i) {
      w1.backends[i]->attach_thread();
      with[i] = replica_grads(*w1.backends[i], w1.comm(i), m, s, i * b, b, 512, true);
    });
    mg::run_on_threads(n, [&](int i) {
      w2.backends[i]->attach_thread();
      without[i] = replica_grads(*w2.backends[i], w2.comm(i), m, s, i * b, b, 512, false);
    });
    REQUIRE(with[0] == without[0]);
    REQUIRE(with[0] == with[1]);
  }
}

TEST_CASE("K accumulated micro-batches give the gradient of one K-times larger batch", "[train][accumulation]") {
  for (const char* name : {"tiny_nobn", "gpt2-tiny"}) {
    INFO(name);
    const ModelDesc m = build_model(name, kClasses);
    const int K = 3;
    const int64_t b = 2;
    const Samples s = make_samples(m, K * b, 31);
    mg::test::CpuWorld world = mg::test::make_replica_world(1);
    Backend& be = *world.backends[0];
    const std::vector<float> ref = replica_grads(be, nullptr, m, s, 0, K * b, 0, true);

    ModelGraph net(be, m, b, s.size, Precision::FP32, 7, true);
    ParamStore store(be, net.param_shapes());
    store.initialize(42);
    net.bind(store);
    // Two steps: the second's first micro-batch must start afresh, not from the first step's sums.
    for (int step = 0; step < 2; ++step) {
      for (int k = 0; k < K; ++k) {
        DeviceBuffer in, lab;
        const auto [x, y] = upload(be, s, k * b, b, in, lab);
        net.forward(x, true);
        net.loss(y, 1.0f);
        net.backward(k > 0, nullptr);
      }
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
}

TEST_CASE("buckets cover every gradient once, in reverse layer order", "[train][buckets]") {
  // gpt2-tiny: transformer layers, and the head's weight is the token table, stored once at the embedding
  // (test_weight_tying.cpp checks that the table's buckets wait for the embedding's backward, not the head's).
  for (const char* name : {"tiny_nobn", "gpt2-tiny"}) {
    INFO(name);
    const ModelDesc m = build_model(name, kClasses);
    mg::test::CpuWorld world = mg::test::make_replica_world(1);
    ModelGraph net(*world.backends[0], m, 2, m.tokens ? kTokens : kImage, Precision::FP32, 1, true);
    ParamStore store(*world.backends[0], net.param_shapes());
    for (size_t bytes : {size_t{4}, size_t{100}, size_t{4096}, size_t{1} << 30}) {
      INFO(bytes << " bytes a bucket");
      const auto buckets = plan_buckets(store, bytes);
      REQUIRE(!buckets.empty());
      REQUIRE(buckets.front().end == store.size());
      REQUIRE(buckets.back().begin == 0);
      for (size_t i = 0; i < buckets.size(); ++i) {
        REQUIRE(buckets[i].end - buckets[i].begin <= std::max<size_t>(bytes / 4, 1));
        REQUIRE(buckets[i].ready_layer == store.layer_of(buckets[i].begin));
        if (i > 0) {
          REQUIRE(buckets[i].end == buckets[i - 1].begin);
          REQUIRE(buckets[i].ready_layer <= buckets[i - 1].ready_layer);
        }
      }
    }
    REQUIRE(plan_buckets(store, size_t{1} << 30).size() == 1);
  }
}
