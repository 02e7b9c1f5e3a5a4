// Parameter-free layers: ReLU, residual add, channel concat, flatten (and token flatten), dropout (kernels in
// kernels/cuda/layers_misc.cu).
#include "backend/cuda/cuda_layers.h"
#include "backend/dropout_mask.h"
#include "kernels/cuda/kernels.cuh"

namespace mg::cuda {

namespace {

void copy_on(cudaStream_t s, void* dst, const void* src, size_t bytes) {
  if (dst != src && bytes) MG_CHECK_CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, s));
}

class ReluLayer final : public CudaLayer {
 public:
  using CudaLayer::CudaLayer;
  void forward(const std::vector<Tensor>& in, const Tensor& out, bool) override {
    check_io(in, out);
    kernels::relu_forward(in[0].data, out.data, dt_, out.numel(), stream());
  }
  void backward(const std::vector<Tensor>& in, const Tensor& out, const Tensor& dout,
                const std::vector<Tensor>& din, bool) override {
    check_io(in, out);
    if (din[0].data) kernels::relu_backward(out.data, dout.data, din[0].data, dt_, out.numel(), stream());
  }
};

// With LayerOptions::relu: the ReLU in place on the sum; backward masks dout into the first input's gradient
// once and copies that to the second (the CPU backend's order).
class AddLayer final : public CudaLayer {
 public:
  using CudaLayer::CudaLayer;
  void forward(const std::vector<Tensor>& in, const Tensor& out, bool) override {
    check_io(in, out);
    kernels::add2(in[0].data, in[1].data, out.data, dt_, out.numel(), stream());
    if (opt_.relu) kernels::relu_forward(out.data, out.data, dt_, out.numel(), stream());
  }
  void backward(const std::vector<Tensor>& in, const Tensor& out, const Tensor& dout,
                const std::vector<Tensor>& din, bool) override {
    check_io(in, out);
    const void* grad = dout.data;
    if (opt_.relu) {
      const Tensor& first = din[0].data ? din[0] : din[1];
      if (!first.data) return;
      kernels::relu_backward(out.data, dout.data, first.data, dt_, out.numel(), stream());
      grad = first.data;
    }
    for (const Tensor& d : din) {
      if (d.data) copy_on(stream(), d.data, grad, dout.bytes());
    }
  }
};

// Channel concat: in NHWC a channel block of every pixel row, so each input is a strided column block.
class ConcatLayer final : public CudaLayer {
 public:
  explicit ConcatLayer(const CudaLayerArgs& args) : CudaLayer(args) {
    const Shape& a = in_shapes_[0];
    rows_ = a.n() * a.h() * a.w();
  }
  void forward(const std::vector<Tensor>& in, const Tensor& out, bool) override {
    check_io(in, out);
    const int64_t total = out_shape_.c();
    int64_t off = 0;
    for (size_t i = 0; i < in.size(); ++i) {
      const int64_t c = in_shapes_[i].c();
      kernels::copy_channels(in[i].data, c, 0, out.data, total, off, c, dt_, rows_, stream());
      off += c;
    }
  }
  void backward(const std::vector<Tensor>& in, const Tensor& out, const Tensor& dout,
                const std::vector<Tensor>& din, bool) override {
    check_io(in, out);
    const int64_t total = out_shape_.c();
    int64_t off = 0;
    for (size_t i = 0; i < in.size(); ++i) {
      const int64_t c = in_shapes_[i].c();
      if (din[i].data) kernels::copy_channels(dout.data, total, off, din[i].data, c, 0, c, dt_, rows_, stream());
      off += c;
    }
  }

 private:
  int64_t rows_ = 0;
};

// NHWC memory is already in {N, H*W*C} order (and {N,T,V} in TokenFlatten's {N*T,V}), so flatten is a copy (the
// next Linear's weights follow it).
class FlattenLayer final : public CudaLayer {
 public:
  using CudaLayer::CudaLayer;
  void forward(const std::vector<Tensor>& in, const Tensor& out, bool) override {
    check_io(in, out);
    copy_on(stream(), out.data, in[0].data, out.bytes());
  }
  void backward(const std::vector<Tensor>& in, const Tensor& out, const Tensor& dout,
                const std::vector<Tensor>& din, bool) override {
    check_io(in, out);
    if (din[0].data) copy_on(stream(), din[0].data, dout.data, dout.bytes());
  }
};

// Inverted dropout with the counter-based mask both backends draw (backend/dropout_mask.h).
class DropoutLayer final : public CudaLayer {
 public:
  explicit DropoutLayer(const CudaLayerArgs& args) : CudaLayer(args), mask_(desc_.dropout.p, opt_.seed) {}
  void forward(const std::vector<Tensor>& in, const Tensor& out, bool training) override {
    check_io(in, out);
    if (!training) {
      copy_on(stream(), out.data, in[0].data, out.bytes());
      return;
    }
    kernels::dropout_forward(in[0].data, out.data, dt_, out.numel(), mask_.p(), mask_.next(), stream());
  }
  void backward(const std::vector<Tensor>& in, const Tensor& out, const Tensor& dout,
                const std::vector<Tensor>& din, bool) override {
    check_io(in, out);
    const uint64_t latest = mask_.latest(desc_.name);
    if (din[0].data) kernels::dropout_backward(dout.data, din[0].data, dt_, out.numel(), mask_.p(), latest, stream());
  }

 private:
  DropoutMask mask_;
};

}  // namespace

LayerRows<CudaBackend> misc_layers() {
  return {layer_row<ReluLayer, CudaBackend>(LayerKind::Relu), layer_row<AddLayer, CudaBackend>(LayerKind::Add),
          layer_row<ConcatLayer, CudaBackend>(LayerKind::Concat),
          layer_row<FlattenLayer, CudaBackend>(LayerKind::Flatten),
          layer_row<FlattenLayer, CudaBackend>(LayerKind::TokenFlatten),
          layer_row<DropoutLayer, CudaBackend>(LayerKind::Dropout)};
}

}  // namespace mg::cuda
