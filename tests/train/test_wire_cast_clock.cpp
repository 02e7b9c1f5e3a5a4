// The profile's wire-cast figure: timed with the backend's own cast, both dtypes, both directions, and the
// gradients left as their wire round trip.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>

#include "backend/cpu/cpu_backend.h"
#include "backend/device_buffer.h"
#include "core/half.h"
#include "support/delegating_backend.h"
#include "train/wire_cast_clock.h"

namespace mg {

namespace {

// Counts the casts per (source, destination) dtype and element count.
class CastCounter : public test::DelegatingBackend {
 public:
  using DelegatingBackend::DelegatingBackend;
  void cast(const Tensor& dst, const Tensor& src) override {
    ++calls[{src.dtype, dst.dtype}];
    CHECK(dst.numel() == src.numel());
    elements = dst.numel();
    DelegatingBackend::cast(dst, src);
  }
  std::map<std::pair<DType, DType>, int> calls;
  int64_t elements = 0;
};

}  // namespace

TEST_CASE("measure_wire_casts times both directions of fp16 and bf16 with the backend's cast", "[train]") {
  CpuBackend cpu(0, BackendOptions{1});
  CastCounter be(cpu);
  const size_t n = 1 << 16;
  DeviceBuffer g(be, n * sizeof(float));
  std::vector<float> host(n);
  for (size_t i = 0; i < n; ++i) host[i] = 1.0f + static_cast<float>(i) * 1e-4f;
  be.copy_h2d(g.get(), host.data(), n * sizeof(float), StreamKind::Compute);
  const auto costs = measure_wire_casts(be, g.as<float>(), n, n, 3);
  REQUIRE(costs.size() == 2);
  CHECK(costs[0].dtype == "fp16");
  CHECK(costs[1].dtype == "bf16");
  for (const WireCastCost& c : costs) {
    CHECK(c.elements == n);
    CHECK(c.repetitions == 3);
    CHECK(c.to_wire_s_per_element > 0);
    CHECK(c.from_wire_s_per_element > 0);
    CHECK(c.to_wire_s_per_element < 1e-6);  // a microsecond per element would be no cast at all
  }
  // One untimed and three timed round trips per dtype, over the whole gradient.
  CHECK(be.calls[{DType::F32, DType::F16}] == 4);
  CHECK(be.calls[{DType::F16, DType::F32}] == 4);
  CHECK(be.calls[{DType::F32, DType::BF16}] == 4);
  CHECK(be.calls[{DType::BF16, DType::F32}] == 4);
  CHECK(be.elements == static_cast<int64_t>(n));
  // The gradients went through fp16 and then bf16: each value is its bf16 rounding (of its fp16 rounding).
  std::vector<float> back(n);
  be.copy_d2h(back.data(), g.get(), n * sizeof(float), StreamKind::Compute);
  be.synchronize(StreamKind::Compute);
  for (size_t i = 0; i < n; i += 997)
    CHECK(back[i] == bf16_to_float(float_to_bf16(fp16_to_float(float_to_fp16(host[i])))));
}

TEST_CASE("measure_wire_casts casts a bucket at a time and holds one bucket's wire copy, not the gradient's", "[train]") {
  CpuBackend cpu(0, BackendOptions{1});
  CastCounter be(cpu);
  const size_t n = 1 << 18, chunk = 1 << 14;
  DeviceBuffer g(be, n * sizeof(float));
  std::vector<float> host(n, 1.0f);
  be.copy_h2d(g.get(), host.data(), n * sizeof(float), StreamKind::Compute);
  const size_t before = cpu.peak_memory_bytes();
  const auto costs = measure_wire_casts(be, g.as<float>(), n, chunk, 2);
  REQUIRE(costs.size() == 2);
  CHECK(costs[0].elements == n);
  CHECK(costs[0].to_wire_s_per_element > 0);
  CHECK(be.calls[{DType::F32, DType::F16}] == 3 * static_cast<int>(n / chunk));
  CHECK(be.elements == static_cast<int64_t>(chunk));
  CHECK(cpu.peak_memory_bytes() - before <= chunk * 2);
}

TEST_CASE("measure_wire_casts of no elements measures nothing", "[train]") {
  CpuBackend cpu(0, BackendOptions{1});
  CHECK(measure_wire_casts(cpu, nullptr, 0, 1).empty());
}

}  // namespace mg
