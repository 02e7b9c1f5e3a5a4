// Parameter-free layers: ReLU, residual add, channel concat, flatten (and token flatten), dropout.
#include "backend/cpu/cpu_layers.h"

#include "backend/dropout_mask.h"
#include "core/half.h"

namespace mg::cpu {

namespace {

// The gradient from the output (y > 0 exactly where x > 0): the network may run ReLU in place, when the input no
// longer exists (backend.h).
class ReluLayer final : public EltwiseLayer {
 public:
  explicit ReluLayer(const CpuLayerArgs& args)
      : EltwiseLayer(args, dnnl::algorithm::eltwise_relu_use_dst_for_bwd, true) {}
};

// out = in0 + in1; both inputs receive dout unchanged. With LayerOptions::relu, out = max(in0 + in1, 0) by a
// ReLU post-op of the add, and backward masks dout by out > 0 once (an eltwise backward into the first input's
// gradient) and copies that to the second.
class AddLayer final : public CpuLayer {
 public:
  explicit AddLayer(const CpuLayerArgs& args) : CpuLayer(args) {
    const memory::desc md = act_desc(out_shape_, dt_);
    dnnl::primitive_attr a = attr();
    if (opt_.relu) {
      dnnl::post_ops po;
      MG_CHECK_DNNL(po.append_eltwise(1.f, dnnl::algorithm::eltwise_relu, 0.f, 0.f));
      MG_CHECK_DNNL(a.set_post_ops(po));
    }
    MG_CHECK_DNNL(pd_ = dnnl::binary::primitive_desc(dnnl::binary::desc(dnnl::algorithm::binary_add, md, md, md), a,
                                                     be_.engine()));
    add_ = primitive_of<dnnl::binary>(pd_);
    if (opt_.relu && opt_.backward) {
      const auto relu = dnnl::algorithm::eltwise_relu_use_dst_for_bwd;
      dnnl::eltwise_forward::primitive_desc hint;
      MG_CHECK_DNNL(hint = dnnl::eltwise_forward::primitive_desc(
                        dnnl::eltwise_forward::desc(dnnl::prop_kind::forward_training, relu, md, 0.f, 0.f), attr(),
                        be_.engine()));
      dnnl::eltwise_backward::primitive_desc bpd;
      MG_CHECK_DNNL(bpd = dnnl::eltwise_backward::primitive_desc(dnnl::eltwise_backward::desc(relu, md, md, 0.f, 0.f),
                                                                 attr(), be_.engine(), hint));
      relu_bwd_ = primitive_of<dnnl::eltwise_backward>(bpd);
    }
    allocate_scratch();
    a_ = mem(md);
    b_ = mem(md);
    c_ = mem(md);
  }
  void forward(const std::vector<Tensor>& in, const Tensor& out, bool) override {
    check_io(in, out);
    // oneDNN's binary runs in place over its first source only; the sum is the same either way round.
    const bool swap = out.data == in[1].data;
    set(a_, in[swap ? 1 : 0].data);
    set(b_, in[swap ? 0 : 1].data);
    set(c_, out.data);
    run(add_, {{DNNL_ARG_SRC_0, a_}, {DNNL_ARG_SRC_1, b_}, {DNNL_ARG_DST, c_}});
  }
  void backward(const std::vector<Tensor>& in, const Tensor& out, const Tensor& dout,
                const std::vector<Tensor>& din, bool) override {
    check_io(in, out);
    const void* grad = dout.data;
    if (opt_.relu) {
      const Tensor& first = din[0].data ? din[0] : din[1];
      if (!first.data) return;
      MG_ENSURE(relu_bwd_, where() + "backward on a layer built for inference");
      set(a_, out.data);
      set(b_, dout.data);
      set(c_, first.data);
      run(relu_bwd_, {{DNNL_ARG_DST, a_}, {DNNL_ARG_DIFF_DST, b_}, {DNNL_ARG_DIFF_SRC, c_}});
      grad = first.data;
    }
    for (const Tensor& d : din) {
      if (d.data && d.data != grad) parallel_copy(d.data, grad, dout.bytes());
    }
  }

 private:
  dnnl::binary::primitive_desc pd_;
  dnnl::primitive add_, relu_bwd_;
  dnnl::memory a_, b_, c_;
};

// Channel concat in NHWC (so each input lands interleaved per pixel); backward reorders each input's channel
// slice of dout out as a strided sub-memory view.
class ConcatLayer final : public CpuLayer {
 public:
  explicit ConcatLayer(const CpuLayerArgs& args) : CpuLayer(args) {
    std::vector<memory::desc> srcs;
    for (const Shape& s : in_shapes_) srcs.push_back(act_desc(s, dt_));
    const memory::desc dst = act_desc(out_shape_, dt_);
    MG_CHECK_DNNL(pd_ = dnnl::concat::primitive_desc(dst, 1, srcs, be_.engine(), attr()));
    concat_ = primitive_of<dnnl::concat>(pd_);
    int64_t offset = 0;
    for (size_t i = 0; i < srcs.size(); ++i) {
      const memory::desc slice = dst.submemory_desc(act_dims(in_shapes_[i]), {0, offset, 0, 0});
      offset += in_shapes_[i].c();
      dnnl::reorder::primitive_desc rpd;
      MG_CHECK_DNNL(rpd = dnnl::reorder::primitive_desc(be_.engine(), slice, be_.engine(), srcs[i], attr()));
      split_.push_back(primitive_of<dnnl::reorder>(rpd));
      slices_.push_back(mem(slice));
      ins_.push_back(mem(srcs[i]));
    }
    allocate_scratch();
    dst_ = mem(dst);
  }
  void forward(const std::vector<Tensor>& in, const Tensor& out, bool) override {
    check_io(in, out);
    Args a{{DNNL_ARG_DST, dst_}};
    set(dst_, out.data);
    for (size_t i = 0; i < in.size(); ++i) {
      set(ins_[i], in[i].data);
      a.emplace(DNNL_ARG_MULTIPLE_SRC + static_cast<int>(i), ins_[i]);
    }
    run(concat_, std::move(a));
  }
  void backward(const std::vector<Tensor>& in, const Tensor& out, const Tensor& dout,
                const std::vector<Tensor>& din, bool) override {
    check_io(in, out);
    for (size_t i = 0; i < din.size(); ++i) {
      if (!din[i].data) continue;
      set(slices_[i], dout.data);
      set(ins_[i], din[i].data);
      run(split_[i], {{DNNL_ARG_FROM, slices_[i]}, {DNNL_ARG_TO, ins_[i]}});
    }
  }

 private:
  dnnl::concat::primitive_desc pd_;
  dnnl::primitive concat_;
  std::vector<dnnl::reorder> split_;
  std::vector<dnnl::memory> slices_, ins_;
  dnnl::memory dst_;
};

// {N,C,H,W} -> {N, H*W*C} (and TokenFlatten's {N,T,V} -> {N*T,V}): the memory is already in that order, so this
// is a copy (a copy rather than an alias because the trainer gives every layer its own output buffer).
class FlattenLayer final : public CpuLayer {
 public:
  using CpuLayer::CpuLayer;
  void forward(const std::vector<Tensor>& in, const Tensor& out, bool) override {
    check_io(in, out);
    parallel_copy(out.data, in[0].data, out.bytes());
  }
  void backward(const std::vector<Tensor>& in, const Tensor& out, const Tensor& dout,
                const std::vector<Tensor>& din, bool) override {
    check_io(in, out);
    if (din[0].data) parallel_copy(din[0].data, dout.data, dout.bytes());
  }
};

// Inverted dropout with the counter-based mask both backends draw (backend/dropout_mask.h).
class DropoutLayer final : public CpuLayer {
 public:
  explicit DropoutLayer(const CpuLayerArgs& args) : CpuLayer(args), mask_(desc_.dropout.p, opt_.seed) {}
  void forward(const std::vector<Tensor>& in, const Tensor& out, bool training) override {
    check_io(in, out);
    if (!training) {
      parallel_copy(out.data, in[0].data, out.bytes());
      return;
    }
    apply(in[0].data, out.data, mask_.next());
  }
  void backward(const std::vector<Tensor>& in, const Tensor& out, const Tensor& dout,
                const std::vector<Tensor>& din, bool) override {
    check_io(in, out);
    const uint64_t stream = mask_.latest(desc_.name);
    if (din[0].data) apply(dout.data, din[0].data, stream);
  }

 private:
  void apply(const void* x, void* y, uint64_t stream) const {
    const int64_t n = out_shape_.numel();
    const float p = mask_.p(), scale = 1.f / (1.f - p);
    if (dt_ == DType::F32) {
      const float* a = static_cast<const float*>(x);
      float* b = static_cast<float*>(y);
#pragma omp parallel for simd
      for (int64_t i = 0; i < n; ++i) b[i] = dropout_keeps(stream, static_cast<uint64_t>(i), p) ? a[i] * scale : 0.f;
    } else {
      const uint16_t* a = static_cast<const uint16_t*>(x);
      uint16_t* b = static_cast<uint16_t*>(y);
#pragma omp parallel for
      for (int64_t i = 0; i < n; ++i) {
        b[i] = dropout_keeps(stream, static_cast<uint64_t>(i), p) ? float_to_bf16(bf16_to_float(a[i]) * scale)
                                                                  : uint16_t{0};
      }
    }
  }

  DropoutMask mask_;
};

}  // namespace

LayerRows<CpuBackend> misc_layers() {
  return {layer_row<ReluLayer, CpuBackend>(LayerKind::Relu), layer_row<AddLayer, CpuBackend>(LayerKind::Add),
          layer_row<ConcatLayer, CpuBackend>(LayerKind::Concat),
          layer_row<FlattenLayer, CpuBackend>(LayerKind::Flatten),
          layer_row<FlattenLayer, CpuBackend>(LayerKind::TokenFlatten),
          layer_row<DropoutLayer, CpuBackend>(LayerKind::Dropout)};
}

}  // namespace mg::cpu
