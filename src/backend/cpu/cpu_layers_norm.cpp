// Batch normalization (NHWC; statistics, gamma and beta in fp32): fp32 data through our own passes
// (bn_kernels.h: oneDNN 2.6's NHWC primitive ran at half the memory bandwidth), bf16 data through oneDNN.
//
// Training forward normalises with the batch mean and biased variance (as torch does) and then updates the
// running statistics with torch's convention:
//   running_mean = (1 - m) * running_mean + m * mean
//   running_var  = (1 - m) * running_var  + m * var * n / (n - 1)     (unbiased; n = N*H*W per channel)
// Inference forward (training=false) normalises with the running statistics (initially 0 and 1).
// With LayerOptions::relu the output is max(normalised, 0) and backward gates dy by it: the fp32 passes
// recompute the gate from the input; oneDNN's fuse_norm_relu keeps a bit mask in a workspace the layer owns.
// With LayerOptions::add_input (fp32 only) the forward also adds in[1], then applies the Add's ReLU, as it
// writes: the separate add would read and write the whole tensor once more.
#include <cmath>

#include <omp.h>

#include "backend/cpu/bn_kernels.h"
#include "backend/cpu/cpu_layers.h"

namespace mg::cpu {

namespace {

// The layer's per-channel rows, c floats each, in one buffer of kRows * c.
struct BnStats {
  static constexpr int kRows = 8;
  float* mean;           // this batch's
  float* var;            // this batch's, biased
  float* running_mean;
  float* running_var;
  float* dgamma;         // gradient staging: accumulating backward adds these to the parameter gradients
  float* dbeta;
  float* scale;          // gamma / sqrt(var + eps) the last training forward applied (fp32 backward's ReLU gate)
  float* running_scale;  // gamma / sqrt(running_var + eps) (fp32 inference)
  static BnStats over(float* s, int64_t c) {
    return {s, s + c, s + 2 * c, s + 3 * c, s + 4 * c, s + 5 * c, s + 6 * c, s + 7 * c};
  }
};

class BatchNormLayer final : public CpuLayer {
 public:
  explicit BatchNormLayer(const CpuLayerArgs& args) : CpuLayer(args) {
    const Shape& x = in_shapes_[0];
    count_ = x.n() * x.h() * x.w();  // >= 2 when training (LayerBase checked); inference never divides by it - 1
    c_ = x.c();

    stats_ = Buffer(be_, BnStats::kRows * static_cast<size_t>(c_) * sizeof(float));
    const BnStats s = stats();
    for (int64_t i = 0; i < c_; ++i) {
      s.running_mean[i] = 0.f;
      s.running_var[i] = 1.f;
    }
    if (dt_ == DType::F32) {
      // The passes' per-thread sums sit in the replica's shared scratchpad, sized for this thread's team.
      threads_ = omp_get_max_threads();
      need_scratch(memory::desc({static_cast<memory::dim>(bn::scratch_bytes(c_, threads_))}, DT::u8, Tag::a));
      allocate_scratch();
      return;
    }
    build_onednn(x, desc_.bn, opt_);
  }

  void forward(const std::vector<Tensor>& in, const Tensor& out, bool training) override {
    check_bound();
    const float* residual = nullptr;
    if (opt_.add_input) {
      MG_ENSURE(in.size() == 2 && in[1].numel() == in_shapes_[0].numel() && in[1].dtype == dt_,
                where() + "the fused add needs a second input of the first's size and dtype");
      residual = in[1].as<float>();
      check_io({in[0]}, out);
    } else {
      check_io(in, out);
    }
    if (dt_ != DType::F32) {
      forward_onednn(in, out, training);
      if (training) update_running_stats();
      return;
    }
    const BnStats s = stats();
    const float* x = in[0].as<float>();
    // Training normalises with this batch's statistics, inference with the running ones.
    float *mean = s.running_mean, *var = s.running_var, *scale = s.running_scale;
    if (training) {
      mean = s.mean;
      var = s.var;
      scale = s.scale;
      bn::statistics(x, count_, c_, mean, var, bn::Scratch{be_.scratchpad(), threads_});
    }
    for (int64_t i = 0; i < c_; ++i) scale[i] = params_[0][i] / std::sqrt(var[i] + desc_.bn.eps);
    bn::normalize(x, out.as<float>(), count_, c_, mean, scale, params_[1], opt_.relu || opt_.add_relu, residual);
    if (training) update_running_stats();
  }

  void backward(const std::vector<Tensor>& in, const Tensor& out, const Tensor& dout,
                const std::vector<Tensor>& din, bool accumulate) override {
    check_bound();
    check_io(in, out);
    MG_ENSURE(opt_.backward, where() + "backward on a layer built for inference");
    if (dt_ != DType::F32) {
      backward_onednn(in, dout, din, accumulate);
      return;
    }
    const BnStats s = stats();
    bn::BackwardArgs a;
    a.x = in[0].as<float>();
    a.dy = dout.as<float>();
    a.dx = static_cast<float*>(din[0].data);
    a.rows = count_;
    a.c = c_;
    a.mean = s.mean;
    a.var = s.var;
    a.gamma = params_[0];
    a.eps = desc_.bn.eps;
    a.scale = s.scale;
    a.shift = params_[1];
    a.relu = opt_.relu;
    a.dgamma = accumulate ? s.dgamma : grads_[0];
    a.dbeta = accumulate ? s.dbeta : grads_[1];
    a.scratch = bn::Scratch{be_.scratchpad(), threads_};
    bn::backward(a);
    if (accumulate) {
      store_or_add(grads_[0], s.dgamma, c_, true);
      store_or_add(grads_[1], s.dbeta, c_, true);
    }
  }

 private:
  BnStats stats() const { return BnStats::over(stats_.as<float>(), c_); }

  void build_onednn(const Shape& x, const BatchNormParams& p, const LayerOptions& opt) {
    const memory::desc data = act_desc(x, dt_);
    const memory::desc stat({c_}, DT::f32, Tag::a);
    using F = dnnl::normalization_flags;
    const F affine = F::use_scale | F::use_shift | (opt.relu ? F::fuse_norm_relu : F::none);
    MG_CHECK_DNNL(train_pd_ = dnnl::batch_normalization_forward::primitive_desc(
                      dnnl::batch_normalization_forward::desc(dnnl::prop_kind::forward_training, data, p.eps, affine),
                      attr(), be_.engine()));
    MG_CHECK_DNNL(infer_pd_ = dnnl::batch_normalization_forward::primitive_desc(
                      dnnl::batch_normalization_forward::desc(dnnl::prop_kind::forward_inference, data, p.eps,
                                                              affine | F::use_global_stats),
                      attr(), be_.engine()));
    MG_CHECK_DNNL(bwd_pd_ = dnnl::batch_normalization_backward::primitive_desc(
                      dnnl::batch_normalization_backward::desc(dnnl::prop_kind::backward, data, data, p.eps, affine),
                      attr(), be_.engine(), train_pd_));
    train_ = primitive_of<dnnl::batch_normalization_forward>(train_pd_);
    infer_ = primitive_of<dnnl::batch_normalization_forward>(infer_pd_);
    bwd_ = primitive_of<dnnl::batch_normalization_backward>(bwd_pd_);
    allocate_scratch();
    if (opt.relu && opt.backward) {
      const memory::desc ws = train_pd_.workspace_desc();
      workspace_buf_ = Buffer(be_, ws.get_size());
      workspace_ = mem(ws, workspace_buf_.get());
    }

    const BnStats s = stats();
    src_ = mem(data);
    dst_ = mem(data);
    ddst_ = mem(data);
    dsrc_ = mem(data);
    scale_ = mem(stat);
    shift_ = mem(stat);
    mean_ = mem(stat, s.mean);
    var_ = mem(stat, s.var);
    rmean_ = mem(stat, s.running_mean);
    rvar_ = mem(stat, s.running_var);
    dscale_ = mem(stat);
    dshift_ = mem(stat);
  }

  void forward_onednn(const std::vector<Tensor>& in, const Tensor& out, bool training) {
    set(src_, in[0].data);
    set(dst_, out.data);
    set(scale_, params_[0]);
    set(shift_, params_[1]);
    Args a{{DNNL_ARG_SRC, src_}, {DNNL_ARG_DST, dst_}, {DNNL_ARG_SCALE, scale_}, {DNNL_ARG_SHIFT, shift_}};
    if (!training) {
      a.emplace(DNNL_ARG_MEAN, rmean_);
      a.emplace(DNNL_ARG_VARIANCE, rvar_);
      run(infer_, std::move(a));
      return;
    }
    a.emplace(DNNL_ARG_MEAN, mean_);
    a.emplace(DNNL_ARG_VARIANCE, var_);
    if (opt_.relu) {
      MG_ENSURE(workspace_, where() + "training forward on a layer built for inference");
      a.emplace(DNNL_ARG_WORKSPACE, workspace_);
    }
    run(train_, std::move(a));
  }

  void update_running_stats() {
    const float m = desc_.bn.momentum;
    MG_ENSURE(count_ > 1, where() + "training forward on a layer built for inference with one value per channel");
    const float unbias = static_cast<float>(count_) / static_cast<float>(count_ - 1);
    const BnStats s = stats();
    for (int64_t i = 0; i < c_; ++i) {
      s.running_mean[i] = (1.f - m) * s.running_mean[i] + m * s.mean[i];
      s.running_var[i] = (1.f - m) * s.running_var[i] + m * s.var[i] * unbias;
    }
  }

  void backward_onednn(const std::vector<Tensor>& in, const Tensor& dout, const std::vector<Tensor>& din,
                       bool accumulate) {
    void* dx = din[0].data;
    if (!dx) {
      // Batch norm straight on the network input: gamma/beta still need the full backward, which always
      // writes diff_src. Allocated on first use only, since no shipped model does this.
      if (!unused_dx_.get()) unused_dx_ = Buffer(be_, in[0].bytes());
      dx = unused_dx_.get();
    }
    const BnStats s = stats();
    set(src_, in[0].data);
    set(ddst_, dout.data);
    set(dsrc_, dx);
    set(scale_, params_[0]);
    set(shift_, params_[1]);
    set(dscale_, accumulate ? s.dgamma : grads_[0]);
    set(dshift_, accumulate ? s.dbeta : grads_[1]);
    Args a{{DNNL_ARG_SRC, src_},
           {DNNL_ARG_MEAN, mean_},
           {DNNL_ARG_VARIANCE, var_},
           {DNNL_ARG_DIFF_DST, ddst_},
           {DNNL_ARG_SCALE, scale_},
           {DNNL_ARG_SHIFT, shift_},  // oneDNN 2.6 will not execute without it, though unused
           {DNNL_ARG_DIFF_SRC, dsrc_},
           {DNNL_ARG_DIFF_SCALE, dscale_},
           {DNNL_ARG_DIFF_SHIFT, dshift_}};
    if (opt_.relu) {
      MG_ENSURE(workspace_, where() + "backward on a layer built for inference");
      a.emplace(DNNL_ARG_WORKSPACE, workspace_);
    }
    run(bwd_, std::move(a));
    if (accumulate) {
      store_or_add(grads_[0], s.dgamma, c_, true);
      store_or_add(grads_[1], s.dbeta, c_, true);
    }
  }

  int64_t count_ = 0, c_ = 0;
  int threads_ = 1;  // the fp32 passes' most threads (their scratch is sized for it)
  dnnl::batch_normalization_forward::primitive_desc train_pd_, infer_pd_;
  dnnl::batch_normalization_backward::primitive_desc bwd_pd_;
  dnnl::primitive train_, infer_, bwd_;
  Buffer stats_, unused_dx_, workspace_buf_;  // stats_: BnStats' rows
  dnnl::memory workspace_;  // the ReLU mask of the last training forward (LayerOptions::relu)
  dnnl::memory src_, dst_, ddst_, dsrc_, scale_, shift_, mean_, var_, rmean_, rvar_, dscale_, dshift_;
};

}  // namespace

LayerRows<CpuBackend> norm_layers() { return {layer_row<BatchNormLayer, CpuBackend>(LayerKind::BatchNorm)}; }

}  // namespace mg::cpu
