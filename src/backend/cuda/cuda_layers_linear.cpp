// Fully connected layer through cublasGemmEx. Activations are row-major {N, F} ({N*T, F} for tokens); cuBLAS is
// column-major, so each row-major product is issued as its transpose (a row-major A is a column-major A^T with
// the same ld):
//   Y  = X W^T   ->  Y^T  = W   X^T   (gemm T,N  m=out n=N   k=in)
//   dX = dY W    ->  dX^T = W^T dY^T  (gemm N,N  m=in  n=N   k=out)
//   dW = dY^T X  ->  dW^T = X^T dY    (gemm N,T  m=in  n=out k=N), written straight into the fp32 gradient.
// fp16/bf16: the fp32 master weight is cast to a half copy each forward; accumulation is always fp32.
#include "backend/cuda/cuda_layers.h"
#include "kernels/cuda/kernels.cuh"

namespace mg::cuda {

namespace {

class LinearLayer final : public CudaLayer {
 public:
  explicit LinearLayer(const CudaLayerArgs& args) : CudaLayer(args) {
    // A 4-D input is read as its flattened memory (the weight's shape says how many features), a 3-D {N,T,C}
    // one as N*T rows.
    o_ = desc_.linear.out_features;
    n_ = out_shape_.numel() / o_;
    f_ = param_shapes_[0].shape[1];
    if (n_ > 0x7fffffff || f_ > 0x7fffffff || o_ > 0x7fffffff) throw UsageError(where() + "too large for cuBLAS");
    if (desc_.linear.bias) sums_ = Buffer(be_, 2 * static_cast<size_t>(o_) * sizeof(double));
    if (dt_ != DType::F32) w_low_ = Buffer(be_, static_cast<size_t>(o_ * f_) * dtype_size(dt_));
    compute_ = opt_.precision == Precision::TF32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
  }

  void forward(const std::vector<Tensor>& in, const Tensor& out, bool) override {
    check_io(in, out);
    check_bound();
    const void* w = weight();
    if (dt_ != DType::F32) kernels::cast(w_low_.get(), dt_, params_[0], DType::F32, o_ * f_, stream());
    const float one = 1.0f, zero = 0.0f;
    const cudaDataType_t t = cuda_dtype(dt_);
    MG_CHECK_CUBLAS(cublas_library().gemm_ex(be_.cublas(), CUBLAS_OP_T, CUBLAS_OP_N, int(o_), int(n_), int(f_), &one,
                                             w, t, int(f_), in[0].data, t, int(f_), &zero, out.data, t, int(o_),
                                             compute_, CUBLAS_GEMM_DEFAULT));
    if (desc_.linear.bias) kernels::add_channel_bias(out.data, out.data, params_[1], dt_, n_, o_, stream());
  }

  void backward(const std::vector<Tensor>& in, const Tensor& out, const Tensor& dout,
                const std::vector<Tensor>& din, bool accumulate) override {
    check_io(in, out);
    check_bound();
    const float one = 1.0f, zero = 0.0f, beta_w = accumulate ? 1.0f : 0.0f;
    const cudaDataType_t t = cuda_dtype(dt_);
    MG_CHECK_CUBLAS(cublas_library().gemm_ex(be_.cublas(), CUBLAS_OP_N, CUBLAS_OP_T, int(f_), int(o_), int(n_), &one,
                                             in[0].data, t, int(f_), dout.data, t, int(o_), &beta_w, grads_[0],
                                             CUDA_R_32F, int(f_), compute_, CUBLAS_GEMM_DEFAULT));
    if (desc_.linear.bias) {
      kernels::channel_sums(dout.data, nullptr, nullptr, dt_, n_, o_, sums_.as<double>(), stream());
      kernels::sums_to_grad(grads_[1], sums_.as<double>(), o_, accumulate, stream());
    }
    if (din[0].data) {
      MG_CHECK_CUBLAS(cublas_library().gemm_ex(be_.cublas(), CUBLAS_OP_N, CUBLAS_OP_N, int(f_), int(n_), int(o_),
                                               &one, weight(), t, int(f_), dout.data, t, int(o_), &zero, din[0].data,
                                               t, int(f_), compute_, CUBLAS_GEMM_DEFAULT));
    }
  }

 private:
  // The weight in the activation dtype: the fp32 master itself, or the copy refreshed by forward().
  const void* weight() const { return dt_ == DType::F32 ? static_cast<const void*>(params_[0]) : w_low_.get(); }

  int64_t n_ = 0, f_ = 0, o_ = 0;
  cublasComputeType_t compute_;
  Buffer w_low_, sums_;
};

}  // namespace

LayerRows<CudaBackend> linear_layers() { return {layer_row<LinearLayer, CudaBackend>(LayerKind::Linear)}; }

}  // namespace mg::cuda
