// Convolution (stride, padding, groups incl. depthwise, optional bias) through oneDNN.
// Activations stay NHWC; weights are handed to oneDNN as format_tag::any so it picks its blocked JIT/brgemm
// layout, with the master OHWI copy reordered into it (see WeightedLayer).
// Where oneDNN also has Winograd (fp32 3x3 stride 1) the layer runs whichever of the two is faster for its
// shape (CpuConvAlgo): Winograd works on oneDNN's blocked activation layout only, so that variant reorders its
// input and output through the staging area around each primitive, and the timing that picks it includes
// those reorders.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <mutex>
#include <set>

#include <omp.h>
#include <sys/mman.h>

#include "backend/cpu/conv_choice.h"
#include "backend/cpu/cpu_layers.h"

namespace mg::cpu {

namespace {

using Fwd = dnnl::convolution_forward;
using BwdData = dnnl::convolution_backward_data;
using BwdW = dnnl::convolution_backward_weights;

struct ConvPds {
  Fwd::primitive_desc fwd;
  BwdData::primitive_desc bwd_data;
  BwdW::primitive_desc bwd_w;
};

size_t round_up64(size_t n) { return (n + 63) / 64 * 64; }

// oneDNN's implementation per pass, by its name (impl_info_str); empty: its first choice.
struct ImplNames {
  std::string fwd, bwd_data, bwd_w;
};

// Moves pd to the implementation called name; false (pd then spent) when oneDNN offers none of that name.
template <typename Pd>
bool advance_to(Pd& pd, const std::string& name) {
  if (name.empty()) return true;
  do {
    if (pd.impl_info_str() == name) return true;
  } while (pd.next_impl());
  return false;
}

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

// Zeroed memory for timing, straight from the kernel and returned to it when this goes: through malloc, the
// tens of megabytes each candidate needs would stay in glibc's heap (and raise its mmap threshold) for the rest
// of the process, 280 MB of resident memory after ResNet-50's set-up that no allocator count shows. Zeroed
// explicitly: untouched anonymous pages all read the one shared zero page, which would time reads from cache.
class TimingMemory {
 public:
  explicit TimingMemory(dnnl::engine eng) : eng_(std::move(eng)) {}
  TimingMemory(const TimingMemory&) = delete;
  TimingMemory& operator=(const TimingMemory&) = delete;
  ~TimingMemory() {
    for (const auto& [p, n] : maps_) munmap(p, n);
  }
  dnnl::memory get(const memory::desc& md) {
    const size_t n = std::max<size_t>(md.get_size(), 1);
    void* p = mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    maps_.emplace_back(p, n);
    // As CpuBackend::device_alloc advises the buffers the layers run on.
    if (n >= (size_t{2} << 20)) madvise(p, n, MADV_HUGEPAGE);
    std::memset(p, 0, n);
    dnnl::memory m;
    MG_CHECK_DNNL(m = dnnl::memory(md, eng_, p));
    return m;
  }
  // A byte buffer of a primitive's scratchpad size.
  dnnl::memory scratch(size_t bytes) {
    return get(memory::desc({static_cast<memory::dim>(std::max<size_t>(bytes, 1))}, DT::u8, Tag::a));
  }

 private:
  dnnl::engine eng_;
  std::vector<std::pair<void*, size_t>> maps_;
};

// The choice per shape is made once per process: replicas that are threads of one process then run the same
// algorithm, and the second replica does not time while the first one trains. A decision must not consult the
// cache itself (the lock is held while it times).
class ConvAlgoCache {
 public:
  template <typename Decide>
  bool winograd(const std::string& key, Decide decide) {
    return get(winograd_, key, decide);
  }
  template <typename Decide>
  ImplNames impls(const std::string& key, Decide decide) {
    return get(impls_, key, decide);
  }

 private:
  template <typename T, typename Decide>
  T get(std::map<std::string, T>& m, const std::string& key, Decide decide) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = m.find(key);
    if (it == m.end()) it = m.emplace(key, decide()).first;
    return it->second;
  }

  std::mutex mu_;
  std::map<std::string, bool> winograd_;
  std::map<std::string, ImplNames> impls_;
};

ConvAlgoCache& conv_algo_cache() {
  static ConvAlgoCache cache;
  return cache;
}

class ConvLayer final : public WeightedLayer {
 public:
  explicit ConvLayer(const CpuLayerArgs& args) : WeightedLayer(args) {
    const ConvParams& c = desc_.conv;
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
    // Pinned, each pass runs oneDNN's first implementation, so that two machines compare like with like.
    ImplNames impls;
    if (be_.conv_algo() == CpuConvAlgo::Fastest) {
      impls = conv_algo_cache().impls(problem_key(), [&] { return fastest_impls(wdims); });
    }
    ConvPds direct = make_pds(dnnl::algorithm::convolution_direct, src, dst, wdims, true, impls);
    // The limit held at the timing batch; a scratchpad that grows with the batch may pass it at the real one.
    if (over_limit(direct.fwd, impls.fwd) | over_limit(direct.bwd_data, impls.bwd_data) |
        over_limit(direct.bwd_w, impls.bwd_w)) {
      direct = make_pds(dnnl::algorithm::convolution_direct, src, dst, wdims, true, impls);
    }

    ConvPds wino;
    bool use_wino = false;
    if (winograd_shape() && be_.conv_algo() != CpuConvAlgo::Direct) {
      const memory::desc src_any(src.dims(), src.data_type(), Tag::any), dst_any(dst.dims(), dst.data_type(), Tag::any);
      // oneDNN has no Winograd for some shapes and ISAs; that is an answer (direct it is), not a failure.
      try {
        wino = make_pds(dnnl::algorithm::convolution_winograd, src_any, dst_any, wdims, false);
        use_wino = be_.conv_algo() == CpuConvAlgo::Winograd ||
                   (fits_scratch_limit(scratch_bytes(wino)) &&
                    conv_algo_cache().winograd(problem_key(), [&] { return winograd_is_faster(wdims, impls); }));
      } catch (const dnnl::error& e) {
        // Pinned, it must run what was asked for or say so (cpu_has_winograd tells callers beforehand).
        if (be_.conv_algo() == CpuConvAlgo::Winograd)
          throw Error(where() + "oneDNN has no Winograd convolution for input " + x.str() + ": " + e.what());
        use_wino = false;
      }
    }
    const ConvPds& p = use_wino ? wino : direct;
    build(p.fwd, p.bwd_data, p.bwd_w, canonical, p.fwd.src_desc(), p.fwd.dst_desc(), c.bias ? o : 0);
    if (use_wino) stage_activations(src, dst);
    be_.count_conv_algorithm(kCpuConvAlgoNames.name(use_wino ? CpuConvAlgo::Winograd : CpuConvAlgo::Direct));
  }

  void forward(const std::vector<Tensor>& in, const Tensor& out, bool training) override {
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

  // The operation descriptors of the three passes. oneDNN's implementation iterator points at its descriptor, so
  // one must outlive every next_impl() on a primitive descriptor made from it; the backward ones take the
  // forward's primitive descriptor, whose formats they follow, as their hint.
  struct ConvDescs {
    dnnl::algorithm algo;
    memory::desc w_any, dw_any, bias_md;
    memory::dims strides, pad;
    Fwd::desc fwd;
    BwdData::desc bwd_data(const Fwd::primitive_desc& hint) const {
      return BwdData::desc(algo, hint.src_desc(), w_any, hint.dst_desc(), strides, pad, pad);
    }
    BwdW::desc bwd_w(const Fwd::primitive_desc& hint) const {
      return BwdW::desc(algo, hint.src_desc(), dw_any, bias_md, hint.dst_desc(), strides, pad, pad);
    }
  };

  ConvDescs conv_descs(dnnl::algorithm algo, const memory::desc& src, const memory::desc& dst,
                       const memory::dims& wdims) const {
    const ConvParams& c = desc_.conv;
    const DT adt = to_dnnl(dt_);
    const memory::desc w_any(wdims, adt, Tag::any), dw_any(wdims, DT::f32, Tag::any);
    const memory::desc bias_md = c.bias ? memory::desc({c.out_channels}, DT::f32, Tag::a) : memory::desc();
    const memory::dims strides{c.stride_h, c.stride_w}, pad{c.pad_h, c.pad_w};
    // oneDNN floors the output size like torch, so symmetric padding describes the same convolution.
    return ConvDescs{algo,    w_any, dw_any, bias_md, strides, pad,
                     Fwd::desc(dnnl::prop_kind::forward_training, algo, src, w_any, bias_md, dst, strides, pad, pad)};
  }

  // The primitive descriptor of d at the implementation called name (oneDNN's first when name is empty or not
  // offered).
  template <typename Pd, typename Desc, typename... Hint>
  Pd pick(const Desc& d, const std::string& name, const Hint&... hint) const {
    Pd pd(d, attr(), be_.engine(), hint...);
    if (!advance_to(pd, name)) pd = Pd(d, attr(), be_.engine(), hint...);
    return pd;
  }

  ConvPds make_pds(dnnl::algorithm algo, const memory::desc& src, const memory::desc& dst, const memory::dims& wdims,
                   bool checked, const ImplNames& impls = {}) {
    auto create = [&] {
      const ConvDescs d = conv_descs(algo, src, dst, wdims);
      ConvPds p;
      p.fwd = pick<Fwd::primitive_desc>(d.fwd, impls.fwd);
      const BwdData::desc bd = d.bwd_data(p.fwd);
      p.bwd_data = pick<BwdData::primitive_desc>(bd, impls.bwd_data, p.fwd);
      const BwdW::desc bw = d.bwd_w(p.fwd);
      p.bwd_w = pick<BwdW::primitive_desc>(bw, impls.bwd_w, p.fwd);
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
           std::to_string(c.kw) + "|s" + std::to_string(c.stride_h) + "x" + std::to_string(c.stride_w) + "|g" +
           std::to_string(c.groups) + "|p" + std::to_string(c.pad_h) + "x" + std::to_string(c.pad_w) + "|" +
           dtype_name(dt_) + "|t" + std::to_string(omp_get_max_threads()) +
           (opt_.backward ? "|bwd" : "") + (opt_.input_grad ? "|dx" : "");
  }

  // Whether a pass on a timed implementation needs more scratchpad than kScratchLimit; forgets the choice if so.
  template <typename Pd>
  static bool over_limit(const Pd& pd, std::string& impl) {
    if (impl.empty() || fits_scratch_limit(pd.scratchpad_desc().get_size())) return false;
    impl.clear();
    return true;
  }

  // Direct as well when timing fails (the direct primitives were created already, so they can run).
  bool winograd_is_faster(const memory::dims& wdims, const ImplNames& impls) {
    try {
      return time_both(wdims, impls);
    } catch (const std::exception&) {
      return false;
    }
  }

  bool time_both(const memory::dims& wdims, const ImplNames& impls) {
    const Shape x = with_batch(in_shapes_[0], kTimingBatch), y = with_batch(out_shape_, kTimingBatch);
    const memory::desc xd = act_desc(x, dt_), yd = act_desc(y, dt_);
    const memory::desc x_any(xd.dims(), xd.data_type(), Tag::any), y_any(yd.dims(), yd.data_type(), Tag::any);
    const ConvPds wino = make_pds(dnnl::algorithm::convolution_winograd, x_any, y_any, wdims, false);
    const ConvPds direct = make_pds(dnnl::algorithm::convolution_direct, xd, yd, wdims, true, impls);
    const StepTime w = time_ms(wino, true, x, y), d = time_ms(direct, false, x, y);
    return choose_winograd({d.ms, w.ms - w.reorder_ms, w.reorder_ms, scratch_bytes(wino)});
  }

  // oneDNN's first implementation of each pass unless timing finds another kSwitchMargin faster; oneDNN's first
  // for all when timing fails.
  ImplNames fastest_impls(const memory::dims& wdims) {
    try {
      return time_impls(wdims);
    } catch (const std::exception&) {
      return {};
    }
  }

  // Each pass on its own, every implementation worth timing whose scratchpad fits kScratchLimit, at the timing
  // batch, on zeroed memory outside the backend's allocator (as time_ms).
  ImplNames time_impls(const memory::dims& wdims) {
    const Shape xs = with_batch(in_shapes_[0], kTimingBatch), ys = with_batch(out_shape_, kTimingBatch);
    const ConvDescs d = conv_descs(dnnl::algorithm::convolution_direct, act_desc(xs, dt_), act_desc(ys, dt_), wdims);
    TimingMemory mem(be_.engine());
    dnnl::memory x = mem.get(act_desc(xs, dt_)), y = mem.get(act_desc(ys, dt_));
    const bool has_bias = desc_.conv.bias;
    dnnl::memory b = has_bias ? mem.get(memory::desc({desc_.conv.out_channels}, DT::f32, Tag::a)) : dnnl::memory();
    ImplNames names;
    names.fwd = fastest<Fwd::primitive_desc>(d.fwd, [&](const Fwd::primitive_desc& pd, TimingMemory& m) {
      Args a{{DNNL_ARG_SRC, x}, {DNNL_ARG_WEIGHTS, m.get(pd.weights_desc())}, {DNNL_ARG_DST, y},
             {DNNL_ARG_SCRATCHPAD, m.scratch(pd.scratchpad_desc().get_size())}};
      if (has_bias) a.emplace(DNNL_ARG_BIAS, b);
      return a;
    });
    if (!opt_.backward) return names;
    const Fwd::primitive_desc hint = pick<Fwd::primitive_desc>(d.fwd, names.fwd);
    if (opt_.input_grad) {
      const BwdData::desc bd = d.bwd_data(hint);
      names.bwd_data = fastest<BwdData::primitive_desc>(
          bd,
          [&](const BwdData::primitive_desc& pd, TimingMemory& m) {
            return Args{{DNNL_ARG_DIFF_DST, y}, {DNNL_ARG_WEIGHTS, m.get(pd.weights_desc())}, {DNNL_ARG_DIFF_SRC, x},
                        {DNNL_ARG_SCRATCHPAD, m.scratch(pd.scratchpad_desc().get_size())}};
          },
          hint);
    }
    const BwdW::desc bw = d.bwd_w(hint);
    names.bwd_w = fastest<BwdW::primitive_desc>(
        bw,
        [&](const BwdW::primitive_desc& pd, TimingMemory& m) {
          Args a{{DNNL_ARG_SRC, x}, {DNNL_ARG_DIFF_DST, y}, {DNNL_ARG_DIFF_WEIGHTS, m.get(pd.diff_weights_desc())},
                 {DNNL_ARG_SCRATCHPAD, m.scratch(pd.scratchpad_desc().get_size())}};
          if (has_bias) a.emplace(DNNL_ARG_DIFF_BIAS, b);
          return a;
        },
        hint);
    return names;
  }

  // Times the implementations oneDNN offers for d that are worth it (worth_timing) and returns the one the pass
  // runs (choose_impl: empty for oneDNN's first).
  template <typename Pd, typename Desc, typename ArgsFor, typename... Hint>
  std::string fastest(const Desc& d, ArgsFor args_for, const Hint&... hint) {
    Pd pd(d, attr(), be_.engine(), hint...);
    std::vector<ImplCandidate> offered;
    do {
      ImplCandidate c{pd.impl_info_str(), pd.scratchpad_desc().get_size(), std::nullopt};
      if (worth_timing(offered, c)) {
        try {
          dnnl::primitive prim;
          MG_CHECK_DNNL(prim = dnnl::primitive(pd));
          TimingMemory m(be_.engine());  // this candidate's weights and scratchpad, gone before the next one's
          c.ms = time_exec(prim, args_for(pd, m));
        } catch (const std::exception&) {
          if (offered.empty()) return std::string();  // nothing to hold the others against
        }
      }
      offered.push_back(std::move(c));
    } while (pd.next_impl());
    return choose_impl(offered);
  }

  // Milliseconds of a run and of the reorders within it.
  struct StepTime {
    double ms = 1e300, reorder_ms = 0;
  };

  static double ms_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }

  // The best of two runs of pass after a warm-up (the first run pays page faults and cold caches); pass returns
  // the milliseconds of reorders it ran.
  template <typename Pass>
  StepTime best_ms(Pass pass) {
    StepTime best;
    for (int r = 0; r < 3; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      const double reorder_ms = pass();
      MG_CHECK_DNNL(be_.dnnl_stream().wait());
      const double ms = ms_since(t0);
      if (r > 0 && ms < best.ms) best = {ms, reorder_ms};
    }
    return best;
  }

  double time_exec(dnnl::primitive& prim, const Args& a) {
    return best_ms([&] {
             MG_CHECK_DNNL(prim.execute(be_.dnnl_stream(), a));
             return 0.0;
           }).ms;
  }

  // Milliseconds of one step's worth of the layer's passes with pds (best_ms), with the
  // activation reorders a blocked variant adds (also on their own); on zeroed memory outside the backend's allocator (TimingMemory),
  // so that creating a layer leaves no trace in the backend's peak.
  // The values do not matter to the time, so each tensor and its gradient share storage.
  StepTime time_ms(const ConvPds& p, bool blocked, const Shape& x_shape, const Shape& y_shape) {
    const memory::desc x_md = act_desc(x_shape, dt_), y_md = act_desc(y_shape, dt_);
    TimingMemory mem(be_.engine());
    dnnl::memory x = mem.get(x_md), y = mem.get(y_md), &dx = x, &dy = y;
    dnnl::memory xb = mem.get(p.fwd.src_desc()), yb = mem.get(p.fwd.dst_desc()), &dxb = xb, &dyb = yb;
    dnnl::memory w = mem.get(p.fwd.weights_desc()), wd = mem.get(p.bwd_data.weights_desc()),
                 dw = mem.get(p.bwd_w.diff_weights_desc());
    dnnl::memory sp = mem.scratch(scratch_bytes(p));
    const bool has_bias = desc_.conv.bias;
    const memory::desc bias_md({desc_.conv.out_channels}, DT::f32, Tag::a);
    dnnl::memory b = has_bias ? mem.get(bias_md) : dnnl::memory(), db = has_bias ? mem.get(bias_md) : dnnl::memory();
    dnnl::primitive f, bd, bw, r_x, r_y, r_dy, r_dx;
    MG_CHECK_DNNL(f = dnnl::primitive(p.fwd));
    MG_CHECK_DNNL(bd = dnnl::primitive(p.bwd_data));
    MG_CHECK_DNNL(bw = dnnl::primitive(p.bwd_w));
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
    double reorder_ms = 0;
    auto reorder = [&](dnnl::primitive& r, dnnl::memory& from, dnnl::memory& to) {
      const auto t0 = std::chrono::steady_clock::now();
      MG_CHECK_DNNL(r.execute(st, {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}}));
      MG_CHECK_DNNL(st.wait());
      reorder_ms += ms_since(t0);
    };
    dnnl::memory& xs = blocked ? xb : x;
    dnnl::memory& ys = blocked ? yb : y;
    dnnl::memory& dys = blocked ? dyb : dy;
    dnnl::memory& dxs = blocked ? dxb : dx;
    auto step = [&] {
      if (blocked) reorder(r_x, x, xb);
      Args fa{{DNNL_ARG_SRC, xs}, {DNNL_ARG_WEIGHTS, w}, {DNNL_ARG_DST, ys}};
      if (has_bias) fa.emplace(DNNL_ARG_BIAS, b);
      exec(f, fa);
      if (blocked) reorder(r_y, yb, y);
      if (!opt_.backward) return;
      if (blocked) reorder(r_dy, dy, dyb);
      if (opt_.input_grad) {
        exec(bd, {{DNNL_ARG_DIFF_DST, dys}, {DNNL_ARG_WEIGHTS, wd}, {DNNL_ARG_DIFF_SRC, dxs}});
        if (blocked) reorder(r_dx, dxb, dx);
      }
      if (blocked) reorder(r_x, x, xb);
      Args wa{{DNNL_ARG_SRC, xs}, {DNNL_ARG_DIFF_DST, dys}, {DNNL_ARG_DIFF_WEIGHTS, dw}};
      if (has_bias) wa.emplace(DNNL_ARG_DIFF_BIAS, db);
      exec(bw, wa);
    };
    return best_ms([&] {
      reorder_ms = 0;
      step();
      return reorder_ms;
    });
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
    return primitive_of<dnnl::reorder>(pd);
  }

  void reorder(dnnl::reorder& r, dnnl::memory& from_m, const void* from, dnnl::memory& to_m, void* to) {
    set(from_m, from);
    set(to_m, to);
    run(r, {{DNNL_ARG_FROM, from_m}, {DNNL_ARG_TO, to_m}});
  }

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
