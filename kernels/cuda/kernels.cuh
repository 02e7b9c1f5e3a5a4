// Host-side launchers for the CUDA kernels mgbench needs beyond cuDNN and cuBLAS. Plain C++ declarations
// (no device code) so the backend's .cpp files can call them; each launcher enqueues on `stream` and checks
// the launch. Element types are chosen at run time by DType (F32, F16, BF16; I32 where stated).
//
// Layout conventions follow core/tensor.h: activations NHWC, so "rows" are N*H*W pixels and "channels" the
// innermost dimension C.
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "core/dtype.h"

namespace mg::kernels {

// ---- whole-tensor operations (elementwise.cu)
void fill(void* p, DType dt, int64_t n, float value, cudaStream_t s);
// Same values as CpuBackend::fill_uniform (counter-based); I32 draws integers in [lo, hi).
void fill_uniform(void* p, DType dt, int64_t n, float lo, float hi, uint64_t seed, cudaStream_t s);
void cast(void* dst, DType dst_dt, const void* src, DType src_dt, int64_t n, cudaStream_t s);
void add_inplace(void* dst, const void* src, DType dt, int64_t n, cudaStream_t s);
void scale(void* p, DType dt, int64_t n, float alpha, cudaStream_t s);
// Adds the count of NaN/Inf elements to *counter (device).
void count_nonfinite(const void* p, DType dt, int64_t n, unsigned long long* counter, cudaStream_t s);
// g = grad*grad_scale + wd*p; v = momentum*v + g; p -= lr*v (torch.optim.SGD, dampening 0, no nesterov).
void sgd_update(float* p, const float* g, float* v, int64_t n, float lr, float momentum, float weight_decay,
                float grad_scale, cudaStream_t s);
// AdamW (backend.h states the update); c1, c2: the bias corrections 1 / (1 - beta^step).
void adamw_update(float* p, const float* g, float* m, float* v, int64_t n, float lr, float beta1, float beta2, float eps,
                  float weight_decay, float c1, float c2, float grad_scale, cudaStream_t s);
// dst (fp32) = src converted (accumulate: dst += src). For low-precision weight gradients into fp32 grads.
void accumulate_to_f32(float* dst, const void* src, DType src_dt, int64_t n, bool accumulate, cudaStream_t s);

// ---- loss (softmax_xent.cu)
// Mean softmax cross-entropy over n rows of k logits. row_loss: n fp32 scratch. loss: 1 fp32. dlogits may be
// null. A label outside [0, k) makes the loss NaN (the trainer stops on a non-finite loss).
void softmax_xent(const void* logits, DType dt, const int32_t* labels, int64_t n, int64_t k, float* row_loss,
                  float* loss, void* dlogits, float grad_scale, cudaStream_t s);

// ---- per-channel reductions, bias and batch norm (batchnorm.cu)
// sums[c] = sum_r a[r,c]; sums[C + c] = sum_r a[r,c] * (b[r,c] - center[c]) when b is non-null (center may be
// null = 0). sums is 2*C doubles, overwritten.
void channel_sums(const void* a, const void* b, const float* center, DType dt, int64_t rows, int64_t channels,
                  double* sums, cudaStream_t s);
// dst[c] (=|+=) (float)sums[c]: bias gradients from channel_sums.
void sums_to_grad(float* dst, const double* sums, int64_t channels, bool accumulate, cudaStream_t s);
// out[r,c] = in[r,c] + bias[c] (in place allowed).
void add_channel_bias(void* out, const void* in, const float* bias, DType dt, int64_t rows, int64_t channels,
                      cudaStream_t s);

// Batch norm over rows (N*H*W) of C channels, fp32 statistics.
// From sums of x and x^2 (channel_sums with b = a, center = null): save_mean/save_invstd, the running
// statistics (torch: unbiased variance, running = (1-m)*running + m*batch), and coef = {scale, shift}.
void bn_finalize_stats(const double* sums, int64_t rows, int64_t channels, const float* gamma, const float* beta,
                       float eps, float momentum, float* running_mean, float* running_var, float* save_mean,
                       float* save_invstd, float* coef, cudaStream_t s);
// Inference: coef from running statistics.
void bn_inference_coef(const float* running_mean, const float* running_var, const float* gamma,
                       const float* beta, float eps, int64_t channels, float* coef, cudaStream_t s);
// y = x*coef[c] + coef[C+c].
void bn_apply(const void* x, void* y, const float* coef, DType dt, int64_t rows, int64_t channels,
              cudaStream_t s);
// From sums of dy and dy*(x-mean): dgamma/dbeta into the fp32 grads, and coef for bn_backward_apply.
void bn_backward_finalize(const double* sums, int64_t rows, int64_t channels, const float* gamma,
                          const float* save_invstd, float* dgamma, float* dbeta, bool accumulate, float* coef,
                          cudaStream_t s);
// dx = coef[c]*(dy - coef[C+c] - (x - mean[c])*coef[2C+c]).
void bn_backward_apply(const void* x, const void* dy, void* dx, const float* mean, const float* coef, DType dt,
                       int64_t rows, int64_t channels, cudaStream_t s);

// ---- simple layers (layers_misc.cu)
void relu_forward(const void* x, void* y, DType dt, int64_t n, cudaStream_t s);
void relu_backward(const void* y, const void* dy, void* dx, DType dt, int64_t n, cudaStream_t s);
void add2(const void* a, const void* b, void* out, DType dt, int64_t n, cudaStream_t s);
// Copies a [rows, src_c] block into columns [offset, offset+src_c) of a [rows, dst_c] matrix (concat), or
// back out of it (split).
void copy_channels(const void* src, int64_t src_c, int64_t src_off, void* dst, int64_t dst_c, int64_t dst_off,
                   int64_t width, DType dt, int64_t rows, cudaStream_t s);
// {N, HW, C} -> {N, C} mean, and its gradient (dy / HW broadcast).
void global_avg_pool_forward(const void* x, void* y, DType dt, int64_t n, int64_t hw, int64_t c,
                             cudaStream_t s);
void global_avg_pool_backward(const void* dy, void* dx, DType dt, int64_t n, int64_t hw, int64_t c,
                              cudaStream_t s);
// Inverted dropout: keep element i when counter_uniform(seed, i) >= p, scaled by 1/(1-p). `seed` is the
// per-forward mask stream (the layer derives it as the CPU backend does; see cuda_layers_misc.cpp).
void dropout_forward(const void* x, void* y, DType dt, int64_t n, float p, uint64_t seed, cudaStream_t s);
void dropout_backward(const void* dy, void* dx, DType dt, int64_t n, float p, uint64_t seed, cudaStream_t s);

// ---- pooling, NHWC (pool.cu)
struct PoolGeom {
  int64_t n, c, h, w, oh, ow, kh, kw, sh, sw, ph, pw;
};
// argmax: one byte per output element, the position of the maximum inside its window (kh*kw <= 255).
void max_pool_forward(const void* x, void* y, uint8_t* argmax, DType dt, const PoolGeom& g, cudaStream_t s);
void max_pool_backward(const void* dy, const uint8_t* argmax, void* dx, DType dt, const PoolGeom& g,
                       cudaStream_t s);
// torch semantics with count_include_pad=true: divisor counts padding but not the ceil-mode overhang.
void avg_pool_forward(const void* x, void* y, DType dt, const PoolGeom& g, cudaStream_t s);
void avg_pool_backward(const void* dy, void* dx, DType dt, const PoolGeom& g, cudaStream_t s);

// ---- transformer layers: activations {N,T,C} are N*T rows of C (the CPU backend's layouts)
// GELU (gelu.cu): tanh_form true is GPT-2's tanh approximation, false the exact erf form; backward reads the input.
void gelu_forward(const void* x, void* y, DType dt, int64_t n, bool tanh_form, cudaStream_t s);
void gelu_backward(const void* x, const void* dy, void* dx, DType dt, int64_t n, bool tanh_form, cudaStream_t s);

// Layer norm over the last dimension (layernorm.cu): mean and rstd (1/std) are rows fp32 each, written by forward
// and read by backward. The parameter gradients need layernorm_param_partials(rows, c) fp32 of partials and
// must run before backward_input when dx is dy.
void layernorm_forward(const void* x, void* y, const float* gamma, const float* beta, float* mean, float* rstd,
                       DType dt, int64_t rows, int64_t c, float eps, cudaStream_t s);
void layernorm_backward_input(const void* x, const void* dy, void* dx, const float* gamma, const float* mean,
                              const float* rstd, DType dt, int64_t rows, int64_t c, cudaStream_t s);
int64_t layernorm_param_partials(int64_t rows, int64_t c);
// dgamma/dbeta (fp32) overwritten, or added to with accumulate.
void layernorm_backward_params(const void* x, const void* dy, const float* mean, const float* rstd, DType dt,
                               int64_t rows, int64_t c, float* partials, float* dgamma, float* dbeta, bool accumulate,
                               cudaStream_t s);

// Token + position embedding (embedding.cu): out[n,t,:] = wte[ids[n,t],:] + wpe[t,:]; an id outside [0, vocab)
// makes its row NaN. Backward's scratch for the stable sort of the ids, all sized for n*t rows.
struct TokenSort {
  int32_t* keys = nullptr;      // the sorted ids
  int32_t* rows_in = nullptr;   // 0, 1, 2, ... (written by backward)
  int32_t* rows_out = nullptr;  // the rows in sorted order
  void* temp = nullptr;
  size_t temp_bytes = 0;        // embedding_sort_bytes(rows)
};
size_t embedding_sort_bytes(int64_t rows);
void embedding_forward(const int32_t* ids, const float* wte, const float* wpe, void* out, DType dt, int64_t n,
                       int64_t t, int64_t c, int64_t vocab, cudaStream_t s);
// dwte {vocab, c} and dwpe {positions, c} (fp32) overwritten, or added to with accumulate.
void embedding_backward(const int32_t* ids, const void* dy, DType dt, float* dwte, float* dwpe, int64_t n, int64_t t,
                        int64_t c, int64_t vocab, int64_t positions, bool accumulate, const TokenSort& sort,
                        cudaStream_t s);

// ViT's class token in and out (class_token.cu). Patch tokens: the patch grid's {N,p,c} memory (NHWC) ->
// {N,1+p,c}: row 0 = cls + pos[0], row 1+j = x[j] + pos[1+j]. Backward: dx (may be null) gets dy's patch rows; dcls
// {c} and dpos {1+p,c} (fp32) get dy summed over the batch, in batch order, overwritten or added to with accumulate.
void patch_tokens_forward(const void* x, const float* cls, const float* pos, void* y, DType dt, int64_t n, int64_t p,
                          int64_t c, cudaStream_t s);
void patch_tokens_backward(const void* dy, void* dx, float* dcls, float* dpos, DType dt, int64_t n, int64_t p,
                           int64_t c, bool accumulate, cudaStream_t s);
// Class token: {N,t,c} -> {N,c}, each sequence's row 0; backward writes dy to row 0 of dx and zeros elsewhere.
void class_token_forward(const void* x, void* y, DType dt, int64_t n, int64_t t, int64_t c, cudaStream_t s);
void class_token_backward(const void* dy, void* dx, DType dt, int64_t n, int64_t t, int64_t c, cudaStream_t s);

// Attention's softmax over rows of t fp32 scores, ld apart (attention.cu); row r is query position r % t, and
// causal masks the keys after it to exactly 0. In place; probs_low (dt, may be null) gets a copy for the products,
// lse (may be null) each row's log-sum-exp.
void attention_softmax(float* scores, void* probs_low, float* lse, DType dt, int64_t rows, int64_t t, int64_t ld,
                       bool causal, cudaStream_t s);
// P rebuilt from recomputed scores and attention_softmax's lse: exp(S - lse), masked entries 0, in place;
// probs_low as above.
void attention_probs(float* scores, void* probs_low, const float* lse, DType dt, int64_t rows, int64_t t, int64_t ld,
                     bool causal, cudaStream_t s);
// dS = P (dP - rowsum(P dP)), into ds_low (dt) when non-null, else over dprobs.
void attention_softmax_backward(const float* probs, float* dprobs, void* ds_low, DType dt, int64_t rows, int64_t t,
                                int64_t ld, cudaStream_t s);

}  // namespace mg::kernels
