// ViT's class token, in and out. PatchTokens: out[n,0,:] = class + position[0,:], out[n,1+p,:] = patch[n,p,:] +
// position[1+p,:] (the patch grid's NHWC memory is {N,h*w,C} already); backward passes dout's patch rows to the
// grid and sums it over the batch into the class token (row 0) and the position table. ClassToken: out[n,:] =
// in[n,0,:]; backward puts dout in row 0 and zeros elsewhere. Loops of their own, fp32 arithmetic.
#include <cstring>

#include "backend/cpu/cpu_act_io.h"
#include "backend/cpu/cpu_layers.h"
#include "backend/transformer_dims.h"

namespace mg::cpu {

namespace {

class PatchTokensLayer final : public CpuLayer, PatchTokenDims {
 public:
  explicit PatchTokensLayer(const CpuLayerArgs& args) : CpuLayer(args), PatchTokenDims(desc_, in_shapes_[0]) {}

  void forward(const std::vector<Tensor>& in, const Tensor& out, bool) override {
    check_bound();
    check_io(in, out);
    const float* cls = params_[0];
    const float* pos = params_[1];
    const int64_t T = p_ + 1, C = c_;
    with_act_type(dt_, [&](auto tag) {
      using Act = decltype(tag);
      const Act* x = in[0].as<Act>();
      Act* y = out.as<Act>();
#pragma omp parallel for
      for (int64_t r = 0; r < n_ * T; ++r) {
        const int64_t n = r / T, t = r % T;
        const float* row = pos + t * C;
        if (t == 0) {
          for (int64_t c = 0; c < C; ++c) from_f32(cls[c] + row[c], y[r * C + c]);
        } else {
          const Act* src = x + (n * p_ + t - 1) * C;
          for (int64_t c = 0; c < C; ++c) from_f32(to_f32(src[c]) + row[c], y[r * C + c]);
        }
      }
    });
  }

  void backward(const std::vector<Tensor>& in, const Tensor& out, const Tensor& dout,
                const std::vector<Tensor>& din, bool accumulate) override {
    check_bound();
    check_io(in, out);
    float* dcls = grads_[0];
    float* dpos = grads_[1];
    const int64_t N = n_, T = p_ + 1, C = c_;
    if (!accumulate) {
      std::memset(dcls, 0, static_cast<size_t>(C) * sizeof(float));
      std::memset(dpos, 0, static_cast<size_t>(T * C) * sizeof(float));
    }
    with_act_type(dt_, [&](auto tag) {
      using Act = decltype(tag);
      const Act* dy = dout.as<Act>();
#pragma omp parallel for
      for (int64_t t = 0; t < T; ++t) {
        for (int64_t c = 0; c < C; ++c) {
          float s = 0;
          for (int64_t n = 0; n < N; ++n) s += to_f32(dy[(n * T + t) * C + c]);
          dpos[t * C + c] += s;
          if (t == 0) dcls[c] += s;
        }
      }
      if (!din[0].data) return;
      Act* dx = din[0].as<Act>();
#pragma omp parallel for
      for (int64_t n = 0; n < N; ++n)
        std::memcpy(dx + n * p_ * C, dy + (n * T + 1) * C, static_cast<size_t>(p_ * C) * sizeof(Act));
    });
  }

 private:
};

class ClassTokenLayer final : public CpuLayer, ClassTokenDims {
 public:
  explicit ClassTokenLayer(const CpuLayerArgs& args) : CpuLayer(args), ClassTokenDims(in_shapes_[0]) {}

  void forward(const std::vector<Tensor>& in, const Tensor& out, bool) override {
    check_io(in, out);
    const size_t row = static_cast<size_t>(c_) * dtype_size(dt_);
    const auto* x = static_cast<const uint8_t*>(in[0].data);
    auto* y = static_cast<uint8_t*>(out.data);
    for (int64_t n = 0; n < n_; ++n) std::memcpy(y + n * row, x + n * t_ * row, row);
  }

  void backward(const std::vector<Tensor>& in, const Tensor& out, const Tensor& dout,
                const std::vector<Tensor>& din, bool) override {
    check_io(in, out);
    if (!din[0].data) return;
    const size_t row = static_cast<size_t>(c_) * dtype_size(dt_);
    const auto* dy = static_cast<const uint8_t*>(dout.data);
    auto* dx = static_cast<uint8_t*>(din[0].data);
#pragma omp parallel for
    for (int64_t n = 0; n < n_; ++n) {
      std::memcpy(dx + n * t_ * row, dy + n * row, row);
      std::memset(dx + (n * t_ + 1) * row, 0, (t_ - 1) * row);
    }
  }

 private:
};

}  // namespace

LayerRows<CpuBackend> class_token_layers() {
  return {layer_row<PatchTokensLayer, CpuBackend>(LayerKind::PatchTokens),
          layer_row<ClassTokenLayer, CpuBackend>(LayerKind::ClassToken)};
}

}  // namespace mg::cpu
