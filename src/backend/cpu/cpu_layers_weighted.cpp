// Moving master weights and their gradients between canonical layout and oneDNN's preferred formats.
#include "backend/cpu/cpu_layers.h"

namespace mg::cpu {

namespace {
dnnl::reorder make_reorder(CpuBackend& be, const memory::desc& from, const memory::desc& to, bool accumulate,
                           const dnnl::primitive_attr& base, memory::desc* scratch) {
  dnnl::primitive_attr a = base;
  if (accumulate) {
    dnnl::post_ops po;
    po.append_sum(1.f);
    a.set_post_ops(po);
  }
  dnnl::reorder::primitive_desc pd;
  MG_CHECK_DNNL(pd = dnnl::reorder::primitive_desc(be.engine(), from, be.engine(), to, a));
  *scratch = pd.scratchpad_desc();
  dnnl::reorder r;
  MG_CHECK_DNNL(r = dnnl::reorder(pd));
  return r;
}
}  // namespace

void WeightedLayer::setup_weights(const memory::desc& canonical, const memory::desc& fwd,
                                  const memory::desc& bwd_data, const memory::desc& diff) {
  canonical_ = canonical;
  fwd_md_ = fwd;
  bwd_data_md_ = bwd_data;
  diff_ = diff;
  master_ = mem(canonical_);
  grad_ = mem(canonical_);
  memory::desc sp;

  fwd_is_master_ = fwd_md_ == canonical_;
  bwd_same_as_fwd_ = bwd_data_md_ == fwd_md_;
  // The forward copy outlives forward() only when backward-data reads it too; otherwise it sits in the
  // replica's shared staging area (CpuBackend::staging) like the backward-only copies below.
  fwd_staged_ = !fwd_is_master_ && !(opt_.backward && bwd_same_as_fwd_);
  if (fwd_is_master_) {
    wfwd_ = master_;
  } else {
    if (fwd_staged_) {
      wfwd_ = mem(fwd_md_);
      staging_bytes_ = fwd_md_.get_size();
    } else {
      wfwd_buf_ = Buffer(be_, fwd_md_.get_size());
      wfwd_ = mem(fwd_md_, wfwd_buf_.get());
    }
    to_fwd_ = make_reorder(be_, canonical_, fwd_md_, false, attr(), &sp);
    need_scratch(sp);
  }

  // The backward-data weights and the weight gradient in the primitive's format live only inside backward():
  // they sit in the staging area, one after the other.
  if (!bwd_same_as_fwd_) {
    dw_offset_ = (bwd_data_md_.get_size() + 63) / 64 * 64;
    wbwd_ = mem(bwd_data_md_);
    to_bwd_ = make_reorder(be_, canonical_, bwd_data_md_, false, attr(), &sp);
    need_scratch(sp);
  }

  diff_is_canonical_ = diff_ == canonical_;
  // Even a canonical-format gradient needs a staging buffer when accumulating (the primitive overwrites).
  dw_ = mem(diff_);
  staging_bytes_ = std::max(staging_bytes_, dw_offset_ + diff_.get_size());
  be_.reserve_staging(staging_bytes_);
  from_diff_ = make_reorder(be_, diff_, canonical_, false, attr(), &sp);
  need_scratch(sp);
  from_diff_acc_ = make_reorder(be_, diff_, canonical_, true, attr(), &sp);
  need_scratch(sp);
}

dnnl::memory& WeightedLayer::forward_weights() {
  set(master_, params_[0]);
  if (fwd_staged_) set(wfwd_, be_.staging());
  if (!fwd_is_master_) run(to_fwd_, {{DNNL_ARG_FROM, master_}, {DNNL_ARG_TO, wfwd_}});
  return wfwd_;
}

dnnl::memory& WeightedLayer::backward_data_weights() {
  set(master_, params_[0]);
  // The forward copy is current: parameters do not change between a step's forward and backward.
  if (bwd_same_as_fwd_) return wfwd_;
  set(wbwd_, be_.staging());
  run(to_bwd_, {{DNNL_ARG_FROM, master_}, {DNNL_ARG_TO, wbwd_}});
  return wbwd_;
}

dnnl::memory& WeightedLayer::weight_grad_target(bool accumulate) {
  grad_direct_ = diff_is_canonical_ && !accumulate;
  if (grad_direct_) {
    set(grad_, grads_[0]);
    return grad_;
  }
  set(dw_, static_cast<char*>(be_.staging()) + dw_offset_);
  return dw_;
}

void WeightedLayer::finish_weight_grad(bool accumulate) {
  if (grad_direct_) return;
  set(grad_, grads_[0]);
  run(accumulate ? from_diff_acc_ : from_diff_, {{DNNL_ARG_FROM, dw_}, {DNNL_ARG_TO, grad_}});
}

void WeightedLayer::forward(const std::vector<Tensor>& in, const Tensor& out, bool) {
  check_bound();
  check_io(in, out);
  run_forward(in[0].data, out.data);
}

void WeightedLayer::backward(const std::vector<Tensor>& in, const Tensor& out, const Tensor& dout,
                             const std::vector<Tensor>& din, bool accumulate) {
  check_bound();
  check_io(in, out);
  run_backward(in[0].data, dout.data, din[0].data, accumulate);
}

void WeightedLayer::run_forward(const void* x, void* y) {
  set(src_, x);
  set(dst_, y);
  Args a{{DNNL_ARG_SRC, src_}, {DNNL_ARG_WEIGHTS, forward_weights()}, {DNNL_ARG_DST, dst_}};
  if (bias_count_) {
    set(bias_, params_[1]);
    a.emplace(DNNL_ARG_BIAS, bias_);
  }
  run(fwd_, std::move(a));
}

void WeightedLayer::run_backward(const void* x, const void* dy, void* dx, bool accumulate) {
  if (dx) run_backward_data(dy, dx);
  run_backward_weights(x, dy, accumulate);
}

void WeightedLayer::run_backward_data(const void* dy, void* dx) {
  set(dst_, dy);
  set(src_, dx);
  run(bwd_data_, {{DNNL_ARG_DIFF_SRC, src_}, {DNNL_ARG_WEIGHTS, backward_data_weights()}, {DNNL_ARG_DIFF_DST, dst_}});
}

void WeightedLayer::run_backward_weights(const void* x, const void* dy, bool accumulate) {
  set(dst_, dy);
  set(src_, x);
  Args a{{DNNL_ARG_SRC, src_}, {DNNL_ARG_DIFF_DST, dst_}, {DNNL_ARG_DIFF_WEIGHTS, weight_grad_target(accumulate)}};
  if (bias_count_) {
    set(dbias_, accumulate ? dbias_buf_.get() : grads_[1]);
    a.emplace(DNNL_ARG_DIFF_BIAS, dbias_);
  }
  run(bwd_w_, std::move(a));
  finish_weight_grad(accumulate);
  if (bias_count_ && accumulate) store_or_add(grads_[1], dbias_buf_.as<float>(), bias_count_, true);
}

}  // namespace mg::cpu
