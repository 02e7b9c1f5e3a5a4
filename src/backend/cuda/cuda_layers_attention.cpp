// Multi-head self-attention core, as the CPU backend computes it (cpu_layers_attention.cpp): from the fused qkv
// {N,T,3C} (q, k, v side by side per token, head h in columns h*d..h*d+d-1 of each), out {N,T,C} =
// softmax(Q K^T / sqrt(d)) V per head, causal where the description asks. The products are
// cublasGemmStridedBatchedEx calls batched over the heads or over the samples (a head is d columns further on, a
// sample T*3C elements, so both are read in place with ld 3C); cuBLAS is column-major, so each row-major product
// is issued as its transpose (a row-major M with row stride ld is the column-major M^T with the same ld):
//   S  = Q K^T s  ->  S^T  = K  Q^T   (gemm T,N  m=T n=T k=d)      s = 1/sqrt(d)
//   O  = P V      ->  O^T  = V^T P^T  (gemm N,N  m=d n=T k=T)
//   dP = dO V^T   ->  dP^T = V dO^T   (gemm T,N  m=T n=T k=d)
//   dV = P^T dO   ->  dV^T = dO^T P   (gemm N,T  m=d n=T k=T)
//   dQ = dS K s   ->  dQ^T = K^T dS^T (gemm N,N  m=d n=T k=T)
//   dK = dS^T Q s ->  dK^T = Q^T dS   (gemm N,T  m=d n=T k=T)
// Score rows are T rounded up to 8 elements apart (ViT's T = 197 gave 16-bit rows cuBLAS reads slowly); the
// padding is never read. Scores, probabilities and dP are fp32 (the products accumulate in fp32 and write fp32),
// the softmax, P's rebuild and the softmax backward are kernels/cuda/attention.cu's. Only each score row's
// log-sum-exp {N,H,T} stays in the layer from forward to backward (P would be N*H*T*ld floats a layer); backward
// recomputes S with forward's product and P = exp(S - lse) from it. P, the half copies of P and dS the products
// read at fp16/bf16, and dP live in the replica's scratch only inside one call, reserved here.
#include <cmath>

#include "backend/cuda/cuda_layers.h"
#include "backend/transformer_dims.h"
#include "kernels/cuda/kernels.cuh"

namespace mg::cuda {

namespace {

class AttentionLayer final : public CudaLayer, AttentionDims {
 public:
  explicit AttentionLayer(const CudaLayerArgs& args)
      : CudaLayer(args),
        AttentionDims(desc_, out_shape_),
        ld_((t_ + 7) / 8 * 8),
        scores_(n_ * h_ * t_ * ld_),
        lse_(be_, opt_.backward ? static_cast<size_t>(n_ * h_ * t_) * sizeof(float) : 0) {
    if (3 * c_ > 0x7fffffff || t_ > 0x7fffffff || h_ > 0x7fffffff) throw UsageError(where() + "too large for cuBLAS");
    scale_ = 1.f / std::sqrt(static_cast<float>(hd_));
    compute_ = opt_.precision == Precision::TF32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
    // Scratch: [P fp32 | P or dS in the activation type (fp16/bf16 only) | dP fp32 (backward only)]; scores_ is a
    // multiple of 8 elements, so every region starts 16-byte aligned.
    const size_t f32 = static_cast<size_t>(scores_) * sizeof(float);
    low_at_ = f32;
    dp_at_ = low_at_ + (dt_ == DType::F32 ? 0 : static_cast<size_t>(scores_) * dtype_size(dt_));
    scratch_bytes_ = dp_at_ + (opt_.backward ? f32 : 0);
    be_.scratch(scratch_bytes_);  // grown now, so no step allocates
  }

  void forward(const std::vector<Tensor>& in, const Tensor& out, bool) override {
    check_io(in, out);
    char* scratch = static_cast<char*>(be_.scratch(scratch_bytes_));
    float* p = reinterpret_cast<float*>(scratch);
    void* p_low = dt_ == DType::F32 ? nullptr : scratch + low_at_;
    product(CUBLAS_OP_T, CUBLAS_OP_N, t_, t_, hd_, scale_, head_in(in[0], 1), head_in(in[0], 0), scores(p, DType::F32));
    kernels::attention_softmax(p, p_low, lse_.as<float>(), dt_, n_ * h_ * t_, t_, ld_, desc_.attention.causal,
                               stream());
    product(CUBLAS_OP_N, CUBLAS_OP_N, hd_, t_, t_, 1.f, head_in(in[0], 2), scores(p_low ? p_low : p, dt_),
            head_out(out.data));
  }

  void backward(const std::vector<Tensor>& in, const Tensor& out, const Tensor& dout,
                const std::vector<Tensor>& din, bool) override {
    check_io(in, out);
    if (!din[0].data) return;
    MG_ENSURE(opt_.backward, where() + "backward on a layer built for inference");
    char* scratch = static_cast<char*>(be_.scratch(scratch_bytes_));
    float* p = reinterpret_cast<float*>(scratch);
    void* low = dt_ == DType::F32 ? nullptr : scratch + low_at_;  // P for dV, then dS
    float* dp = reinterpret_cast<float*>(scratch + dp_at_);
    // S again, as forward computed it, then P from it and the rows' log-sum-exp.
    product(CUBLAS_OP_T, CUBLAS_OP_N, t_, t_, hd_, scale_, head_in(in[0], 1), head_in(in[0], 0), scores(p, DType::F32));
    kernels::attention_probs(p, low, lse_.as<float>(), dt_, n_ * h_ * t_, t_, ld_, desc_.attention.causal, stream());
    product(CUBLAS_OP_T, CUBLAS_OP_N, t_, t_, hd_, 1.f, head_in(in[0], 2), head_out(dout.data), scores(dp, DType::F32));
    product(CUBLAS_OP_N, CUBLAS_OP_T, hd_, t_, t_, 1.f, head_out(dout.data), scores(low ? low : p, dt_),
            head_in(din[0], 2));
    kernels::attention_softmax_backward(p, dp, low, dt_, n_ * h_ * t_, t_, ld_, stream());
    const Mat ds = scores(low ? low : dp, dt_);
    product(CUBLAS_OP_N, CUBLAS_OP_N, hd_, t_, t_, scale_, head_in(in[0], 1), ds, head_in(din[0], 0));
    product(CUBLAS_OP_N, CUBLAS_OP_T, hd_, t_, t_, scale_, head_in(in[0], 0), ds, head_in(din[0], 1));
  }

 private:
  // A product operand: where sample 0's head 0 starts, its element type and leading dimension, and how far
  // (in elements) the next head and the next sample are.
  struct Mat {
    const void* p;
    DType dt;
    int64_t ld, head, sample;
  };
  // Part `which` (0 q, 1 k, 2 v) of the fused qkv, or of its gradient.
  Mat head_in(const Tensor& t, int which) const {
    return {static_cast<const char*>(t.data) + which * c_ * static_cast<int64_t>(dtype_size(dt_)), dt_, 3 * c_, hd_,
            t_ * 3 * c_};
  }
  Mat head_out(const void* p) const { return {p, dt_, c_, hd_, t_ * c_}; }
  Mat scores(const void* p, DType dt) const { return {p, dt, ld_, t_ * ld_, h_ * t_ * ld_}; }

  static const void* offset(const Mat& m, int64_t elements) {
    return static_cast<const char*>(m.p) + elements * static_cast<int64_t>(dtype_size(m.dt));
  }
  // C = alpha op(A) op(B) (column-major, beta 0) for every head of every sample: one strided-batched call per
  // sample over its heads, or per head over the samples when there are more samples than heads (ViT's batch 64
  // of 12 heads: 12 launches, not 64, of small products whose launch cost would dominate).
  void product(cublasOperation_t ta, cublasOperation_t tb, int64_t m, int64_t n, int64_t k, float alpha, const Mat& a,
               const Mat& b, const Mat& c) {
    const float zero = 0.f;
    const bool by_head = n_ > h_;
    const int64_t calls = by_head ? h_ : n_, batch = by_head ? n_ : h_;
    auto outer = [by_head](const Mat& x) { return by_head ? x.head : x.sample; };
    auto inner = [by_head](const Mat& x) { return by_head ? x.sample : x.head; };
    for (int64_t i = 0; i < calls; ++i) {
      MG_CHECK_CUBLAS(cublas_library().gemm_strided_batched_ex(
          be_.cublas(), ta, tb, int(m), int(n), int(k), &alpha, offset(a, i * outer(a)), cuda_dtype(a.dt), int(a.ld),
          inner(a), offset(b, i * outer(b)), cuda_dtype(b.dt), int(b.ld), inner(b), &zero,
          const_cast<void*>(offset(c, i * outer(c))), cuda_dtype(c.dt), int(c.ld), inner(c), int(batch), compute_,
          CUBLAS_GEMM_DEFAULT));
    }
  }

  const int64_t ld_;      // a score row's stride, T rounded up to 8 (16-byte rows at 16 bits: cuBLAS's fast kernels)
  const int64_t scores_;  // N*H*T*ld
  Buffer lse_;            // each score row's log-sum-exp {N,H,T} fp32, from forward to backward (none for inference)
  float scale_ = 1.f;
  cublasComputeType_t compute_;
  size_t low_at_ = 0, dp_at_ = 0;  // byte offsets in the scratch (P fp32 at 0)
  size_t scratch_bytes_ = 0;
};

}  // namespace

LayerRows<CudaBackend> attention_layers() { return {layer_row<AttentionLayer, CudaBackend>(LayerKind::Attention)}; }

}  // namespace mg::cuda
