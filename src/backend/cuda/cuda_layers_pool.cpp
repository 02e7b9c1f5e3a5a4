// Max, average and global-average pooling on NHWC (kernels/pool.cu, kernels/layers_misc.cu), torch's rules.
#include "backend/cuda/cuda_layers.h"
#include "kernels/kernels.cuh"

namespace mg::cuda {

namespace {

class PoolLayer final : public CudaLayer {
 public:
  PoolLayer(CudaBackend& be, const LayerDesc& d, const std::vector<Shape>& in, const LayerOptions& opt)
      : CudaLayer(be, d, in, opt) {
    const Shape& x = in_shapes_[0];
    const std::string w = "pooling layer " + d.name + ": ";
    if (x.rank() != 4) throw UsageError(w + "input " + x.str() + " must be {N,C,H,W}");
    if (d.kind == LayerKind::GlobalAvgPool) {
      out_shape_ = Shape{x.n(), x.c()};
      return;
    }
    const PoolParams& p = d.pool;
    if (p.kh <= 0 || p.kw <= 0 || p.stride_h <= 0 || p.stride_w <= 0 || p.pad_h < 0 || p.pad_w < 0) {
      throw UsageError(w + "kernel and stride must be positive, padding >= 0");
    }
    if (2 * p.pad_h > p.kh || 2 * p.pad_w > p.kw) {
      throw UsageError(w + "padding must be at most half the kernel size (as torch requires)");
    }
    if (d.kind == LayerKind::MaxPool && p.kh * p.kw > 255) {
      throw UsageError(w + "max-pool window " + std::to_string(p.kh) + "x" + std::to_string(p.kw) +
                       " is larger than the 255 elements the CUDA backend supports");
    }
    const int64_t oh = window_out_size(x.h(), p.kh, p.stride_h, p.pad_h, p.ceil_mode);
    const int64_t ow = window_out_size(x.w(), p.kw, p.stride_w, p.pad_w, p.ceil_mode);
    if (oh < 1 || ow < 1) {
      throw UsageError(w + "input " + x.str() + " is too small for the " + std::to_string(p.kh) + "x" +
                       std::to_string(p.kw) + " window");
    }
    out_shape_ = Shape{x.n(), x.c(), oh, ow};
    g_ = kernels::PoolGeom{x.n(), x.c(), x.h(), x.w(), oh, ow, p.kh, p.kw, p.stride_h, p.stride_w, p.pad_h, p.pad_w};
    if (d.kind == LayerKind::MaxPool) argmax_ = Buffer(be, static_cast<size_t>(out_shape_.numel()));
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

std::unique_ptr<LayerOp> make_pool(CudaBackend& be, const LayerDesc& d, const std::vector<Shape>& in,
                                   const LayerOptions& opt) {
  return std::make_unique<PoolLayer>(be, d, in, opt);
}

}  // namespace mg::cuda
