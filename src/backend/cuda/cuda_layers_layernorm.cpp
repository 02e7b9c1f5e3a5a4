// Layer normalisation over the last dimension (torch.nn.LayerNorm(C), eps from the description), as the CPU
// backend computes it (cpu_layers_layernorm.cpp): fp32 statistics whatever the activation type, each row's mean
// and 1/std kept from forward for backward; kernels in kernels/cuda/layernorm.cu.
#include "backend/cuda/cuda_layers.h"
#include "backend/transformer_dims.h"
#include "kernels/cuda/kernels.cuh"

namespace mg::cuda {

namespace {

class LayerNormLayer final : public CudaLayer, LayerNormDims {
 public:
  explicit LayerNormLayer(const CudaLayerArgs& args)
      : CudaLayer(args), LayerNormDims(out_shape_), stats_(be_, 2 * static_cast<size_t>(rows_) * sizeof(float)) {
    if (opt_.backward)
      partials_ = Buffer(be_, static_cast<size_t>(kernels::layernorm_param_partials(rows_, c_)) * sizeof(float));
  }

  void forward(const std::vector<Tensor>& in, const Tensor& out, bool) override {
    check_io(in, out);
    check_bound();
    kernels::layernorm_forward(in[0].data, out.data, params_[0], params_[1], mean(), rstd(), dt_, rows_, c_,
                               desc_.ln.eps, stream());
  }

  void backward(const std::vector<Tensor>& in, const Tensor& out, const Tensor& dout,
                const std::vector<Tensor>& din, bool accumulate) override {
    check_io(in, out);
    check_bound();
    MG_ENSURE(partials_.get(), where() + "backward on a layer built for inference");
    // Parameters first: they read dout, which the input gradient may overwrite.
    kernels::layernorm_backward_params(in[0].data, dout.data, mean(), rstd(), dt_, rows_, c_, partials_.as<float>(),
                                       grads_[0], grads_[1], accumulate, stream());
    if (din[0].data) {
      kernels::layernorm_backward_input(in[0].data, dout.data, din[0].data, params_[0], mean(), rstd(), dt_, rows_, c_,
                                        stream());
    }
  }

 private:
  float* mean() const { return stats_.as<float>(); }
  float* rstd() const { return stats_.as<float>() + rows_; }

  Buffer stats_;     // per row: mean, then 1/std
  Buffer partials_;  // the parameter gradients' per-chunk sums
};

}  // namespace

LayerRows<CudaBackend> layernorm_layers() { return {layer_row<LayerNormLayer, CudaBackend>(LayerKind::LayerNorm)}; }

}  // namespace mg::cuda
