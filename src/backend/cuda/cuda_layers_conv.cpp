// 2-D convolution through cuDNN's convolution API on NHWC tensors, filters in the canonical {O, KH, KW, I/g}
// layout (cuDNN's NHWC "KRSC" filter format, so the fp32 master weights need no reordering).
//
// Algorithms are chosen once, at construction, for the passes that will run, with cudnnFind*AlgorithmEx (each
// candidate is run and timed, like torch.backends.cudnn.benchmark) on scratch tensors, within a workspace
// limit, falling back to the cudnnGet*Algorithm_v7 heuristics; identical problems share the result through
// the backend's cache, and the chosen algorithms' workspace is reserved then, so nothing in a timed step
// allocates or searches.
//
// Math: fp32 -> CUDNN_FMA_MATH (cuDNN's default would silently allow TF32); tf32 -> CUDNN_DEFAULT_MATH with
// fp32 tensors; fp16/bf16 -> tensor-op math with half tensors and fp32 accumulation. For half precision the
// fp32 master weight is cast into a half copy each forward and the half weight gradient is accumulated into
// the fp32 gradient.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "backend/cuda/conv_pick.h"
#include "backend/cuda/cuda_layers.h"
#include "kernels/cuda/kernels.cuh"

namespace mg::cuda {

namespace {

// Device memory for the algorithm search only: not counted by the backend, freed when the search ends.
class SearchMem {
 public:
  explicit SearchMem(size_t bytes) {
    if (bytes) MG_CHECK_CUDA(cudaMalloc(&p_, bytes));
  }
  ~SearchMem() {
    if (p_) cudaFree(p_);
  }
  SearchMem(const SearchMem&) = delete;
  SearchMem& operator=(const SearchMem&) = delete;
  void* get() const { return p_; }

 private:
  void* p_ = nullptr;
};

// Owned by a member so they are released even when the constructor throws (no algorithm, bad shape).
struct Descriptors {
  cudnnTensorDescriptor_t x = nullptr, y = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  Descriptors() = default;
  Descriptors(const Descriptors&) = delete;
  Descriptors& operator=(const Descriptors&) = delete;
  ~Descriptors() {
    if (conv) cudnnDestroyConvolutionDescriptor(conv);
    if (w) cudnnDestroyFilterDescriptor(w);
    if (y) cudnnDestroyTensorDescriptor(y);
    if (x) cudnnDestroyTensorDescriptor(x);
  }
};

template <typename Perf>
std::vector<ConvCandidate> candidates(const Perf* perf, int n) {
  std::vector<ConvCandidate> c;
  for (int i = 0; i < n; ++i) {
    const cudnnMathType_t m = perf[i].mathType;
    const ConvMath math = m == CUDNN_FMA_MATH       ? ConvMath::Fma
                          : m == CUDNN_DEFAULT_MATH ? ConvMath::Default
                                                    : ConvMath::TensorOp;
    c.push_back({static_cast<int>(perf[i].algo), perf[i].status == CUDNN_STATUS_SUCCESS, math, perf[i].memory,
                 perf[i].time});
  }
  return c;
}

const char* algo_name(cudnnConvolutionFwdAlgo_t a) {
  switch (a) {
    case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM: return "implicit_gemm";
    case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM: return "implicit_precomp_gemm";
    case CUDNN_CONVOLUTION_FWD_ALGO_GEMM: return "gemm";
    case CUDNN_CONVOLUTION_FWD_ALGO_DIRECT: return "direct";
    case CUDNN_CONVOLUTION_FWD_ALGO_FFT: return "fft";
    case CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING: return "fft_tiling";
    case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD: return "winograd";
    case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED: return "winograd_nonfused";
    default: return "unknown";
  }
}
const char* algo_name(cudnnConvolutionBwdDataAlgo_t a) {
  switch (a) {
    case CUDNN_CONVOLUTION_BWD_DATA_ALGO_0: return "algo_0";
    case CUDNN_CONVOLUTION_BWD_DATA_ALGO_1: return "algo_1";
    case CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT: return "fft";
    case CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT_TILING: return "fft_tiling";
    case CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD: return "winograd";
    case CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED: return "winograd_nonfused";
    default: return "unknown";
  }
}
const char* algo_name(cudnnConvolutionBwdFilterAlgo_t a) {
  switch (a) {
    case CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0: return "algo_0";
    case CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1: return "algo_1";
    case CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT: return "fft";
    case CUDNN_CONVOLUTION_BWD_FILTER_ALGO_3: return "algo_3";
    case CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD: return "winograd";
    case CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED: return "winograd_nonfused";
    case CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT_TILING: return "fft_tiling";
    default: return "unknown";
  }
}

const char* math_name(cudnnMathType_t m) {
  switch (m) {
    case CUDNN_DEFAULT_MATH: return "default";
    case CUDNN_TENSOR_OP_MATH: return "tensor_op";
    case CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION: return "tensor_op_conv";
    case CUDNN_FMA_MATH: return "fma";
    default: return "unknown";
  }
}

// "algo_1 fma 1.234 ms 0 B: usable, algo_1 default 0.500 ms 0 B: timed with TF32, ..." for messages.
template <typename Perf>
std::string describe(const char* source, cudnnStatus_t call, const Perf* perf, int n, bool strict, size_t limit) {
  std::string d = std::string(source) + " returned " + cudnnGetErrorString(call);
  if (call != CUDNN_STATUS_SUCCESS) return d;
  d += n == 0 ? " with no candidates" : ":";
  const std::vector<ConvCandidate> c = candidates(perf, n);
  for (int i = 0; i < n; ++i) {
    char t[32];
    std::snprintf(t, sizeof(t), "%.3f ms", static_cast<double>(perf[i].time));
    const ConvReject r = conv_reject(c, static_cast<size_t>(i), strict, limit);
    d += std::string(i ? "," : "") + " " + algo_name(perf[i].algo) + " " + math_name(perf[i].mathType) + " " + t +
         " " + std::to_string(perf[i].memory) + " B: " +
         (r == ConvReject::Failed ? cudnnGetErrorString(perf[i].status) : conv_reject_name(r));
  }
  return d;
}

// A direction's choice, where it came from and every result cuDNN gave, for the diagnostic.
template <typename Perf>
struct Chosen {
  Perf perf;
  const char* source;
  std::string results;
};

// One direction's choice: cudnnFind*AlgorithmEx (runs and times each candidate), and when that yields nothing
// usable (every candidate failed, none fits the workspace, or Find itself failed) the cudnnGet*Algorithm_v7
// heuristics, which need no memory. find/heur fill (perf, n) and return the call's status.
template <typename Perf, typename Find, typename Heur>
Chosen<Perf> choose(const std::string& what, bool strict, size_t limit, Find find, Heur heur) {
  std::vector<Perf> perf(64);
  int n = 0;
  const cudnnStatus_t fs = find(perf.data(), static_cast<int>(perf.size()), &n);
  const int fn = fs == CUDNN_STATUS_SUCCESS ? n : 0;
  const std::string found = describe("cudnnFind*AlgorithmEx", fs, perf.data(), fn, strict, limit);
  const int fi = pick_conv_candidate(candidates(perf.data(), fn), strict, limit);
  if (fi >= 0) return {perf[static_cast<size_t>(fi)], "find", found};
  std::vector<Perf> hp(64);
  int hn = 0;
  const cudnnStatus_t hs = heur(hp.data(), static_cast<int>(hp.size()), &hn);
  const int hn_ok = hs == CUDNN_STATUS_SUCCESS ? hn : 0;
  const std::string heuristics = describe("cudnnGet*Algorithm_v7", hs, hp.data(), hn_ok, strict, limit);
  const int hi = pick_conv_candidate(candidates(hp.data(), hn_ok), strict, limit);
  if (hi >= 0) return {hp[static_cast<size_t>(hi)], "heuristic", found + "; " + heuristics};
  throw Error(what + ": no usable algorithm within a " + std::to_string(limit) + " B workspace" +
              (strict ? " without tensor-op math" : "") + "; " + found + "; " + heuristics);
}

// MGBENCH_CONV_ALGOS=1: each search's choice and cuDNN's results on stderr, to see why a pass is slow.
bool conv_diagnostic() {
  static const bool on = [] {
    const char* v = std::getenv("MGBENCH_CONV_ALGOS");
    return v && *v && std::string(v) != "0";
  }();
  return on;
}

// Where a search runs: the scratch tensors and the search workspace.
struct SearchArea {
  void *x, *y, *w, *dw;
  void* ws;
  size_t ws_bytes;
};

// One pass's cuDNN entry points, keyed by its algorithm type, so the search is written once for all three.
template <typename Algo>
struct ConvPass;
template <>
struct ConvPass<cudnnConvolutionFwdAlgo_t> {
  using Perf = cudnnConvolutionFwdAlgoPerf_t;
  static constexpr const char* name = "forward";
  static constexpr const char* tag = "fwd";
  static cudnnStatus_t find(cudnnHandle_t h, const Descriptors& d, const SearchArea& a, int cap, int* n, Perf* p) {
    return cudnnFindConvolutionForwardAlgorithmEx(h, d.x, a.x, d.w, a.w, d.conv, d.y, a.y, cap, n, p, a.ws,
                                                  a.ws_bytes);
  }
  static cudnnStatus_t heuristic(cudnnHandle_t h, const Descriptors& d, int cap, int* n, Perf* p) {
    return cudnnGetConvolutionForwardAlgorithm_v7(h, d.x, d.w, d.conv, d.y, cap, n, p);
  }
  static cudnnStatus_t workspace(cudnnHandle_t h, const Descriptors& d, cudnnConvolutionFwdAlgo_t algo, size_t* s) {
    return cudnnGetConvolutionForwardWorkspaceSize(h, d.x, d.w, d.conv, d.y, algo, s);
  }
};
template <>
struct ConvPass<cudnnConvolutionBwdDataAlgo_t> {
  using Perf = cudnnConvolutionBwdDataAlgoPerf_t;
  static constexpr const char* name = "backward-data";
  static constexpr const char* tag = "dgrad";
  // dx is written into the x scratch.
  static cudnnStatus_t find(cudnnHandle_t h, const Descriptors& d, const SearchArea& a, int cap, int* n, Perf* p) {
    return cudnnFindConvolutionBackwardDataAlgorithmEx(h, d.w, a.w, d.y, a.y, d.conv, d.x, a.x, cap, n, p, a.ws,
                                                       a.ws_bytes);
  }
  static cudnnStatus_t heuristic(cudnnHandle_t h, const Descriptors& d, int cap, int* n, Perf* p) {
    return cudnnGetConvolutionBackwardDataAlgorithm_v7(h, d.w, d.y, d.conv, d.x, cap, n, p);
  }
  static cudnnStatus_t workspace(cudnnHandle_t h, const Descriptors& d, cudnnConvolutionBwdDataAlgo_t algo,
                                 size_t* s) {
    return cudnnGetConvolutionBackwardDataWorkspaceSize(h, d.w, d.y, d.conv, d.x, algo, s);
  }
};
template <>
struct ConvPass<cudnnConvolutionBwdFilterAlgo_t> {
  using Perf = cudnnConvolutionBwdFilterAlgoPerf_t;
  static constexpr const char* name = "backward-filter";
  static constexpr const char* tag = "wgrad";
  static cudnnStatus_t find(cudnnHandle_t h, const Descriptors& d, const SearchArea& a, int cap, int* n, Perf* p) {
    return cudnnFindConvolutionBackwardFilterAlgorithmEx(h, d.x, a.x, d.y, a.y, d.conv, d.w, a.dw, cap, n, p, a.ws,
                                                         a.ws_bytes);
  }
  static cudnnStatus_t heuristic(cudnnHandle_t h, const Descriptors& d, int cap, int* n, Perf* p) {
    return cudnnGetConvolutionBackwardFilterAlgorithm_v7(h, d.x, d.y, d.conv, d.w, cap, n, p);
  }
  static cudnnStatus_t workspace(cudnnHandle_t h, const Descriptors& d, cudnnConvolutionBwdFilterAlgo_t algo,
                                 size_t* s) {
    return cudnnGetConvolutionBackwardFilterWorkspaceSize(h, d.x, d.y, d.conv, d.w, algo, s);
  }
};

// Chooses one pass's algorithm and the math it runs with (fp32 forces FMA math), and returns its workspace: what
// the search measured or what cuDNN says the algorithm needs under that math type, whichever is larger (they
// can differ; too little fails at run time). Leaves the descriptor at search_math for the next pass.
template <typename Algo>
size_t choose_pass(cudnnHandle_t h, const Descriptors& d, const SearchArea& a, const std::string& who, bool strict,
                   cudnnMathType_t search_math, Algo& algo, cudnnMathType_t& math) {
  using P = ConvPass<Algo>;
  using Perf = typename P::Perf;
  const Chosen<Perf> c = choose<Perf>(
      who + " " + P::name, strict, a.ws_bytes,
      [&](Perf* p, int cap, int* n) { return P::find(h, d, a, cap, n, p); },
      [&](Perf* p, int cap, int* n) { return P::heuristic(h, d, cap, n, p); });
  const Perf& f = c.perf;
  algo = f.algo;
  math = strict ? CUDNN_FMA_MATH : f.mathType;
  size_t s = 0;
  MG_CHECK_CUDNN(cudnnSetConvolutionMathType(d.conv, math));
  MG_CHECK_CUDNN(P::workspace(h, d, algo, &s));
  MG_CHECK_CUDNN(cudnnSetConvolutionMathType(d.conv, search_math));
  if (conv_diagnostic()) {
    std::fprintf(stderr, "mgbench conv: %s %s: %s %s (%s, %.3f ms, %zu B workspace of %zu B allowed); %s\n",
                 who.c_str(), P::name, algo_name(algo), math_name(math), c.source, static_cast<double>(f.time),
                 std::max(s, f.memory), a.ws_bytes, c.results.c_str());
  }
  return std::max(s, f.memory);
}

class ConvLayer final : public CudaLayer {
 public:
  explicit ConvLayer(const CudaLayerArgs& args) : CudaLayer(args) {
    const Shape& x = in_shapes_[0];
    const ConvParams& c = desc_.conv;
    const int64_t oh = out_shape_.h(), ow = out_shape_.w();
    ig_ = x.c() / c.groups;
    wn_ = c.out_channels * c.kh * c.kw * ig_;
    if (c.bias) sums_ = Buffer(be_, 2 * static_cast<size_t>(c.out_channels) * sizeof(double));
    for (int64_t v : {x.n(), x.c(), x.h(), x.w(), c.out_channels, oh, ow}) {
      if (v > 0x7fffffff) throw UsageError(where() + "dimension too large for cuDNN");
    }

    const cudnnDataType_t t = cudnn_dtype(dt_);
    MG_CHECK_CUDNN(cudnnCreateTensorDescriptor(&d_.x));
    MG_CHECK_CUDNN(cudnnCreateTensorDescriptor(&d_.y));
    MG_CHECK_CUDNN(cudnnCreateFilterDescriptor(&d_.w));
    MG_CHECK_CUDNN(cudnnCreateConvolutionDescriptor(&d_.conv));
    MG_CHECK_CUDNN(cudnnSetTensor4dDescriptor(d_.x, CUDNN_TENSOR_NHWC, t, int(x.n()), int(x.c()), int(x.h()),
                                              int(x.w())));
    MG_CHECK_CUDNN(cudnnSetTensor4dDescriptor(d_.y, CUDNN_TENSOR_NHWC, t, int(x.n()), int(c.out_channels),
                                              int(oh), int(ow)));
    MG_CHECK_CUDNN(cudnnSetFilter4dDescriptor(d_.w, t, CUDNN_TENSOR_NHWC, int(c.out_channels), int(ig_),
                                              int(c.kh), int(c.kw)));
    MG_CHECK_CUDNN(cudnnSetConvolution2dDescriptor(d_.conv, int(c.pad_h), int(c.pad_w), int(c.stride_h),
                                                   int(c.stride_w), 1, 1, CUDNN_CROSS_CORRELATION,
                                                   CUDNN_DATA_FLOAT));
    MG_CHECK_CUDNN(cudnnSetConvolutionGroupCount(d_.conv, int(c.groups)));
    int dn = 0, dc = 0, dh = 0, dw = 0;
    MG_CHECK_CUDNN(cudnnGetConvolution2dForwardOutputDim(d_.conv, d_.x, d_.w, &dn, &dc, &dh, &dw));
    MG_ENSURE(dn == x.n() && dc == c.out_channels && dh == oh && dw == ow,
              where() + "cuDNN output shape differs from the layer's");

    if (dt_ != DType::F32) {
      w_low_ = Buffer(be_, static_cast<size_t>(wn_) * dtype_size(dt_));
      if (opt_.backward) dw_low_ = Buffer(be_, static_cast<size_t>(wn_) * dtype_size(dt_));
    }
    choose_algorithms();
  }

  void forward(const std::vector<Tensor>& in, const Tensor& out, bool) override {
    check_io(in, out);
    check_bound();
    if (dt_ != DType::F32) kernels::cast(w_low_.get(), dt_, params_[0], DType::F32, wn_, stream());
    const float one = 1.0f, zero = 0.0f;
    MG_CHECK_CUDNN(cudnnSetConvolutionMathType(d_.conv, algos_.fwd_math));
    MG_CHECK_CUDNN(cudnnConvolutionForward(be_.cudnn(), &one, d_.x, in[0].data, d_.w, weight(), d_.conv,
                                           algos_.fwd, be_.workspace(), be_.workspace_bytes(), &zero, d_.y,
                                           out.data));
    if (desc_.conv.bias) {
      kernels::add_channel_bias(out.data, out.data, params_[1], dt_, out_shape_.numel() / out_shape_.c(),
                                out_shape_.c(), stream());
    }
  }

  void backward(const std::vector<Tensor>& in, const Tensor& out, const Tensor& dout,
                const std::vector<Tensor>& din, bool accumulate) override {
    check_io(in, out);
    check_bound();
    // No algorithm was chosen for a pass the layer was told would not run.
    MG_ENSURE(opt_.backward, where() + "backward() on a layer created for forward only");
    MG_ENSURE(!din[0].data || opt_.input_grad, where() + "input gradient asked of a layer created without one");
    const float one = 1.0f, zero = 0.0f, beta_w = accumulate ? 1.0f : 0.0f;
    if (desc_.conv.bias) {
      const int64_t oc = out_shape_.c();
      kernels::channel_sums(dout.data, nullptr, nullptr, dt_, out_shape_.numel() / oc, oc, sums_.as<double>(),
                            stream());
      kernels::sums_to_grad(grads_[1], sums_.as<double>(), oc, accumulate, stream());
    }
    MG_CHECK_CUDNN(cudnnSetConvolutionMathType(d_.conv, algos_.bwd_filter_math));
    if (dt_ == DType::F32) {
      MG_CHECK_CUDNN(cudnnConvolutionBackwardFilter(be_.cudnn(), &one, d_.x, in[0].data, d_.y, dout.data,
                                                    d_.conv, algos_.bwd_filter, be_.workspace(),
                                                    be_.workspace_bytes(), &beta_w, d_.w, grads_[0]));
    } else {
      MG_CHECK_CUDNN(cudnnConvolutionBackwardFilter(be_.cudnn(), &one, d_.x, in[0].data, d_.y, dout.data,
                                                    d_.conv, algos_.bwd_filter, be_.workspace(),
                                                    be_.workspace_bytes(), &zero, d_.w, dw_low_.get()));
      kernels::accumulate_to_f32(grads_[0], dw_low_.get(), dt_, wn_, accumulate, stream());
    }
    if (din[0].data) {
      MG_CHECK_CUDNN(cudnnSetConvolutionMathType(d_.conv, algos_.bwd_data_math));
      MG_CHECK_CUDNN(cudnnConvolutionBackwardData(be_.cudnn(), &one, d_.w, weight(), d_.y, dout.data,
                                                  d_.conv, algos_.bwd_data, be_.workspace(),
                                                  be_.workspace_bytes(), &zero, d_.x, din[0].data));
    }
  }

 private:
  const void* weight() const { return dt_ == DType::F32 ? static_cast<const void*>(params_[0]) : w_low_.get(); }

  cudnnMathType_t search_math() const {
    switch (opt_.precision) {
      case Precision::FP32: return CUDNN_FMA_MATH;
      case Precision::TF32: return CUDNN_DEFAULT_MATH;
      default: return CUDNN_TENSOR_OP_MATH;
    }
  }

  std::string problem_key() const {
    const Shape& x = in_shapes_[0];
    const ConvParams& c = desc_.conv;
    char buf[256];
    std::snprintf(buf, sizeof(buf), "%lld,%lld,%lld,%lld|%lld,%lldx%lld,s%lldx%lld,p%lldx%lld,g%lld|%s",
                  (long long)x.n(), (long long)x.c(), (long long)x.h(), (long long)x.w(), (long long)c.out_channels,
                  (long long)c.kh, (long long)c.kw, (long long)c.stride_h, (long long)c.stride_w,
                  (long long)c.pad_h, (long long)c.pad_w, (long long)c.groups, precision_name(opt_.precision));
    return buf;
  }

  void choose_algorithms() {
    // Only the passes that will run: no backward under --forward-only, no backward-data when the input needs
    // no gradient (the first layer). A direction cuDNN cannot do must not fail a run that never uses it.
    const bool fwd = true, bwd_data = opt_.backward && opt_.input_grad, bwd_filter = opt_.backward;
    const std::string key = problem_key() + (bwd_filter ? "|wgrad" : "") + (bwd_data ? "|dgrad" : "");
    auto& cache = be_.conv_algo_cache();
    auto hit = cache.find(key);
    if (hit != cache.end()) {
      algos_ = hit->second;
      be_.reserve_workspace(algos_.workspace);
      count_choices(bwd_data, bwd_filter, "an earlier layer's search");
      return;
    }
    const size_t es = dtype_size(dt_);
    SearchMem x(static_cast<size_t>(in_shapes_[0].numel()) * es), y(static_cast<size_t>(out_shape_.numel()) * es),
        w(static_cast<size_t>(wn_) * es), dw(bwd_filter ? static_cast<size_t>(wn_) * es : 0);
    // Zeros, so no candidate is timed on denormals or NaNs from uninitialised memory.
    MG_CHECK_CUDA(cudaMemsetAsync(x.get(), 0, static_cast<size_t>(in_shapes_[0].numel()) * es, stream()));
    MG_CHECK_CUDA(cudaMemsetAsync(y.get(), 0, static_cast<size_t>(out_shape_.numel()) * es, stream()));
    MG_CHECK_CUDA(cudaMemsetAsync(w.get(), 0, static_cast<size_t>(wn_) * es, stream()));
    // The largest search workspace that can be had, up to the backend's limit.
    size_t ws_bytes = be_.workspace_limit();
    std::unique_ptr<SearchMem> ws;
    while (!ws) {
      void* probe = nullptr;
      const cudaError_t e = ws_bytes ? cudaMalloc(&probe, ws_bytes) : cudaSuccess;
      if (e == cudaSuccess) {
        if (probe) MG_CHECK_CUDA(cudaFree(probe));
        ws = std::make_unique<SearchMem>(ws_bytes);
      } else if (e == cudaErrorMemoryAllocation && ws_bytes > (size_t{1} << 20)) {
        (void)cudaGetLastError();
        ws_bytes /= 2;
      } else {
        MG_CHECK_CUDA(e);
      }
    }
    const bool strict = opt_.precision == Precision::FP32;
    MG_CHECK_CUDNN(cudnnSetConvolutionMathType(d_.conv, search_math()));
    const std::string who = where() + precision_name(opt_.precision) + " input " + in_shapes_[0].str() +
                            " output " + out_shape_.str() + " (" + problem_key() + ")";
    cudnnHandle_t h = be_.cudnn();
    const SearchArea area{x.get(), y.get(), w.get(), dw.get(), ws->get(), ws_bytes};
    CudaBackend::ConvAlgos a{};
    size_t need = 0;
    const cudnnMathType_t sm = search_math();
    if (fwd) need = std::max(need, choose_pass(h, d_, area, who, strict, sm, a.fwd, a.fwd_math));
    if (bwd_data) need = std::max(need, choose_pass(h, d_, area, who, strict, sm, a.bwd_data, a.bwd_data_math));
    if (bwd_filter)
      need = std::max(need, choose_pass(h, d_, area, who, strict, sm, a.bwd_filter, a.bwd_filter_math));
    a.workspace = need;
    MG_CHECK_CUDA(cudaStreamSynchronize(stream()));  // the search buffers go when this returns
    cache.emplace(key, a);
    algos_ = a;
    ws.reset();
    be_.reserve_workspace(need);
    count_choices(bwd_data, bwd_filter, "searched");
  }

  // The result's conv_algorithms: layers per pass, algorithm and math as they will run.
  void count_choices(bool bwd_data, bool bwd_filter, const char* how) {
    using Fwd = ConvPass<cudnnConvolutionFwdAlgo_t>;
    using Data = ConvPass<cudnnConvolutionBwdDataAlgo_t>;
    using Filter = ConvPass<cudnnConvolutionBwdFilterAlgo_t>;
    std::vector<std::string> names{std::string(Fwd::tag) + ":" + algo_name(algos_.fwd) + "/" +
                                   math_name(algos_.fwd_math)};
    if (bwd_data)
      names.push_back(std::string(Data::tag) + ":" + algo_name(algos_.bwd_data) + "/" +
                      math_name(algos_.bwd_data_math));
    if (bwd_filter)
      names.push_back(std::string(Filter::tag) + ":" + algo_name(algos_.bwd_filter) + "/" +
                      math_name(algos_.bwd_filter_math));
    std::string line;
    for (const std::string& n : names) {
      be_.count_conv_algorithm(n);
      line += " " + n;
    }
    if (conv_diagnostic()) {
      std::fprintf(stderr, "mgbench conv: %s%s:%s, %zu B workspace (%s)\n", where().c_str(), problem_key().c_str(),
                   line.c_str(), algos_.workspace, how);
    }
  }

  int64_t ig_ = 0, wn_ = 0;
  Descriptors d_;
  CudaBackend::ConvAlgos algos_{};
  Buffer w_low_, dw_low_, sums_;
};

}  // namespace

LayerRows<CudaBackend> conv_layers() { return {layer_row<ConvLayer, CudaBackend>(LayerKind::Conv)}; }

}  // namespace mg::cuda
