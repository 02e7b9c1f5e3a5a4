// Helpers for the GPU test set: one CPU and one CUDA backend per process, host<->device transfers in any
// element type, the norm-wise relative error the comparisons use, and a fixed-batch AdamW loop.
#pragma once
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "backend/backend.h"
#include "check/host_values.h"
#include "check/layer_check.h"
#include "core/error.h"
#include "train/fixed_batch_training.h"
#include "train/loss_scaler.h"
#include "train/model_graph.h"
#include "train/param_store.h"

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

// The check module's definitions, so the GPU tests and `mgbench check` hold layers to the same error measure and
// tolerances (a size mismatch or NaN is an infinite error there, which fails every bound).
using check::rel_err;
using check::tolerance;

inline std::vector<Precision> gpu_precisions() {
  std::vector<Precision> v;
  for (Precision p : {Precision::FP32, Precision::TF32, Precision::FP16, Precision::BF16}) {
    if (gpu().supports(p)) v.push_back(p);
  }
  return v;
}

// The loss at each of `steps` AdamW steps (lr 1e-3) of a bound network on one fixed batch; fp16 scales the loss
// as the trainer does and skips a step whose gradients overflowed.
inline std::vector<float> adamw_losses(Backend& be, ModelGraph& net, ParamStore& store, const Tensor& x,
                                       const Tensor& y, Precision p, int steps) {
  const Tensor grads{store.grads(), Shape{static_cast<int64_t>(store.size())}, DType::F32};
  LossScaler scaler(p == Precision::FP16, 65536.f);
  int64_t updates = 0;
  return fixed_batch_losses(be, net, x, y, steps, [&] { return scaler.scale(); }, [&](float scale) {
    if (scaler.enabled() && scaler.check_and_update(be, grads)) return;
    be.adamw_update(store.params(), store.grads(), store.momentum(), store.second_moment(), store.size(), ++updates,
                    1e-3f, 0.9f, 0.999f, 1e-8f, 0.f, 1.f / scale);
  });
}

}  // namespace gputest
