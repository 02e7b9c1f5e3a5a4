// Max, average and global-average pooling on NHWC (kernels/cuda/pool.cu, kernels/cuda/layers_misc.cu), torch's rules.
#include "backend/cuda/cuda_layers.h"
#include "kernels/cuda/kernels.cuh"

namespace mg::cuda {

namespace {

class PoolLayer final : public CudaLayer {
 public:
  explicit PoolLayer(const CudaLayerArgs& args) : CudaLayer(args) {
    const Shape& x = in_shapes_[0];
    if (desc_.kind == LayerKind::GlobalAvgPool) return;
    const PoolParams& p = desc_.pool;
    if (desc_.kind == LayerKind::MaxPool && p.kh * p.kw > 255) {
      throw UsageError("pooling layer " + desc_.name + ": max-pool window " + std::to_string(p.kh) + "x" +
                       std::to_string(p.kw) + " is larger than the 255 elements the CUDA backend supports");
    }
    g_ = kernels::PoolGeom{x.n(), x.c(), x.h(), x.w(), out_shape_.h(), out_shape_.w(), p.kh, p.kw,
                           p.stride_h, p.stride_w, p.pad_h, p.pad_w};
    if (desc_.kind == LayerKind::MaxPool) argmax_ = Buffer(be_, static_cast<size_t>(out_shape_.numel()));
  }

  void forward(const std::vector<Tensor>& in, const Tensor& out, bool) override {
    check_io(in, out);
    const Shape& x = in_shapes_[0];
    switch (desc_.kind) {
      case LayerKind::GlobalAvgPool:
        kernels::global_avg_pool_forward(in[0].data, out.data, dt_, x.n(), x.h() * x.w(), x.c(), stream());
        break;
      case LayerKind::MaxPool:
        kernels::max_pool_forward(in[0].data, out.data, argmax_.as<uint8_t>(), dt_, g_, stream());
        break;
      default: kernels::avg_pool_forward(in[0].data, out.data, dt_, g_, stream()); break;
    }
  }

  void backward(const std::vector<Tensor>& in, const Tensor& out, const Tensor& dout,
                const std::vector<Tensor>& din, bool) override {
    check_io(in, out);
    if (!din[0].data) return;
    const Shape& x = in_shapes_[0];
    switch (desc_.kind) {
      case LayerKind::GlobalAvgPool:
        kernels::global_avg_pool_backward(dout.data, din[0].data, dt_, x.n(), x.h() * x.w(), x.c(), stream());
        break;
      case LayerKind::MaxPool:
        kernels::max_pool_backward(dout.data, argmax_.as<uint8_t>(), din[0].data, dt_, g_, stream());
        break;
      default: kernels::avg_pool_backward(dout.data, din[0].data, dt_, g_, stream()); break;
    }
  }

 private:
  kernels::PoolGeom g_{};
  Buffer argmax_;
};

}  // namespace

LayerRows<CudaBackend> pool_layers() {
  return {layer_row<PoolLayer, CudaBackend>(LayerKind::MaxPool), layer_row<PoolLayer, CudaBackend>(LayerKind::AvgPool),
          layer_row<PoolLayer, CudaBackend>(LayerKind::GlobalAvgPool)};
}

}  // namespace mg::cuda
