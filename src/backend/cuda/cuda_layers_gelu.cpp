// GELU in the form the description asks (GPT-2's tanh approximation, or the exact erf form ViT uses), as the CPU
// backend computes it (cpu_layers_gelu.cpp); kernels in kernels/cuda/gelu.cu. Backward reads the input, never the
// output.
#include "backend/cuda/cuda_layers.h"
#include "kernels/cuda/kernels.cuh"

namespace mg::cuda {

namespace {

class GeluLayer final : public CudaLayer {
 public:
  using CudaLayer::CudaLayer;
  void forward(const std::vector<Tensor>& in, const Tensor& out, bool) override {
    check_io(in, out);
    kernels::gelu_forward(in[0].data, out.data, dt_, out.numel(), desc_.gelu.tanh, stream());
  }
  void backward(const std::vector<Tensor>& in, const Tensor& out, const Tensor& dout,
                const std::vector<Tensor>& din, bool) override {
    check_io(in, out);
    if (din[0].data)
      kernels::gelu_backward(in[0].data, dout.data, din[0].data, dt_, out.numel(), desc_.gelu.tanh, stream());
  }
};

}  // namespace

LayerRows<CudaBackend> gelu_layers() { return {layer_row<GeluLayer, CudaBackend>(LayerKind::Gelu)}; }

}  // namespace mg::cuda
