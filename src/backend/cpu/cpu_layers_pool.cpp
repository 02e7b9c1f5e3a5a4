// Max, average and global-average pooling through oneDNN, with torch's output-size and divisor rules.
//
// Average pooling counts padding (torch's count_include_pad=True): the divisor of a window is the part of it
// that lies inside the padded input [-pad, size+pad). oneDNN's avg_include_padding always divides by the full
// kernel, which differs only for ceil-mode windows that run past the right padding; those outputs (last
// rows/columns) are rescaled by kernel_area / torch_divisor, and their gradients by the same factor.
#include "backend/cpu/cpu_layers.h"

#include "core/half.h"

namespace mg::cpu {

namespace {

class PoolLayer final : public CpuLayer {
 public:
  explicit PoolLayer(const CpuLayerArgs& args) : CpuLayer(args) {
    const Shape& x = in_shapes_[0];
    PoolParams p = desc_.pool;
    dnnl::algorithm algo;
    if (desc_.kind == LayerKind::GlobalAvgPool) {
      p = PoolParams{};
      p.kh = x.h();
      p.kw = x.w();
      algo = dnnl::algorithm::pooling_avg_exclude_padding;  // no padding: the plain mean
    } else {
      algo = desc_.kind == LayerKind::MaxPool ? dnnl::algorithm::pooling_max
                                          : dnnl::algorithm::pooling_avg_include_padding;
    }
    // oneDNN's output is 4-D also for the global pool ({N,C,1,1}, the same memory as {N,C}).
    const int64_t oh = out_shape_.rank() == 4 ? out_shape_.h() : 1;
    const int64_t ow = out_shape_.rank() == 4 ? out_shape_.w() : 1;

    // Right padding that makes oneDNN produce exactly torch's output size (ceil mode may need more than pad).
    const memory::dims pad_l{p.pad_h, p.pad_w};
    const memory::dims pad_r{std::max<int64_t>(0, (oh - 1) * p.stride_h + p.kh - x.h() - p.pad_h),
                             std::max<int64_t>(0, (ow - 1) * p.stride_w + p.kw - x.w() - p.pad_w)};
    const memory::dims strides{p.stride_h, p.stride_w}, kernel{p.kh, p.kw};
    const memory::desc src = act_desc(x, dt_);
    const memory::desc dst(memory::dims{x.n(), x.c(), oh, ow}, to_dnnl(dt_), Tag::nhwc);
    MG_CHECK_DNNL(fwd_pd_ = dnnl::pooling_forward::primitive_desc(
                      dnnl::pooling_forward::desc(dnnl::prop_kind::forward_training, algo, src, dst, strides, kernel,
                                                  pad_l, pad_r),
                      attr(), be_.engine()));
    MG_CHECK_DNNL(bwd_pd_ = dnnl::pooling_backward::primitive_desc(
                      dnnl::pooling_backward::desc(algo, src, dst, strides, kernel, pad_l, pad_r), attr(),
                      be_.engine(), fwd_pd_));
    fwd_ = primitive_of<dnnl::pooling_forward>(fwd_pd_);
    bwd_ = primitive_of<dnnl::pooling_backward>(bwd_pd_);
    allocate_scratch();
    src_ = mem(src);
    dst_ = mem(dst);
    const memory::desc ws = fwd_pd_.workspace_desc();
    if (ws.get_size()) {
      ws_buf_ = Buffer(be_, ws.get_size());
      ws_ = mem(ws, ws_buf_.get());
    }

    if (algo == dnnl::algorithm::pooling_avg_include_padding) {
      fix_h_ = divisor_fix(x.h(), oh, p.kh, p.stride_h, p.pad_h);
      fix_w_ = divisor_fix(x.w(), ow, p.kw, p.stride_w, p.pad_w);
      bool any = false;
      for (float f : fix_h_) any = any || f != 1.f;
      for (float f : fix_w_) any = any || f != 1.f;
      if (any) fixed_dout_ = Buffer(be_, static_cast<size_t>(out_shape_.numel()) * dtype_size(dt_));
    }
  }

  void forward(const std::vector<Tensor>& in, const Tensor& out, bool) override {
    check_io(in, out);
    set(src_, in[0].data);
    set(dst_, out.data);
    Args a{{DNNL_ARG_SRC, src_}, {DNNL_ARG_DST, dst_}};
    if (ws_buf_.get()) a.emplace(DNNL_ARG_WORKSPACE, ws_);
    run(fwd_, std::move(a));
    if (fixed_dout_.get()) rescale_edges(out.data);
  }

  void backward(const std::vector<Tensor>& in, const Tensor& out, const Tensor& dout,
                const std::vector<Tensor>& din, bool) override {
    check_io(in, out);
    if (!din[0].data) return;
    const void* dy = dout.data;
    if (fixed_dout_.get()) {
      parallel_copy(fixed_dout_.get(), dout.data, dout.bytes());
      rescale_edges(fixed_dout_.get());
      dy = fixed_dout_.get();
    }
    set(src_, din[0].data);
    set(dst_, dy);
    Args a{{DNNL_ARG_DIFF_SRC, src_}, {DNNL_ARG_DIFF_DST, dst_}};
    if (ws_buf_.get()) a.emplace(DNNL_ARG_WORKSPACE, ws_);
    run(bwd_, std::move(a));
  }

 private:
  // Per output position along one axis: kernel / torch's extent of the window (1 unless it passes size+pad).
  static std::vector<float> divisor_fix(int64_t size, int64_t out, int64_t k, int64_t stride, int64_t pad) {
    std::vector<float> f(static_cast<size_t>(out));
    for (int64_t o = 0; o < out; ++o) {
      const int64_t start = o * stride - pad;
      const int64_t end = std::min(start + k, size + pad);
      f[static_cast<size_t>(o)] = static_cast<float>(k) / static_cast<float>(end - start);
    }
    return f;
  }

  void rescale_edges(void* y) {
    const int64_t n = out_shape_[0], c = out_shape_[1];
    const int64_t oh = static_cast<int64_t>(fix_h_.size()), ow = static_cast<int64_t>(fix_w_.size());
    for (int64_t b = 0; b < n; ++b) {
      for (int64_t h = 0; h < oh; ++h) {
        for (int64_t w = 0; w < ow; ++w) {
          const float f = fix_h_[static_cast<size_t>(h)] * fix_w_[static_cast<size_t>(w)];
          if (f == 1.f) continue;
          const int64_t base = ((b * oh + h) * ow + w) * c;
          if (dt_ == DType::F32) {
            float* v = static_cast<float*>(y) + base;
            for (int64_t i = 0; i < c; ++i) v[i] *= f;
          } else {
            uint16_t* v = static_cast<uint16_t*>(y) + base;
            for (int64_t i = 0; i < c; ++i) v[i] = float_to_bf16(bf16_to_float(v[i]) * f);
          }
        }
      }
    }
  }

  std::vector<float> fix_h_, fix_w_;
  dnnl::pooling_forward::primitive_desc fwd_pd_;
  dnnl::pooling_backward::primitive_desc bwd_pd_;
  dnnl::primitive fwd_, bwd_;
  Buffer ws_buf_, fixed_dout_;
  dnnl::memory src_, dst_, ws_;
};

}  // namespace

LayerRows<CpuBackend> pool_layers() {
  return {layer_row<PoolLayer, CpuBackend>(LayerKind::MaxPool), layer_row<PoolLayer, CpuBackend>(LayerKind::AvgPool),
          layer_row<PoolLayer, CpuBackend>(LayerKind::GlobalAvgPool)};
}

}  // namespace mg::cpu
