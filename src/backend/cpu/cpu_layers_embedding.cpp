// Token plus position embedding (GPT-2's wte + wpe): out[n,t,:] = weight[id[n,t],:] + position[t,:], from int32
// token ids {N,T}. Backward scatters dout into the token table (rows of ids that repeat add up) and sums it over
// the batch into the position table; the ids get no gradient. Loops of its own, fp32 arithmetic.
#include <cstring>

#include "backend/cpu/cpu_act_io.h"
#include "backend/cpu/cpu_layers.h"
#include "backend/transformer_dims.h"

namespace mg::cpu {

namespace {

class EmbeddingLayer final : public CpuLayer, EmbeddingDims {
 public:
  explicit EmbeddingLayer(const CpuLayerArgs& args) : CpuLayer(args), EmbeddingDims(desc_, in_shapes_[0]) {}

  void forward(const std::vector<Tensor>& in, const Tensor& out, bool) override {
    check_ids(in, out);
    const int32_t* ids = in[0].as<int32_t>();
    const float* wte = params_[0];
    const float* wpe = params_[1];
    const int64_t T = t_, C = c_, rows = n_ * t_;
    with_act_type(dt_, [&](auto tag) {
      using Act = decltype(tag);
      Act* y = out.as<Act>();
#pragma omp parallel for
      for (int64_t r = 0; r < rows; ++r) {
        const float* tok = wte + static_cast<int64_t>(ids[r]) * C;
        const float* pos = wpe + (r % T) * C;
        for (int64_t c = 0; c < C; ++c) from_f32(tok[c] + pos[c], y[r * C + c]);
      }
    });
  }

  void backward(const std::vector<Tensor>& in, const Tensor& out, const Tensor& dout,
                const std::vector<Tensor>& din, bool accumulate) override {
    check_ids(in, out);
    MG_ENSURE(!din[0].data, where() + "token ids have no gradient; pass an empty input gradient");
    const int32_t* ids = in[0].as<int32_t>();
    float* dwte = grads_[0];
    float* dwpe = grads_[1];
    if (!accumulate) {
      std::memset(dwte, 0, static_cast<size_t>(v_ * c_) * sizeof(float));
      std::memset(dwpe, 0, static_cast<size_t>(param_shapes_[1].shape.numel()) * sizeof(float));
    }
    const int64_t N = n_, T = t_, C = c_;
    with_act_type(dt_, [&](auto tag) {
      using Act = decltype(tag);
      const Act* dy = dout.as<Act>();
      // Each thread owns a slice of the columns, so repeated ids never race and the sums run in token order.
#pragma omp parallel for
      for (int64_t c = 0; c < C; ++c) {
        for (int64_t r = 0; r < N * T; ++r) dwte[static_cast<int64_t>(ids[r]) * C + c] += to_f32(dy[r * C + c]);
        for (int64_t t = 0; t < T; ++t) {
          float s = 0;
          for (int64_t n = 0; n < N; ++n) s += to_f32(dy[(n * T + t) * C + c]);
          dwpe[t * C + c] += s;
        }
      }
    });
  }

 private:
  // The ids are the network's input, int32 rather than the activation type; each must name a table row.
  void check_ids(const std::vector<Tensor>& in, const Tensor& out) const {
    check_bound();
    check_token_io(in, out);
    const int32_t* ids = in[0].as<int32_t>();
    for (int64_t r = 0; r < n_ * t_; ++r)
      MG_ENSURE(ids[r] >= 0 && ids[r] < v_, where() + "token id " + std::to_string(ids[r]) + " outside the " +
                                                std::to_string(v_) + "-token vocabulary");
  }

};

}  // namespace

LayerRows<CpuBackend> embedding_layers() { return {layer_row<EmbeddingLayer, CpuBackend>(LayerKind::Embedding)}; }

}  // namespace mg::cpu
