// Convolution (stride, padding, groups incl. depthwise, optional bias) through oneDNN.
// Activations stay NHWC; weights are handed to oneDNN as format_tag::any so it picks its blocked JIT/brgemm
// layout, with the master OHWI copy reordered into it (see WeightedLayer).
// Two shapes have a second algorithm, and the layer runs whichever is faster for its shape (CpuConvAlgo), timed
// with everything each variant adds:
// - fp32 3x3 stride 1: Winograd, which works on oneDNN's blocked activation layout only, so that variant
//   reorders its input and output through the staging area around each primitive;
// - fp32 1x1 stride 1 without padding or bias (pointwise): a matrix product. On NHWC activations X is
//   [N*H*W, C] row-major and the canonical OHWI weights are [O, C], so oneDNN's matmul reads both where they
//   are: forward Y = X W^T, backward-data dX = dY W, backward-weights dW = dY^T X, and the gradient lands in
//   canonical layout. The direct primitives instead want blocked weight copies, made from the master and back
//   each step. Each pass has its own weight copy, so each pass is timed and chosen on its own.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>

#include <omp.h>

#include "backend/cpu/cpu_layers.h"

namespace mg::cpu {

namespace {

using Fwd = dnnl::convolution_forward;
using BwdData = dnnl::convolution_backward_data;
using BwdW = dnnl::convolution_backward_weights;
using MatMul = dnnl::matmul;

struct ConvPds {
  Fwd::primitive_desc fwd;
  BwdData::primitive_desc bwd_data;
  BwdW::primitive_desc bwd_w;
};

// The pointwise convolution as matrix products; bwd_w_acc adds to the gradient (a sum post-op).
struct GemmPds {
  MatMul::primitive_desc fwd, bwd_data, bwd_w, bwd_w_acc;
};

// Row-major views of an NHWC pointwise layer's tensors: x {M, C}, y {M, O}, the OHWI weights as w {O, C} and
// transposed as wt {C, O}, the output gradient transposed as dyt {O, M}; M = N*H*W.
struct GemmViews {
  memory::desc x, y, w, wt, dyt;
  GemmViews(int64_t m, int64_t c, int64_t o)
      : x({m, c}, DT::f32, memory::dims{c, 1}),
        y({m, o}, DT::f32, memory::dims{o, 1}),
        w({o, c}, DT::f32, memory::dims{c, 1}),
        wt({c, o}, DT::f32, memory::dims{1, c}),
        dyt({o, m}, DT::f32, memory::dims{1, o}) {}
};

size_t round_up64(size_t n) { return (n + 63) / 64 * 64; }

// Winograd keeps transformed tiles in the scratchpad, which every layer of the replica shares at the size of the
// largest need; as cudnnFind on CUDA is held to a workspace limit, the timed choice only takes Winograd whose
// scratchpad fits this. ResNet-50 at batch 16: 12-35 MB in its first three stages, 131 MB at 512 channels of
// 7x7 for a 1.7 % shorter step, which is not worth 5 % more peak memory.
constexpr size_t kWinogradScratchLimit = size_t{64} << 20;

// The choice is timed on at most this many images: both algorithms' time grows in proportion to the batch, and
// timing at a batch of hundreds would add tens of seconds (and gigabytes) to start-up.
constexpr int64_t kTimingBatch = 8;

Shape with_batch(Shape s, int64_t n) {
  s.dims[0] = std::min(s.dims[0], n);
  return s;
}

size_t scratch_bytes(const ConvPds& p) {
  return std::max({p.fwd.scratchpad_desc().get_size(), p.bwd_data.scratchpad_desc().get_size(),
                   p.bwd_w.scratchpad_desc().get_size()});
}

size_t scratch_bytes(const GemmPds& p) {
  return std::max({p.fwd.scratchpad_desc().get_size(), p.bwd_data.scratchpad_desc().get_size(),
                   p.bwd_w.scratchpad_desc().get_size(), p.bwd_w_acc.scratchpad_desc().get_size()});
}

// A layer's passes, as bits of a set.
enum Pass : unsigned { kFwd = 1, kBwdData = 2, kBwdW = 4, kAllPasses = 7 };

// Milliseconds of each pass of one step.
struct PassMs {
  double fwd = 0, bwd_data = 0, bwd_w = 0;
  double total() const { return fwd + bwd_data + bwd_w; }
};

// The choice per shape is made once per process: replicas that are threads of one process then run the same
// algorithm, and the second replica does not time while the first one trains. A shape has one alternative to
// direct convolution at most (Winograd or the matrix product); the answer is the set of passes that run it.
class ConvAlgoCache {
 public:
  template <typename Decide>
  unsigned alternative_passes(const std::string& key, Decide decide) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = choice_.find(key);
    if (it == choice_.end()) it = choice_.emplace(key, decide()).first;
    return it->second;
  }

 private:
  std::mutex mu_;
  std::map<std::string, unsigned> choice_;
};

ConvAlgoCache& conv_algo_cache() {
  static ConvAlgoCache cache;
  return cache;
}

class ConvLayer final : public WeightedLayer {
 public:
  ConvLayer(CpuBackend& be, const LayerDesc& d, const std::vector<Shape>& in, const LayerOptions& opt)
      : WeightedLayer(be, d, in, opt) {
    const ConvParams& c = d.conv;
    const Shape& x = in_shapes_[0];
    const int64_t g = c.groups, o = c.out_channels, ig = x.c() / g;

    // Canonical OHWI = {G, O/G, KH, KW, I/G} in memory, described with strides over oneDNN's (g)oihw dims.
    memory::dims wdims, wstrides;
    if (g > 1) {
      wdims = {g, o / g, ig, c.kh, c.kw};
      wstrides = {o / g * c.kh * c.kw * ig, c.kh * c.kw * ig, 1, c.kw * ig, ig};
    } else {
      wdims = {o, ig, c.kh, c.kw};
      wstrides = {c.kh * c.kw * ig, 1, c.kw * ig, ig};
    }
    const memory::desc canonical(wdims, DT::f32, wstrides);
    const memory::desc src = act_desc(x, dt_), dst = act_desc(out_shape_, dt_);
    const ConvPds direct = make_pds(dnnl::algorithm::convolution_direct, src, dst, wdims, true);

    const CpuConvAlgo algo = be.conv_algo();
    GemmPds gp;
    unsigned gemm_passes = 0;
    if (gemm_shape() && (algo == CpuConvAlgo::Fastest || algo == CpuConvAlgo::Gemm)) {
      try {
        gp = make_gemm_pds(x.n() * x.h() * x.w());
        gemm_passes = algo == CpuConvAlgo::Gemm
                          ? unsigned{kAllPasses}
                          : conv_algo_cache().alternative_passes(problem_key(),
                                                                 [&] { return faster_gemm_passes(canonical, direct); });
      } catch (const dnnl::error& e) {
        if (algo == CpuConvAlgo::Gemm)
          throw Error(where() + "oneDNN has no matrix product for the pointwise convolution of input " + x.str() +
                      ": " + e.what());
        gemm_passes = 0;
      }
    }
    ConvPds wino;
    bool use_wino = false;
    if (winograd_shape() && (algo == CpuConvAlgo::Fastest || algo == CpuConvAlgo::Winograd)) {
      const memory::desc src_any(src.dims(), src.data_type(), Tag::any), dst_any(dst.dims(), dst.data_type(), Tag::any);
      // oneDNN has no Winograd for some shapes and ISAs; that is an answer (direct it is), not a failure.
      try {
        wino = make_pds(dnnl::algorithm::convolution_winograd, src_any, dst_any, wdims, false);
        use_wino = algo == CpuConvAlgo::Winograd ||
                   (scratch_bytes(wino) <= kWinogradScratchLimit &&
                    conv_algo_cache().alternative_passes(problem_key(), [&] {
                      return winograd_is_faster(canonical, wdims) ? unsigned{kAllPasses} : 0u;
                    }) == kAllPasses);
      } catch (const dnnl::error& e) {
        // Pinned, it must run what was asked for or say so (cpu_has_winograd tells callers beforehand).
        if (algo == CpuConvAlgo::Winograd)
          throw Error(where() + "oneDNN has no Winograd convolution for input " + x.str() + ": " + e.what());
        use_wino = false;
      }
    }
    const ConvPds& p = use_wino ? wino : direct;
    // The convolution primitives serve the passes the matrix products do not.
    if (gemm_passes != kAllPasses)
      build(p.fwd, p.bwd_data, p.bwd_w, canonical, p.fwd.src_desc(), p.fwd.dst_desc(), c.bias ? o : 0);
    if (use_wino) stage_activations(src, dst);
    if (gemm_passes) build_gemm(gp, gemm_passes);
    be.count_conv_algorithm(use_wino ? kCpuConvAlgoNames.name(CpuConvAlgo::Winograd) : algorithm_name(gemm_passes));
  }

  void forward(const std::vector<Tensor>& in, const Tensor& out, bool training) override {
    if (gemm_passes_ & kFwd) return gemm_forward(in, out);
    if (!blocked_) return WeightedLayer::forward(in, out, training);
    check_bound();
    check_io(in, out);
    char* s = static_cast<char*>(be_.staging()) + act_offset_;
    reorder(to_blk_x_, x_, in[0].data, x_blk_, s);
    run_forward(s, s + y_offset_);
    reorder(from_blk_y_, y_blk_, s + y_offset_, y_, out.data);
  }

  void backward(const std::vector<Tensor>& in, const Tensor& out, const Tensor& dout, const std::vector<Tensor>& din,
                bool accumulate) override {
    if (gemm_passes_) return gemm_backward(in, out, dout, din, accumulate);
    if (!blocked_) return WeightedLayer::backward(in, out, dout, din, accumulate);
    check_bound();
    check_io(in, out);
    char* s = static_cast<char*>(be_.staging()) + act_offset_;
    // The output gradient stays staged for both passes; the input gradient, then the input, take the x slot.
    reorder(to_blk_y_, y_, dout.data, y_blk_, s + y_offset_);
    if (din[0].data) {
      run_backward_data(s + y_offset_, s);
      reorder(from_blk_x_, x_blk_, s, x_, din[0].data);
    }
    reorder(to_blk_x_, x_, in[0].data, x_blk_, s);
    run_backward_weights(s, s + y_offset_, accumulate);
  }

 private:
  bool winograd_shape() const {
    const ConvParams& c = desc_.conv;
    return dt_ == DType::F32 && c.kh == 3 && c.kw == 3 && c.stride_h == 1 && c.stride_w == 1 && c.groups == 1;
  }

  // The bias gradient (a column sum of dY) is no matrix product, so a pointwise layer with bias stays direct.
  bool gemm_shape() const {
    const ConvParams& c = desc_.conv;
    return dt_ == DType::F32 && c.kh == 1 && c.kw == 1 && c.stride_h == 1 && c.stride_w == 1 && c.pad_h == 0 &&
           c.pad_w == 0 && c.groups == 1 && !c.bias;
  }

  GemmPds make_gemm_pds(int64_t rows) {
    const GemmViews v(rows, in_shapes_[0].c(), desc_.conv.out_channels);
    dnnl::primitive_attr acc = attr();
    dnnl::post_ops sum;
    sum.append_sum(1.f);
    acc.set_post_ops(sum);
    GemmPds p;
    p.fwd = MatMul::primitive_desc(MatMul::desc(v.x, v.wt, v.y), attr(), be_.engine());
    p.bwd_data = MatMul::primitive_desc(MatMul::desc(v.y, v.w, v.x), attr(), be_.engine());
    p.bwd_w = MatMul::primitive_desc(MatMul::desc(v.dyt, v.x, v.w), attr(), be_.engine());
    p.bwd_w_acc = MatMul::primitive_desc(MatMul::desc(v.dyt, v.x, v.w), acc, be_.engine());
    return p;
  }

  // "gemm" (every pass a matrix product), "direct" (none), else the passes that are, e.g. "gemm:bwd_w".
  static std::string algorithm_name(unsigned gemm_passes) {
    if (gemm_passes == kAllPasses) return kCpuConvAlgoNames.name(CpuConvAlgo::Gemm);
    if (!gemm_passes) return kCpuConvAlgoNames.name(CpuConvAlgo::Direct);
    std::string name;
    for (auto [bit, pass] : {std::pair{kFwd, "fwd"}, {kBwdData, "bwd_data"}, {kBwdW, "bwd_w"}})
      if (gemm_passes & bit) name += (name.empty() ? "" : "+") + std::string(pass);
    return std::string(kCpuConvAlgoNames.name(CpuConvAlgo::Gemm)) + ":" + name;
  }

  void build_gemm(const GemmPds& p, unsigned passes) {
    gemm_passes_ = passes;
    if (passes & kFwd) {
      MG_CHECK_DNNL(mm_fwd_ = MatMul(p.fwd));
      need_scratch(p.fwd.scratchpad_desc());
    }
    if (opt_.backward && (passes & kBwdData)) {
      MG_CHECK_DNNL(mm_bwd_data_ = MatMul(p.bwd_data));
      need_scratch(p.bwd_data.scratchpad_desc());
    }
    if (opt_.backward && (passes & kBwdW)) {
      MG_CHECK_DNNL(mm_bwd_w_ = MatMul(p.bwd_w));
      MG_CHECK_DNNL(mm_bwd_w_acc_ = MatMul(p.bwd_w_acc));
      need_scratch(p.bwd_w.scratchpad_desc());
      need_scratch(p.bwd_w_acc.scratchpad_desc());
    }
    allocate_scratch();
    const Shape& x = in_shapes_[0];
    const GemmViews v(x.n() * x.h() * x.w(), x.c(), desc_.conv.out_channels);
    gx_ = mem(v.x);
    gy_ = mem(v.y);
    gw_ = mem(v.w);
    gwt_ = mem(v.wt);
    gdyt_ = mem(v.dyt);
  }

  void gemm_forward(const std::vector<Tensor>& in, const Tensor& out) {
    check_bound();
    check_io(in, out);
    set(gx_, in[0].data);
    set(gwt_, params_[0]);
    set(gy_, out.data);
    run(mm_fwd_, {{DNNL_ARG_SRC, gx_}, {DNNL_ARG_WEIGHTS, gwt_}, {DNNL_ARG_DST, gy_}});
  }

  // Each pass as a matrix product or through the convolution primitives, as chosen.
  void gemm_backward(const std::vector<Tensor>& in, const Tensor& out, const Tensor& dout,
                     const std::vector<Tensor>& din, bool accumulate) {
    check_bound();
    check_io(in, out);
    if (din[0].data) {
      if (gemm_passes_ & kBwdData) {
        set(gy_, dout.data);
        set(gw_, params_[0]);
        set(gx_, din[0].data);
        run(mm_bwd_data_, {{DNNL_ARG_SRC, gy_}, {DNNL_ARG_WEIGHTS, gw_}, {DNNL_ARG_DST, gx_}});
      } else {
        run_backward_data(dout.data, din[0].data);
      }
    }
    if (!(gemm_passes_ & kBwdW)) return run_backward_weights(in[0].data, dout.data, accumulate);
    set(gdyt_, dout.data);
    set(gx_, in[0].data);
    set(gw_, grads_[0]);
    run(accumulate ? mm_bwd_w_acc_ : mm_bwd_w_, {{DNNL_ARG_SRC, gdyt_}, {DNNL_ARG_WEIGHTS, gx_}, {DNNL_ARG_DST, gw_}});
  }

  ConvPds make_pds(dnnl::algorithm algo, const memory::desc& src, const memory::desc& dst, const memory::dims& wdims,
                   bool checked) {
    const ConvParams& c = desc_.conv;
    const DT adt = to_dnnl(dt_);
    const memory::desc w_any(wdims, adt, Tag::any), dw_any(wdims, DT::f32, Tag::any);
    const memory::desc bias_md = c.bias ? memory::desc({c.out_channels}, DT::f32, Tag::a) : memory::desc();
    const memory::dims strides{c.stride_h, c.stride_w}, pad{c.pad_h, c.pad_w};
    // oneDNN floors the output size like torch, so symmetric padding describes the same convolution.
    const memory::dims& pad_r = pad;
    auto create = [&] {
      ConvPds p;
      p.fwd = Fwd::primitive_desc(
          Fwd::desc(dnnl::prop_kind::forward_training, algo, src, w_any, bias_md, dst, strides, pad, pad_r), attr(),
          be_.engine());
      p.bwd_data = BwdData::primitive_desc(BwdData::desc(algo, p.fwd.src_desc(), w_any, p.fwd.dst_desc(), strides, pad,
                                                         pad_r),
                                           attr(), be_.engine(), p.fwd);
      p.bwd_w = BwdW::primitive_desc(BwdW::desc(algo, p.fwd.src_desc(), dw_any, bias_md, p.fwd.dst_desc(), strides, pad,
                                                pad_r),
                                     attr(), be_.engine(), p.fwd);
      return p;
    };
    if (!checked) return create();
    ConvPds p;
    MG_CHECK_DNNL(p = create());
    return p;
  }

  // The thread count is the one the timing runs at (this thread's OpenMP setting, which the trainer sets per
  // replica); changing it here would change the numerics of whoever built this layer.
  std::string problem_key() const {
    const Shape& x = in_shapes_[0];
    const ConvParams& c = desc_.conv;
    return x.str() + ">" + std::to_string(c.out_channels) + (c.bias ? "b" : "") + "|k" + std::to_string(c.kh) + "x" +
           std::to_string(c.kw) + "s" + std::to_string(c.stride_h) + "x" + std::to_string(c.stride_w) + "|p" +
           std::to_string(c.pad_h) +
           "x" + std::to_string(c.pad_w) + "|t" + std::to_string(omp_get_max_threads()) +
           (opt_.backward ? "|bwd" : "") + (opt_.input_grad ? "|dx" : "");
  }

  // Direct as well when timing fails (the direct primitives were created already, so they can run).
  bool winograd_is_faster(const memory::desc& canonical, const memory::dims& wdims) {
    try {
      const Shape x = with_batch(in_shapes_[0], kTimingBatch), y = with_batch(out_shape_, kTimingBatch);
      const memory::desc xd = act_desc(x, dt_), yd = act_desc(y, dt_);
      const memory::desc x_any(xd.dims(), xd.data_type(), Tag::any), y_any(yd.dims(), yd.data_type(), Tag::any);
      const ConvPds wino = make_pds(dnnl::algorithm::convolution_winograd, x_any, y_any, wdims, false);
      const ConvPds direct = make_pds(dnnl::algorithm::convolution_direct, xd, yd, wdims, true);
      return time_passes(wino, true, canonical, x, y).total() < time_passes(direct, false, canonical, x, y).total();
    } catch (const std::exception&) {
      return false;
    }
  }

  // The passes a matrix product runs faster than the convolution primitive with its weight copy. `direct` is the
  // layer's own: where its backward-data reads the forward's weight copy, that pass cannot run as a primitive
  // after a forward that made none.
  unsigned faster_gemm_passes(const memory::desc& canonical, const ConvPds& direct) {
    unsigned passes = 0;
    try {
      const Shape x = with_batch(in_shapes_[0], kTimingBatch), y = with_batch(out_shape_, kTimingBatch);
      const ConvPds conv =
          make_pds(dnnl::algorithm::convolution_direct, act_desc(x, dt_), act_desc(y, dt_), canonical.dims(), true);
      const PassMs c = time_passes(conv, false, canonical, x, y), g = time_gemm_passes(x);
      if (g.fwd < c.fwd) passes |= kFwd;
      if (opt_.backward && opt_.input_grad && g.bwd_data < c.bwd_data) passes |= kBwdData;
      if (opt_.backward && g.bwd_w < c.bwd_w) passes |= kBwdW;
    } catch (const std::exception&) {
      return 0;  // direct, as when timing Winograd fails
    }
    // Passes that never run go with the forward, so a forward-only layer is simply "gemm" or "direct".
    if (!opt_.backward) passes = passes ? unsigned{kAllPasses} : 0u;
    if (opt_.backward && opt_.input_grad && !(passes & kBwdData) &&
        direct.bwd_data.weights_desc() == direct.fwd.weights_desc())
      passes &= ~unsigned{kFwd};
    return passes;
  }

  // Zeroed memory of oneDNN's own for the timing, so that creating a layer leaves no trace in the backend's peak.
  dnnl::memory zeroed(const memory::desc& md) const {
    dnnl::memory m(md, be_.engine());
    std::memset(m.get_data_handle(), 0, md.get_size());
    return m;
  }

  // Best of two runs after a warm-up.
  double best_ms(const std::function<void()>& pass) {
    double best = 1e300;
    for (int r = 0; r < 3; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      pass();
      MG_CHECK_DNNL(be_.dnnl_stream().wait());
      const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      if (r > 0) best = std::min(best, ms);
    }
    return best;
  }

  // Milliseconds of each of the layer's passes in one step with pds (0 for a pass that does not run), with what
  // that variant adds: the weight copies from the canonical master into the primitives' formats and the
  // gradient back (see WeightedLayer), and for a blocked variant the activation reorders.
  // The values do not matter to the time, so each tensor and its gradient share storage.
  PassMs time_passes(const ConvPds& p, bool blocked, const memory::desc& canonical, const Shape& x_shape,
                     const Shape& y_shape) {
    const memory::desc x_md = act_desc(x_shape, dt_), y_md = act_desc(y_shape, dt_);
    dnnl::memory x = zeroed(x_md), y = zeroed(y_md), &dx = x, &dy = y;
    dnnl::memory xb = zeroed(p.fwd.src_desc()), yb = zeroed(p.fwd.dst_desc()), &dxb = xb, &dyb = yb;
    dnnl::memory w = zeroed(p.fwd.weights_desc()), wd = zeroed(p.bwd_data.weights_desc()),
                 dw = zeroed(p.bwd_w.diff_weights_desc()), master = zeroed(canonical), grad = zeroed(canonical);
    dnnl::memory sp =
        zeroed(memory::desc({static_cast<memory::dim>(std::max<size_t>(scratch_bytes(p), 1))}, DT::u8, Tag::a));
    const bool has_bias = desc_.conv.bias;
    const memory::desc bias_md({desc_.conv.out_channels}, DT::f32, Tag::a);
    dnnl::memory b = has_bias ? zeroed(bias_md) : dnnl::memory(), db = has_bias ? zeroed(bias_md) : dnnl::memory();
    dnnl::primitive f, bd, bw, r_x, r_y, r_dy, r_dx, r_w, r_wd, r_dw;
    MG_CHECK_DNNL(f = dnnl::primitive(p.fwd));
    MG_CHECK_DNNL(bd = dnnl::primitive(p.bwd_data));
    MG_CHECK_DNNL(bw = dnnl::primitive(p.bwd_w));
    const bool copy_w = p.fwd.weights_desc() != canonical, copy_wd = p.bwd_data.weights_desc() != canonical,
               copy_dw = p.bwd_w.diff_weights_desc() != canonical;
    if (copy_w) MG_CHECK_DNNL(r_w = dnnl::reorder(master, w));
    if (copy_wd) MG_CHECK_DNNL(r_wd = dnnl::reorder(master, wd));
    if (copy_dw) MG_CHECK_DNNL(r_dw = dnnl::reorder(dw, grad));
    if (blocked) {
      MG_CHECK_DNNL(r_x = dnnl::reorder(x, xb));
      MG_CHECK_DNNL(r_y = dnnl::reorder(yb, y));
      MG_CHECK_DNNL(r_dy = dnnl::reorder(dy, dyb));
      MG_CHECK_DNNL(r_dx = dnnl::reorder(dxb, dx));
    }
    dnnl::stream& st = be_.dnnl_stream();
    auto exec = [&](dnnl::primitive& prim, Args a) {
      a.emplace(DNNL_ARG_SCRATCHPAD, sp);
      MG_CHECK_DNNL(prim.execute(st, a));
    };
    auto reorder = [&](dnnl::primitive& r, dnnl::memory& from, dnnl::memory& to) {
      MG_CHECK_DNNL(r.execute(st, {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}}));
    };
    dnnl::memory& xs = blocked ? xb : x;
    dnnl::memory& ys = blocked ? yb : y;
    dnnl::memory& dys = blocked ? dyb : dy;
    dnnl::memory& dxs = blocked ? dxb : dx;
    PassMs ms;
    ms.fwd = best_ms([&] {
      if (blocked) reorder(r_x, x, xb);
      if (copy_w) reorder(r_w, master, w);
      Args fa{{DNNL_ARG_SRC, xs}, {DNNL_ARG_WEIGHTS, w}, {DNNL_ARG_DST, ys}};
      if (has_bias) fa.emplace(DNNL_ARG_BIAS, b);
      exec(f, fa);
      if (blocked) reorder(r_y, yb, y);
    });
    if (!opt_.backward) return ms;
    // The staged output gradient serves both backward passes: the first to run stages it.
    if (opt_.input_grad)
      ms.bwd_data = best_ms([&] {
        if (blocked) reorder(r_dy, dy, dyb);
        if (copy_wd) reorder(r_wd, master, wd);
        exec(bd, {{DNNL_ARG_DIFF_DST, dys}, {DNNL_ARG_WEIGHTS, wd}, {DNNL_ARG_DIFF_SRC, dxs}});
        if (blocked) reorder(r_dx, dxb, dx);
      });
    ms.bwd_w = best_ms([&] {
      if (blocked && !opt_.input_grad) reorder(r_dy, dy, dyb);
      if (blocked) reorder(r_x, x, xb);
      Args wa{{DNNL_ARG_SRC, xs}, {DNNL_ARG_DIFF_DST, dys}, {DNNL_ARG_DIFF_WEIGHTS, dw}};
      if (has_bias) wa.emplace(DNNL_ARG_DIFF_BIAS, db);
      exec(bw, wa);
      if (copy_dw) reorder(r_dw, dw, grad);
    });
    return ms;
  }

  // The same for the pointwise layer as matrix products, which read and write the tensors in place.
  PassMs time_gemm_passes(const Shape& x_shape) {
    const int64_t rows = x_shape.n() * x_shape.h() * x_shape.w();
    const GemmPds p = make_gemm_pds(rows);
    const GemmViews v(rows, x_shape.c(), desc_.conv.out_channels);
    dnnl::memory x = zeroed(v.x), y = zeroed(v.y), w = zeroed(v.w);
    dnnl::memory wt(v.wt, be_.engine(), w.get_data_handle()), dyt(v.dyt, be_.engine(), y.get_data_handle());
    dnnl::memory sp =
        zeroed(memory::desc({static_cast<memory::dim>(std::max<size_t>(scratch_bytes(p), 1))}, DT::u8, Tag::a));
    MatMul f(p.fwd), bd(p.bwd_data), bw(p.bwd_w);
    dnnl::stream& st = be_.dnnl_stream();
    auto exec = [&](MatMul& prim, dnnl::memory& a, dnnl::memory& b, dnnl::memory& c) {
      MG_CHECK_DNNL(prim.execute(st, {{DNNL_ARG_SRC, a}, {DNNL_ARG_WEIGHTS, b}, {DNNL_ARG_DST, c}, {DNNL_ARG_SCRATCHPAD, sp}}));
    };
    PassMs ms;
    ms.fwd = best_ms([&] { exec(f, x, wt, y); });
    if (!opt_.backward) return ms;
    if (opt_.input_grad) ms.bwd_data = best_ms([&] { exec(bd, y, w, x); });
    ms.bwd_w = best_ms([&] { exec(bw, dyt, x, w); });
    return ms;
  }

  // Blocked copies of the input (or its gradient) and the output (or its gradient) sit in the staging area after
  // the weight copies.
  void stage_activations(const memory::desc& x_nhwc, const memory::desc& y_nhwc) {
    blocked_ = true;
    const memory::desc x_blk = src_.get_desc(), y_blk = dst_.get_desc();
    x_blk_ = mem(x_blk);
    y_blk_ = mem(y_blk);
    x_ = mem(x_nhwc);
    y_ = mem(y_nhwc);
    to_blk_x_ = make_reorder(x_nhwc, x_blk);
    to_blk_y_ = make_reorder(y_nhwc, y_blk);
    from_blk_x_ = make_reorder(x_blk, x_nhwc);
    from_blk_y_ = make_reorder(y_blk, y_nhwc);
    allocate_scratch();
    act_offset_ = round_up64(staging_bytes());
    y_offset_ = round_up64(x_blk.get_size());
    be_.reserve_staging(act_offset_ + y_offset_ + y_blk.get_size());
  }

  dnnl::reorder make_reorder(const memory::desc& from, const memory::desc& to) {
    dnnl::reorder::primitive_desc pd;
    MG_CHECK_DNNL(pd = dnnl::reorder::primitive_desc(be_.engine(), from, be_.engine(), to, attr()));
    need_scratch(pd.scratchpad_desc());
    dnnl::reorder r;
    MG_CHECK_DNNL(r = dnnl::reorder(pd));
    return r;
  }

  void reorder(dnnl::reorder& r, dnnl::memory& from_m, const void* from, dnnl::memory& to_m, void* to) {
    set(from_m, from);
    set(to_m, to);
    run(r, {{DNNL_ARG_FROM, from_m}, {DNNL_ARG_TO, to_m}});
  }

  unsigned gemm_passes_ = 0;  // Pass bits run as matrix products on the layer's own tensors (no weight copies)
  MatMul mm_fwd_, mm_bwd_data_, mm_bwd_w_, mm_bwd_w_acc_;
  dnnl::memory gx_, gy_, gw_, gwt_, gdyt_;  // GemmViews over the tensors, set per call
  bool blocked_ = false;  // Winograd: activations staged in oneDNN's blocked layout around each primitive
  dnnl::memory x_, y_, x_blk_, y_blk_;  // NHWC views of the layer's tensors; blocked views of the staged copies
  dnnl::reorder to_blk_x_, to_blk_y_, from_blk_x_, from_blk_y_;
  size_t act_offset_ = 0, y_offset_ = 0;  // staged copies: x (or dx) after the weights, y (or dy) after it
};

}  // namespace

LayerRows<CpuBackend> conv_layers() { return {layer_row<ConvLayer, CpuBackend>(LayerKind::Conv)}; }

}  // namespace mg::cpu

namespace mg {

bool cpu_has_winograd() {
  // oneDNN 2.6 has fp32 Winograd only for some ISAs (AVX-512); asking for one small convolution is the answer
  // that follows the library and ONEDNN_MAX_CPU_ISA rather than a list of ISAs kept here.
  static const bool has = [] {
    using namespace dnnl;
    try {
      const engine eng(engine::kind::cpu, 0);
      const memory::desc x({1, 16, 8, 8}, memory::data_type::f32, memory::format_tag::any);
      const memory::desc w({16, 16, 3, 3}, memory::data_type::f32, memory::format_tag::any);
      convolution_forward::primitive_desc(
          convolution_forward::desc(prop_kind::forward_training, algorithm::convolution_winograd, x, w, x, {1, 1},
                                    {1, 1}, {1, 1}),
          eng);
      return true;
    } catch (const dnnl::error&) {
      return false;
    }
  }();
  return has;
}

}  // namespace mg
