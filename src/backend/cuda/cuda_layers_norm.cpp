// Training-mode batch normalization over N*H*W per channel with fp32 statistics (kernels/cuda/batchnorm.cu).
// Same conventions as the CPU backend (cpu_layers_norm.cpp) and torch: biased variance to normalise,
//   running_mean = (1 - m) * running_mean + m * mean,  running_var = (1 - m) * running_var + m * var * n/(n-1)
// and inference forward (training=false) with the running statistics (initially 0 and 1).
// With LayerOptions::relu the ReLU runs in place on the output, and backward first masks dout by out > 0 into
// the input-gradient buffer, which the statistics and the apply then read (in place: element-wise).
#include "backend/cuda/cuda_layers.h"
#include "kernels/cuda/kernels.cuh"

namespace mg::cuda {

namespace {

class BatchNormLayer final : public CudaLayer {
 public:
  explicit BatchNormLayer(const CudaLayerArgs& args) : CudaLayer(args) {
    c_ = out_shape_.c();
    rows_ = out_shape_.numel() / c_;
    const size_t fc = static_cast<size_t>(c_) * sizeof(float);
    running_mean_ = Buffer(be_, fc);
    running_var_ = Buffer(be_, fc);
    save_mean_ = Buffer(be_, fc);
    save_invstd_ = Buffer(be_, fc);
    coef_ = Buffer(be_, 3 * fc);
    sums_ = Buffer(be_, 2 * static_cast<size_t>(c_) * sizeof(double));
    kernels::fill(running_mean_.get(), DType::F32, c_, 0.0f, stream());
    kernels::fill(running_var_.get(), DType::F32, c_, 1.0f, stream());
    // Batch norm straight on the network input gets no input-gradient buffer, yet gamma/beta need the masked
    // gradient somewhere. Allocated here, not in backward: a cudaMalloc there would stall the device mid-step.
    if (opt_.relu && opt_.backward && !opt_.input_grad)
      masked_dy_ = Buffer(be_, static_cast<size_t>(out_shape_.numel()) * dtype_size(dt_));
  }

  void forward(const std::vector<Tensor>& in, const Tensor& out, bool training) override {
    check_io(in, out);
    check_bound();
    if (training) {
      kernels::channel_sums(in[0].data, in[0].data, nullptr, dt_, rows_, c_, sums_.as<double>(), stream());
      kernels::bn_finalize_stats(sums_.as<double>(), rows_, c_, params_[0], params_[1], desc_.bn.eps,
                                 desc_.bn.momentum, running_mean_.as<float>(), running_var_.as<float>(),
                                 save_mean_.as<float>(), save_invstd_.as<float>(), coef_.as<float>(), stream());
    } else {
      kernels::bn_inference_coef(running_mean_.as<float>(), running_var_.as<float>(), params_[0], params_[1],
                                 desc_.bn.eps, c_, coef_.as<float>(), stream());
    }
    kernels::bn_apply(in[0].data, out.data, coef_.as<float>(), dt_, rows_, c_, stream());
    if (opt_.relu) kernels::relu_forward(out.data, out.data, dt_, out.numel(), stream());
  }

  void backward(const std::vector<Tensor>& in, const Tensor& out, const Tensor& dout,
                const std::vector<Tensor>& din, bool accumulate) override {
    check_io(in, out);
    check_bound();
    const void* dy = dout.data;
    void* dx = din[0].data;
    if (opt_.relu) {
      if (!dx) {
        MG_ENSURE(masked_dy_.get(), where() + "backward without an input gradient on a layer built to give one");
        dx = masked_dy_.get();
      }
      kernels::relu_backward(out.data, dout.data, dx, dt_, out.numel(), stream());
      dy = dx;
    }
    kernels::channel_sums(dy, in[0].data, save_mean_.as<float>(), dt_, rows_, c_, sums_.as<double>(), stream());
    kernels::bn_backward_finalize(sums_.as<double>(), rows_, c_, params_[0], save_invstd_.as<float>(), grads_[0],
                                  grads_[1], accumulate, coef_.as<float>(), stream());
    if (din[0].data) {
      kernels::bn_backward_apply(in[0].data, dy, din[0].data, save_mean_.as<float>(), coef_.as<float>(), dt_, rows_,
                                 c_, stream());
    }
  }

 private:
  int64_t c_ = 0, rows_ = 0;
  Buffer running_mean_, running_var_, save_mean_, save_invstd_, coef_, sums_, masked_dy_;
};

}  // namespace

LayerRows<CudaBackend> norm_layers() { return {layer_row<BatchNormLayer, CudaBackend>(LayerKind::BatchNorm)}; }

}  // namespace mg::cuda
