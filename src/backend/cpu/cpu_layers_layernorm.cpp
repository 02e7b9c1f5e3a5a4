// Layer normalisation over the last dimension (torch.nn.LayerNorm(C), eps from the description), in fp32 with
// loops of its own whatever the activation type. Forward keeps each row's mean and 1/std for backward; the
// gamma/beta gradients are summed per thread, then over the threads in their order (the same sum every step).
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "backend/cpu/cpu_act_io.h"
#include "backend/cpu/cpu_layers.h"
#include "backend/transformer_dims.h"
#include "core/omp_team.h"

namespace mg::cpu {

namespace {

class LayerNormLayer final : public CpuLayer, LayerNormDims {
 public:
  explicit LayerNormLayer(const CpuLayerArgs& args)
      : CpuLayer(args), LayerNormDims(out_shape_), stats_(be_, static_cast<size_t>(2 * rows_) * sizeof(float)) {}

  void forward(const std::vector<Tensor>& in, const Tensor& out, bool) override {
    check_io(in, out);
    check_bound();
    const float* g = params_[0];
    const float* b = params_[1];
    float* mean = static_cast<float*>(stats_.get());
    float* rstd = mean + rows_;
    const int64_t C = c_, rows = rows_;
    const double eps = desc_.ln.eps;
    with_act_type(dt_, [&](auto tag) {
      using T = decltype(tag);
      const T* x = in[0].as<T>();
      T* y = out.as<T>();
#pragma omp parallel for
      for (int64_t r = 0; r < rows; ++r) {
        const T* xr = x + r * C;
        double s = 0, ss = 0;
        for (int64_t c = 0; c < C; ++c) s += to_f32(xr[c]);
        const double m = s / static_cast<double>(C);
        for (int64_t c = 0; c < C; ++c) {
          const double t = to_f32(xr[c]) - m;
          ss += t * t;
        }
        const float inv = static_cast<float>(1.0 / std::sqrt(ss / static_cast<double>(C) + eps));
        mean[r] = static_cast<float>(m);
        rstd[r] = inv;
        for (int64_t c = 0; c < C; ++c) from_f32((to_f32(xr[c]) - mean[r]) * inv * g[c] + b[c], y[r * C + c]);
      }
    });
  }

  void backward(const std::vector<Tensor>& in, const Tensor& out, const Tensor& dout,
                const std::vector<Tensor>& din, bool accumulate) override {
    check_io(in, out);
    check_bound();
    const int64_t C = c_;
    if (!accumulate) {
      std::memset(grads_[0], 0, static_cast<size_t>(C) * sizeof(float));
      std::memset(grads_[1], 0, static_cast<size_t>(C) * sizeof(float));
    }
    with_act_type(dt_, [&](auto tag) { backward_rows(decltype(tag){}, in[0], dout, din[0]); });
  }

 private:
  template <typename T>
  void backward_rows(T, const Tensor& xt, const Tensor& dyt, const Tensor& dxt) {
    const int64_t C = c_, rows = rows_;
    const float* g = params_[0];
    const float* mean = static_cast<float*>(stats_.get());
    const float* rstd = mean + rows_;
    const T* x = xt.as<T>();
    const T* dy = dyt.as<T>();
    T* dx = dxt.as<T>();
    float* dg = grads_[0];
    float* db = grads_[1];
    const int threads = omp_team(omp_get_max_threads());
    std::vector<double> part(static_cast<size_t>(threads * 2 * C), 0.0);  // per thread: dgamma, then dbeta
#pragma omp parallel num_threads(threads)
    {
      double* pg = part.data() + static_cast<size_t>(omp_get_thread_num()) * 2 * static_cast<size_t>(C);
      double* pb = pg + C;
#pragma omp for schedule(static)
      for (int64_t r = 0; r < rows; ++r) {
        const T* xr = x + r * C;
        const T* dyr = dy + r * C;
        double s1 = 0, s2 = 0;  // sums of dxhat and dxhat * xhat over the row
        for (int64_t c = 0; c < C; ++c) {
          const float xh = (to_f32(xr[c]) - mean[r]) * rstd[r], d = to_f32(dyr[c]);
          pg[c] += static_cast<double>(d) * xh;
          pb[c] += d;
          s1 += d * g[c];
          s2 += static_cast<double>(d) * g[c] * xh;
        }
        if (!dx) continue;
        const float m1 = static_cast<float>(s1 / static_cast<double>(C));
        const float m2 = static_cast<float>(s2 / static_cast<double>(C));
        for (int64_t c = 0; c < C; ++c) {
          const float xh = (to_f32(xr[c]) - mean[r]) * rstd[r];
          from_f32(rstd[r] * (to_f32(dyr[c]) * g[c] - m1 - xh * m2), dx[r * C + c]);
        }
      }
    }
    for (int64_t c = 0; c < C; ++c) {
      double sg = 0, sb = 0;
      for (int t = 0; t < threads; ++t) {
        sg += part[static_cast<size_t>((t * 2) * C + c)];
        sb += part[static_cast<size_t>((t * 2 + 1) * C + c)];
      }
      dg[c] += static_cast<float>(sg);
      db[c] += static_cast<float>(sb);
    }
  }

  Buffer stats_;  // per row: mean, then 1/std
};

}  // namespace

LayerRows<CpuBackend> layernorm_layers() { return {layer_row<LayerNormLayer, CpuBackend>(LayerKind::LayerNorm)}; }

}  // namespace mg::cpu
