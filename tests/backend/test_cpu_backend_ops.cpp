// CpuBackend's whole-tensor operations, streams/events and memory accounting.
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <set>
#include <thread>

#include "layer_test_util.h"

using namespace mgtest;

TEST_CASE("cpu softmax_xent: mean loss and scaled gradient match a hand computation") {
  CpuBackend& be = backend();
  std::vector<float> logits{1.f, 2.f, 3.f, 0.5f, -1.f, 0.f, 4.f, 1.f, 2.f, 2.f, 2.f, 2.f};
  std::vector<int32_t> labels{2, 0, 3};
  std::vector<float> dlogits(12), loss(1);
  const Shape s{3, 4};
  be.softmax_xent(Tensor{logits.data(), s, DType::F32}, Tensor{labels.data(), Shape{3}, DType::I32},
                  Tensor{loss.data(), Shape{1}, DType::F32}, Tensor{dlogits.data(), s, DType::F32}, 2.f);
  double want_loss = 0;
  for (int i = 0; i < 3; ++i) {
    double z = 0;
    for (int j = 0; j < 4; ++j) z += std::exp(static_cast<double>(logits[i * 4 + j]));
    want_loss += std::log(z) - logits[i * 4 + labels[i]];
    for (int j = 0; j < 4; ++j) {
      const double p = std::exp(static_cast<double>(logits[i * 4 + j])) / z;
      CHECK(dlogits[i * 4 + j] == Approx(2.0 * (p - (j == labels[i] ? 1 : 0)) / 3.0).margin(1e-6));
    }
  }
  // fp32 log-softmax (oneDNN's vector log and exp): a few float ulps, not double's accuracy.
  CHECK(loss[0] == Approx(want_loss / 3).epsilon(1e-5));
  // Without a gradient (forward-only) the loss comes from the plain loop: the same value.
  std::vector<float> loss_only(1);
  be.softmax_xent(Tensor{logits.data(), s, DType::F32}, Tensor{labels.data(), Shape{3}, DType::I32},
                  Tensor{loss_only.data(), Shape{1}, DType::F32}, Tensor{}, 2.f);
  CHECK(loss_only[0] == Approx(loss[0]).epsilon(1e-5));
  // Row 2 is uniform over 4 classes: its loss is exactly log(4).
  std::vector<float> one(4, 2.f), d1(4), l1(1);
  std::vector<int32_t> y1{1};
  be.softmax_xent(Tensor{one.data(), Shape{1, 4}, DType::F32}, Tensor{y1.data(), Shape{1}, DType::I32},
                  Tensor{l1.data(), Shape{1}, DType::F32}, Tensor{d1.data(), Shape{1, 4}, DType::F32}, 1.f);
  CHECK(l1[0] == Approx(std::log(4.0)).epsilon(1e-5));
  std::vector<int32_t> bad{4};
  CHECK_THROWS_AS(be.softmax_xent(Tensor{one.data(), Shape{1, 4}, DType::F32}, Tensor{bad.data(), Shape{1}, DType::I32},
                                  Tensor{l1.data(), Shape{1}, DType::F32}, Tensor{d1.data(), Shape{1, 4}, DType::F32},
                                  1.f),
                  Error);
}

TEST_CASE("cpu sgd_update follows torch's SGD with momentum and weight decay") {
  const size_t n = 1000;
  std::vector<float> p = random_vec(n, 1), v(n, 0.f);
  std::vector<double> pr(p.begin(), p.end()), vr(n, 0.0);
  const float lr = 0.1f, mom = 0.9f, wd = 1e-4f, gs = 0.5f;
  for (int step = 0; step < 3; ++step) {
    const std::vector<float> g = random_vec(n, 10 + step);
    backend().sgd_update(p.data(), g.data(), v.data(), n, lr, mom, wd, gs);
    for (size_t i = 0; i < n; ++i) {
      const double gi = g[i] * gs + wd * pr[i];
      vr[i] = mom * vr[i] + gi;  // torch: buf = momentum * buf + grad (dampening 0); first step buf = grad
      pr[i] -= lr * vr[i];
    }
  }
  for (size_t i = 0; i < n; ++i) {
    CHECK(p[i] == Approx(pr[i]).margin(1e-6));
    CHECK(v[i] == Approx(vr[i]).margin(1e-6));
  }
}

TEST_CASE("cpu cast round trips f32 through bf16 and f16 within their rounding") {
  CpuBackend& be = backend();
  const size_t n = 4096;
  std::vector<float> x = random_vec(n, 2, -100.f, 100.f), back(n);
  std::vector<uint16_t> h(n);
  const Shape s{static_cast<int64_t>(n)};
  for (DType t : {DType::BF16, DType::F16}) {
    const double rel = t == DType::BF16 ? std::ldexp(1.0, -8) : std::ldexp(1.0, -11);
    be.cast(Tensor{h.data(), s, t}, Tensor{x.data(), s, DType::F32});
    be.cast(Tensor{back.data(), s, DType::F32}, Tensor{h.data(), s, t});
    for (size_t i = 0; i < n; ++i) CHECK(std::abs(back[i] - x[i]) <= rel * std::abs(x[i]));
    // Values already representable come back exactly.
    std::vector<float> again(n);
    be.cast(Tensor{h.data(), s, t}, Tensor{back.data(), s, DType::F32});
    be.cast(Tensor{again.data(), s, DType::F32}, Tensor{h.data(), s, t});
    CHECK(again == back);
  }
}

TEST_CASE("cpu cast converts special values bit for bit as the scalar conversions do") {
  // The typed loops vectorise; every lane must round, saturate and keep NaN as core/half.h does element by
  // element (the odd count leaves a remainder after the vector body).
  std::vector<uint32_t> bits = {0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00001u,
                                0x7f800001u, 0x00000001u, 0x33000000u, 0x33000001u, 0x387fe000u, 0x38800000u,
                                0x477fe000u, 0x477ff000u, 0x7f7fffffu, 0x3f808000u, 0x3f818000u, 0x3f800fffu,
                                0x3f801000u, 0x3f803000u, 0xbf808001u};
  for (uint32_t i = 0; i < 2000; ++i) bits.push_back(i * 2654435761u);
  const size_t n = bits.size();
  std::vector<float> x(n);
  std::memcpy(x.data(), bits.data(), n * sizeof(float));
  const Shape s{static_cast<int64_t>(n)};
  CpuBackend& be = backend();
  for (DType t : {DType::BF16, DType::F16}) {
    std::vector<uint16_t> h(n);
    be.cast(Tensor{h.data(), s, t}, Tensor{x.data(), s, DType::F32});
    std::vector<float> back(n);
    be.cast(Tensor{back.data(), s, DType::F32}, Tensor{h.data(), s, t});
    for (size_t i = 0; i < n; ++i) {
      const uint16_t want = t == DType::BF16 ? float_to_bf16(x[i]) : float_to_fp16(x[i]);
      REQUIRE(h[i] == want);
      const float up = t == DType::BF16 ? bf16_to_float(h[i]) : fp16_to_float(h[i]);
      uint32_t got_bits, want_bits;
      std::memcpy(&got_bits, &back[i], 4);
      std::memcpy(&want_bits, &up, 4);
      REQUIRE(got_bits == want_bits);
    }
  }
}

TEST_CASE("cpu fill_uniform is deterministic, in range, and differs by seed") {
  CpuBackend& be = backend();
  const size_t n = 100000;
  std::vector<float> a(n), b(n), c(n);
  const Shape s{static_cast<int64_t>(n)};
  be.fill_uniform(Tensor{a.data(), s, DType::F32}, -2.f, 3.f, 42);
  be.fill_uniform(Tensor{b.data(), s, DType::F32}, -2.f, 3.f, 42);
  be.fill_uniform(Tensor{c.data(), s, DType::F32}, -2.f, 3.f, 43);
  CHECK(a == b);
  CHECK(a != c);
  double mean = 0;
  for (float v : a) {
    REQUIRE(v >= -2.f);
    REQUIRE(v < 3.f);
    mean += v;
  }
  CHECK(mean / n == Approx(0.5).margin(0.03));
  CHECK(a[12345] == Approx(-2.f + 5.f * counter_uniform(42, 12345)));  // the documented counter stream
  std::vector<int32_t> labels(n);
  be.fill_uniform(Tensor{labels.data(), s, DType::I32}, 0.f, 10.f, 5);
  std::set<int32_t> seen(labels.begin(), labels.end());
  CHECK(seen.size() == 10);
  CHECK(*seen.begin() == 0);
  CHECK(*seen.rbegin() == 9);
}

TEST_CASE("cpu count_nonfinite counts NaN and Inf in f32 and bf16") {
  CpuBackend& be = backend();
  std::vector<float> x(1000, 1.f);
  x[3] = std::numeric_limits<float>::quiet_NaN();
  x[500] = std::numeric_limits<float>::infinity();
  x[999] = -std::numeric_limits<float>::infinity();
  const Shape s{1000};
  CHECK(be.count_nonfinite(Tensor{x.data(), s, DType::F32}) == 3);
  std::vector<uint16_t> h(1000);
  be.cast(Tensor{h.data(), s, DType::BF16}, Tensor{x.data(), s, DType::F32});
  CHECK(be.count_nonfinite(Tensor{h.data(), s, DType::BF16}) == 3);
  x[3] = x[500] = x[999] = 0.f;
  CHECK(be.count_nonfinite(Tensor{x.data(), s, DType::F32}) == 0);
}

TEST_CASE("cpu fill, add_inplace and scale") {
  CpuBackend& be = backend();
  std::vector<float> a(300), b = random_vec(300, 8);
  const Shape s{300};
  be.fill(Tensor{a.data(), s, DType::F32}, 1.5f);
  be.add_inplace(Tensor{a.data(), s, DType::F32}, Tensor{b.data(), s, DType::F32});
  be.scale(Tensor{a.data(), s, DType::F32}, -2.f);
  for (size_t i = 0; i < a.size(); ++i) CHECK(a[i] == Approx(-2.f * (1.5f + b[i])));
  std::vector<uint16_t> h(300);
  be.fill(Tensor{h.data(), s, DType::BF16}, 0.25f);
  be.scale(Tensor{h.data(), s, DType::BF16}, 4.f);
  for (uint16_t v : h) CHECK(bf16_to_float(v) == 1.f);
}

TEST_CASE("cpu streams: worker streams run in order and events order streams against each other") {
  CpuBackend be(0, BackendOptions{});
  std::atomic<int> stage{0};
  auto start = be.create_event(), copied = be.create_event(), done = be.create_event();
  be.record(*start, StreamKind::Copy);
  be.host_fn(StreamKind::Copy, [&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(60));
    stage = 1;
  });
  be.record(*copied, StreamKind::Copy);
  CHECK_FALSE(be.query(*copied));  // the copy stream is still sleeping
  be.stream_wait(StreamKind::Comm, *copied);
  int seen_by_comm = -1;
  be.host_fn(StreamKind::Comm, [&] {
    seen_by_comm = stage.load();
    stage = 2;
  });
  be.record(*done, StreamKind::Comm);
  be.synchronize(*done);
  CHECK(seen_by_comm == 1);
  CHECK(stage == 2);
  CHECK(be.query(*copied));
  CHECK(be.elapsed_seconds(*start, *copied) >= 0.05);

  // The compute stream is inline: an event recorded there is complete at once, and stream_wait on it blocks
  // the caller until the other stream's event is reached.
  auto later = be.create_event(), inline_ev = be.create_event();
  be.host_fn(StreamKind::Copy, [&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    stage = 3;
  });
  be.record(*later, StreamKind::Copy);
  be.stream_wait(StreamKind::Compute, *later);
  CHECK(stage == 3);
  be.record(*inline_ev, StreamKind::Compute);
  CHECK(be.query(*inline_ev));

  // A failure on a worker surfaces at the next synchronize, once.
  be.host_fn(StreamKind::Comm, [] { throw Error("boom"); });
  CHECK_THROWS_WITH(be.synchronize(StreamKind::Comm), "boom");
  CHECK_NOTHROW(be.synchronize(StreamKind::Comm));
}

TEST_CASE("cpu peak memory counts device allocations and layer workspaces") {
  CpuBackend be(0, BackendOptions{});
  be.reset_peak_memory();
  const size_t base = be.peak_memory_bytes();
  void* a = be.device_alloc(1 << 20);
  void* b = be.device_alloc(2 << 20);
  be.device_free(a);
  void* c = be.device_alloc(512 << 10);
  CHECK(be.peak_memory_bytes() == base + (3 << 20));
  be.device_free(b);
  be.device_free(c);
  be.reset_peak_memory();
  CHECK(be.peak_memory_bytes() == base);

  const LayerDesc d = conv_layer("conv", 64, 3, 1, 0);
  const size_t weights = 64 * 64 * 9 * sizeof(float);
  size_t with_layer = 0;
  {
    auto op = be.create_layer(d, {Shape{8, 64, 16, 16}}, {});
    // The reordered weights: the layer's own forward copy when backward-data reads the same format, else in the
    // replica's shared staging area with the weight-gradient staging (allocated at first use, kept by the
    // backend for every layer).
    CHECK(be.staging() != nullptr);
    with_layer = be.peak_memory_bytes();
    CHECK(with_layer >= base + weights);
  }
  be.reset_peak_memory();
  const size_t after = be.peak_memory_bytes();
  CHECK(after <= with_layer);         // the layer freed what it allocated
  CHECK(after >= base + weights);     // the shared staging stays with the backend
  {
    // Forward-only, no copy outlives a call: the layer's forward weights are staged, so it allocates nothing.
    LayerOptions fwd_only;
    fwd_only.backward = false;
    auto op = be.create_layer(d, {Shape{8, 64, 16, 16}}, fwd_only);
    CHECK(be.peak_memory_bytes() == after);
  }
}
