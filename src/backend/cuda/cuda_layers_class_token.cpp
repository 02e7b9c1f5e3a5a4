// ViT's class token in and out, as the CPU backend computes them (cpu_layers_class_token.cpp); kernels in
// kernels/cuda/class_token.cu. PatchTokens: the patch grid (NHWC, so {N,h*w,C} rows) with the class token in front
// and the position table added; its gradients are the patch rows for the grid and batch sums for the class token
// and the table. ClassToken: each sequence's row 0, the row the head classifies from.
#include "backend/cuda/cuda_layers.h"
#include "backend/transformer_dims.h"
#include "kernels/cuda/kernels.cuh"

namespace mg::cuda {

namespace {

class PatchTokensLayer final : public CudaLayer, PatchTokenDims {
 public:
  explicit PatchTokensLayer(const CudaLayerArgs& args) : CudaLayer(args), PatchTokenDims(desc_, in_shapes_[0]) {}

  void forward(const std::vector<Tensor>& in, const Tensor& out, bool) override {
    check_bound();
    check_io(in, out);
    kernels::patch_tokens_forward(in[0].data, params_[0], params_[1], out.data, dt_, n_, p_, c_, stream());
  }

  void backward(const std::vector<Tensor>& in, const Tensor& out, const Tensor& dout,
                const std::vector<Tensor>& din, bool accumulate) override {
    check_bound();
    check_io(in, out);
    // A first layer gets no input gradient; the class token and the table always get theirs.
    kernels::patch_tokens_backward(dout.data, din[0].data, grads_[0], grads_[1], dt_, n_, p_, c_, accumulate,
                                   stream());
  }

 private:
};

class ClassTokenLayer final : public CudaLayer, ClassTokenDims {
 public:
  explicit ClassTokenLayer(const CudaLayerArgs& args) : CudaLayer(args), ClassTokenDims(in_shapes_[0]) {}

  void forward(const std::vector<Tensor>& in, const Tensor& out, bool) override {
    check_io(in, out);
    kernels::class_token_forward(in[0].data, out.data, dt_, n_, t_, c_, stream());
  }

  void backward(const std::vector<Tensor>& in, const Tensor& out, const Tensor& dout,
                const std::vector<Tensor>& din, bool) override {
    check_io(in, out);
    if (din[0].data) kernels::class_token_backward(dout.data, din[0].data, dt_, n_, t_, c_, stream());
  }

 private:
};

}  // namespace

LayerRows<CudaBackend> class_token_layers() {
  return {layer_row<PatchTokensLayer, CudaBackend>(LayerKind::PatchTokens),
          layer_row<ClassTokenLayer, CudaBackend>(LayerKind::ClassToken)};
}

}  // namespace mg::cuda
