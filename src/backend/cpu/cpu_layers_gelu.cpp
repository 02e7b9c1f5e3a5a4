// GELU in its tanh form, as GPT-2 (and nanoGPT, llm.c) compute it, or, where the description asks (ViT), the
// exact form torch's nn.GELU() computes (backend/gelu_math.h). fp32 whatever the activation type; backward reads
// the input (never the output, so it may be overwritten).
#include "backend/cpu/cpu_act_io.h"
#include "backend/cpu/cpu_layers.h"
#include "backend/gelu_math.h"

namespace mg::cpu {

namespace {

class GeluLayer final : public CpuLayer {
 public:
  using CpuLayer::CpuLayer;
  void forward(const std::vector<Tensor>& in, const Tensor& out, bool) override {
    check_io(in, out);
    const int64_t n = out_shape_.numel();
    with_act_type(dt_, [&](auto tag) {
      using T = decltype(tag);
      const T* x = in[0].as<T>();
      T* y = out.as<T>();
      if (desc_.gelu.tanh) {
#pragma omp parallel for simd if (n > 16384)
        for (int64_t i = 0; i < n; ++i) from_f32(gelu_tanh(to_f32(x[i])), y[i]);
      } else {
#pragma omp parallel for simd if (n > 16384)
        for (int64_t i = 0; i < n; ++i) from_f32(gelu_erf(to_f32(x[i])), y[i]);
      }
    });
  }
  void backward(const std::vector<Tensor>& in, const Tensor& out, const Tensor& dout,
                const std::vector<Tensor>& din, bool) override {
    check_io(in, out);
    if (!din[0].data) return;
    const int64_t n = out_shape_.numel();
    with_act_type(dt_, [&](auto tag) {
      using T = decltype(tag);
      const T* x = in[0].as<T>();
      const T* dy = dout.as<T>();
      T* dx = din[0].as<T>();
      if (desc_.gelu.tanh) {
#pragma omp parallel for simd if (n > 16384)
        for (int64_t i = 0; i < n; ++i) from_f32(to_f32(dy[i]) * gelu_tanh_grad(to_f32(x[i])), dx[i]);
      } else {
#pragma omp parallel for simd if (n > 16384)
        for (int64_t i = 0; i < n; ++i) from_f32(to_f32(dy[i]) * gelu_erf_grad(to_f32(x[i])), dx[i]);
      }
    });
  }
};

}  // namespace

LayerRows<CpuBackend> gelu_layers() { return {layer_row<GeluLayer, CpuBackend>(LayerKind::Gelu)}; }

}  // namespace mg::cpu
