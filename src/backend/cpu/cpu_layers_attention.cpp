// Multi-head self-attention core: from the fused qkv {N,T,3C} (q, k, v side by side per token, each C = H*d
// wide, head h in columns h*d..h*d+d-1 of each), out {N,T,C} = softmax(Q K^T / sqrt(d)) V per head, with a
// causal mask where the description asks. The four products (and backward's four) are oneDNN matmuls batched
// over {N,H} that read the heads in place through strided descriptors; softmax and its backward are loops of
// their own. Only each score row's log-sum-exp {N,H,T} stays in the layer from forward to backward (P would be
// N*H*T*T floats a layer); backward recomputes S = Q K^T / sqrt(d) with forward's product and P = exp(S - lse)
// from it. P, and backward's dP, live in the replica's staging area only inside one call. fp32 arithmetic: bf16
// activations are converted through staging.
#include <algorithm>
#include <cmath>

#include "backend/cpu/cpu_act_io.h"
#include "backend/cpu/cpu_layers.h"
#include "backend/transformer_dims.h"

namespace mg::cpu {

namespace {

class AttentionLayer final : public CpuLayer, AttentionDims {
 public:
  explicit AttentionLayer(const CpuLayerArgs& args)
      : CpuLayer(args),
        AttentionDims(desc_, out_shape_),
        lse_(be_, opt_.backward ? static_cast<size_t>(n_ * h_ * t_) * sizeof(float) : 0) {
    const int64_t N = n_, H = h_, T = t_, C = c_, D = hd_;
    const float scale = 1.f / std::sqrt(static_cast<float>(D));
    auto md = [](memory::dims dims, memory::dims strides) { return memory::desc(dims, DT::f32, strides); };
    const memory::desc head_in = md({N, H, T, D}, {T * 3 * C, D, 3 * C, 1});    // q, k or v of qkv
    const memory::desc head_in_t = md({N, H, D, T}, {T * 3 * C, D, 1, 3 * C});  // its transpose
    const memory::desc head_out = md({N, H, T, D}, {T * C, D, C, 1});           // out or dout
    const memory::desc scores = md({N, H, T, T}, {H * T * T, T * T, T, 1});
    const memory::desc scores_t = md({N, H, T, T}, {H * T * T, T * T, 1, T});
    qk_ = matmul(head_in, head_in_t, scores, scale);  // S = Q K^T / sqrt(d)
    pv_ = matmul(scores, head_in, head_out, 1.f);     // O = P V
    if (opt_.backward) {
      dp_ = matmul(head_out, head_in_t, scores, 1.f);  // dP = dO V^T
      dv_ = matmul(scores_t, head_out, head_in, 1.f);  // dV = P^T dO
      dq_ = matmul(scores, head_in, head_in, scale);   // dQ = dS K / sqrt(d)
      dk_ = matmul(scores_t, head_in, head_in, scale);  // dK = dS^T Q / sqrt(d)
    }
    allocate_scratch();
    const size_t qkv = static_cast<size_t>(N * T * 3 * C), o = static_cast<size_t>(N * T * C);
    const size_t score_floats = static_cast<size_t>(N * H * T * T);
    // Staging: [P | dP | qkv fp32 | out or dout fp32 | din fp32], dP only for backward, the fp32 copies only for
    // bf16 activations.
    dp_at_ = score_floats;
    qkv_at_ = dp_at_ + (opt_.backward ? score_floats : 0);
    o_at_ = qkv_at_ + (dt_ == DType::F32 ? 0 : qkv);
    din_at_ = o_at_ + (dt_ == DType::F32 ? 0 : o);
    be_.reserve_staging((din_at_ + (dt_ == DType::F32 || !opt_.backward ? 0 : qkv)) * sizeof(float));
  }

  void forward(const std::vector<Tensor>& in, const Tensor& out, bool) override {
    check_io(in, out);
    float* stage = static_cast<float*>(be_.staging());
    const float* qkv = as_f32(in[0], stage + qkv_at_);
    float* o = dt_ == DType::F32 ? out.as<float>() : stage + o_at_;
    float* p = stage;
    exec(qk_, qkv, qkv + c_, p);
    softmax_rows(p, lse_.as<float>());
    exec(pv_, p, qkv + 2 * c_, o);
    if (dt_ != DType::F32) store(o, out);
  }

  void backward(const std::vector<Tensor>& in, const Tensor& out, const Tensor& dout,
                const std::vector<Tensor>& din, bool) override {
    check_io(in, out);
    if (!din[0].data) return;
    MG_ENSURE(dp_.p, where() + "backward on a layer built for inference");
    float* stage = static_cast<float*>(be_.staging());
    const float* qkv = as_f32(in[0], stage + qkv_at_);
    const float* dout32 = as_f32(dout, stage + o_at_);
    float* dx = dt_ == DType::F32 ? din[0].as<float>() : stage + din_at_;
    float* p = stage;
    exec(qk_, qkv, qkv + c_, p);  // S again, as forward computed it
    probs_rows(p, lse_.as<float>());
    float* ds = stage + dp_at_;  // dP, then dS in place
    exec(dp_, dout32, qkv + 2 * c_, ds);
    exec(dv_, p, dout32, dx + 2 * c_);
    softmax_backward_rows(p, ds);
    exec(dq_, ds, qkv + c_, dx);
    exec(dk_, ds, qkv, dx + c_);
    if (dt_ != DType::F32) store(dx, din[0]);
  }

 private:
  // A batched product with its memories (storage set per call: the strides say where each operand lies).
  struct Product {
    dnnl::primitive p;
    dnnl::memory src, wei, dst;
  };
  Product matmul(const memory::desc& src, const memory::desc& wei, const memory::desc& dst, float scale) {
    dnnl::primitive_attr a = attr();
    if (scale != 1.f) MG_CHECK_DNNL(a.set_output_scales(0, {scale}));
    dnnl::matmul::primitive_desc pd;
    MG_CHECK_DNNL(pd = dnnl::matmul::primitive_desc(dnnl::matmul::desc(src, wei, dst), a, be_.engine()));
    Product m;
    m.p = primitive_of<dnnl::matmul>(pd);
    m.src = mem(src);
    m.wei = mem(wei);
    m.dst = mem(dst);
    return m;
  }
  void exec(Product& m, const float* src, const float* wei, float* dst) {
    set(m.src, src);
    set(m.wei, wei);
    set(m.dst, dst);
    run(m.p, {{DNNL_ARG_SRC, m.src}, {DNNL_ARG_WEIGHTS, m.wei}, {DNNL_ARG_DST, m.dst}});
  }

  // fn(row, len, r) for every row r of S, len the keys its query may see (all, or causal: up to its own
  // position); the masked rest is then set to 0, so backward and P V need no mask of their own.
  template <typename Fn>
  void each_row(float* s, Fn&& fn) const {
    const int64_t T = t_, rows = n_ * h_ * t_;
    const bool causal = desc_.attention.causal;
#pragma omp parallel for
    for (int64_t r = 0; r < rows; ++r) {
      float* row = s + r * T;
      const int64_t len = causal ? r % T + 1 : T;
      fn(row, len, r);
      for (int64_t j = len; j < T; ++j) row[j] = 0.f;
    }
  }

  // Each row of S becomes its softmax; lse (when given) gets each row's log-sum-exp.
  void softmax_rows(float* s, float* lse) const {
    each_row(s, [lse](float* row, int64_t len, int64_t r) {
      float mx = row[0];
      for (int64_t j = 1; j < len; ++j) mx = std::max(mx, row[j]);
      double sum = 0;
      for (int64_t j = 0; j < len; ++j) {
        row[j] = std::exp(row[j] - mx);
        sum += row[j];
      }
      const float inv = static_cast<float>(1.0 / sum);
      for (int64_t j = 0; j < len; ++j) row[j] *= inv;
      if (lse) lse[r] = static_cast<float>(mx + std::log(sum));
    });
  }

  // P from S again in backward: exp(S - lse), masked entries 0 as forward's.
  void probs_rows(float* s, const float* lse) const {
    each_row(s, [lse](float* row, int64_t len, int64_t r) {
      const float m = lse[r];
      for (int64_t j = 0; j < len; ++j) row[j] = std::exp(row[j] - m);
    });
  }

  // dS = P * (dP - sum_j P dP) per row, in place over dP.
  void softmax_backward_rows(const float* p, float* ds) const {
    const int64_t T = t_, rows = n_ * h_ * t_;
#pragma omp parallel for
    for (int64_t r = 0; r < rows; ++r) {
      const float* pr = p + r * T;
      float* dr = ds + r * T;
      double dot = 0;
      for (int64_t j = 0; j < T; ++j) dot += static_cast<double>(pr[j]) * dr[j];
      const float d = static_cast<float>(dot);
      for (int64_t j = 0; j < T; ++j) dr[j] = pr[j] * (dr[j] - d);
    }
  }

  // An fp32 view of t: t itself, or t converted into dst.
  const float* as_f32(const Tensor& t, float* dst) const {
    if (t.dtype == DType::F32) return t.as<float>();
    const uint16_t* src = t.as<uint16_t>();
    const int64_t n = t.numel();
#pragma omp parallel for simd
    for (int64_t i = 0; i < n; ++i) dst[i] = to_f32(src[i]);
    return dst;
  }
  static void store(const float* src, const Tensor& t) {
    uint16_t* dst = t.as<uint16_t>();
    const int64_t n = t.numel();
#pragma omp parallel for simd
    for (int64_t i = 0; i < n; ++i) from_f32(src[i], dst[i]);
  }

  Buffer lse_;  // each score row's log-sum-exp {N,H,T}, from forward to backward (none for inference)
  size_t dp_at_ = 0, qkv_at_ = 0, o_at_ = 0, din_at_ = 0;  // staging offsets, in floats (P at 0)
  Product qk_, pv_, dp_, dv_, dq_, dk_;
};

}  // namespace

LayerRows<CpuBackend> attention_layers() { return {layer_row<AttentionLayer, CpuBackend>(LayerKind::Attention)}; }

}  // namespace mg::cpu
