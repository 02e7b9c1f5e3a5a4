// Helpers for the GPU test set: one CPU and one CUDA backend per process, host<->device transfers in any
// element type, and the norm-wise relative error the comparisons use.
#pragma once
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "backend/backend.h"
#include "check/host_values.h"
#include "core/error.h"

namespace gputest {

using namespace mg;

inline Backend& cpu() {
  static std::unique_ptr<Backend> be = make_backend(DeviceKind::Cpu, 0, BackendOptions{});
  return *be;
}

inline Backend& gpu() {
  static std::unique_ptr<Backend> be = make_backend(DeviceKind::Cuda, 0, BackendOptions{});
  be->attach_thread();
  return *be;
}

using check::decode;
using check::encode;
using check::random_vec;
using check::rounded;

// A device allocation freed with the backend's allocator.
struct Dev {
  Backend* be = nullptr;
  void* p = nullptr;
  size_t bytes = 0;
  Dev(Backend& b, size_t n) : be(&b), p(b.device_alloc(n)), bytes(n) {}
  ~Dev() {
    if (p) be->device_free(p);
  }
  Dev(const Dev&) = delete;
  Dev& operator=(const Dev&) = delete;
  Dev(Dev&& o) noexcept : be(o.be), p(o.p), bytes(o.bytes) { o.p = nullptr; }
};

inline Dev upload(Backend& be, const std::vector<float>& v, DType dt) {
  const std::vector<uint8_t> b = encode(v, dt);
  Dev d(be, b.size());
  be.copy_h2d(d.p, b.data(), b.size(), StreamKind::Compute);
  be.synchronize(StreamKind::Compute);
  return d;
}

inline std::vector<float> download(Backend& be, const void* p, size_t n, DType dt) {
  std::vector<uint8_t> b(n * dtype_size(dt));
  be.synchronize(StreamKind::Compute);
  be.copy_d2h(b.data(), p, b.size(), StreamKind::Compute);
  be.synchronize(StreamKind::Compute);
  return decode(b, dt);
}

// ||a - b|| / ||b|| (b the reference); exact zero reference compares absolutely.
inline double rel_err(const std::vector<float>& a, const std::vector<float>& b) {
  REQUIRE(a.size() == b.size());
  double num = 0, den = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const double d = static_cast<double>(a[i]) - b[i];
    num += d * d;
    den += static_cast<double>(b[i]) * b[i];
  }
  return den > 0 ? std::sqrt(num / den) : std::sqrt(num);
}

// Expected relative error of a layer computed at precision p against the fp32 CPU reference.
inline double tolerance(Precision p) {
  switch (p) {
    case Precision::FP32: return 2e-4;
    case Precision::TF32: return 5e-3;
    case Precision::FP16: return 1e-2;
    case Precision::BF16: return 4e-2;
  }
  return 0;
}

inline std::vector<Precision> gpu_precisions() {
  std::vector<Precision> v;
  for (Precision p : {Precision::FP32, Precision::TF32, Precision::FP16, Precision::BF16}) {
    if (gpu().supports(p)) v.push_back(p);
  }
  return v;
}

}  // namespace gputest
