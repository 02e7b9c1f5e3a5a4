#include "backend/cpu/cpu_backend.h"

#include <omp.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>
#include <unordered_map>

#include <fmt/format.h>

#include "backend/cpu/fma_peak.h"
#include "core/counter_rng.h"
#include "core/error.h"
#include "core/host_info.h"
#include "core/half.h"
#include "core/omp_team.h"

namespace mg {

namespace {


float load(const Tensor& t, int64_t i) {
  switch (t.dtype) {
    case DType::F32: return t.as<float>()[i];
    case DType::BF16: return bf16_to_float(t.as<uint16_t>()[i]);
    case DType::F16: return fp16_to_float(t.as<uint16_t>()[i]);
    case DType::I32: return static_cast<float>(t.as<int32_t>()[i]);
  }
  return 0;
}

void store(const Tensor& t, int64_t i, float v) {
  switch (t.dtype) {
    case DType::F32: t.as<float>()[i] = v; break;
    case DType::BF16: t.as<uint16_t>()[i] = float_to_bf16(v); break;
    case DType::F16: t.as<uint16_t>()[i] = float_to_fp16(v); break;
    case DType::I32: t.as<int32_t>()[i] = static_cast<int32_t>(v); break;
  }
}


}  // namespace

bool cpu_has_bf16() {
  return dnnl::get_effective_cpu_isa() >= dnnl::cpu_isa::avx512_core_bf16;
}

CpuBackend::CpuBackend(int ordinal, const BackendOptions& opt)
    : ordinal_(ordinal),
      threads_(opt.threads > 0 ? opt.threads : cpu_core_count()),
      conv_algo_(opt.cpu_conv_algo),
      engine_(dnnl::engine::kind::cpu, 0),
      stream_(engine_),
      copy_(std::make_unique<WorkerStream>("copy")),
      comm_(std::make_unique<WorkerStream>("comm")) {}

CpuBackend::~CpuBackend() {
  device_free(scratch_.p);
  device_free(staging_.p);
}

void* CpuBackend::shared(Shared& s) {
  if (s.bytes < s.need) {
    device_free(s.p);
    s.p = nullptr;
    s.p = device_alloc(s.need);
    s.bytes = s.need;
  }
  return s.p;
}

DeviceInfo CpuBackend::info() const {
  DeviceInfo d;
  d.name = cpu_model_name() + " (" + std::to_string(threads_) + " threads)";
  d.ordinal = ordinal_;
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  d.memory_bytes = pages > 0 && page > 0 ? static_cast<size_t>(pages) * static_cast<size_t>(page) : 0;
  return d;
}

std::string CpuBackend::unsupported_reason(Precision p) const {
  switch (p) {
    case Precision::FP32: return "";
    case Precision::BF16: return cpu_has_bf16() ? "" : "bf16 needs a CPU with AVX-512 BF16, which this one lacks; use fp32";
    case Precision::TF32:
    case Precision::FP16: break;
  }
  return std::string(precision_name(p)) + " needs a GPU (a tensor-core format); on --device cpu use fp32 or bf16";
}

void CpuBackend::attach_thread() { omp_set_num_threads(omp_team(threads_)); }

CpuEvent& CpuBackend::own(Event& e, const char* what) {
  auto* ev = dynamic_cast<CpuEvent*>(&e);
  MG_ENSURE(ev != nullptr, std::string(what) + ": not a CPU event");
  if (ev->owner() != this) {
    throw Error(std::string(what) + ": event of device cpu:" + std::to_string(ev->device()) +
                " used on device cpu:" + std::to_string(ordinal_) +
                " (CUDA refuses this with cudaErrorInvalidResourceHandle)");
  }
  return *ev;
}

CpuEvent& CpuBackend::recorded(Event& e, const char* what) {
  CpuEvent& ev = own(e, what);
  if (!ev.recorded()) {
    throw Error(std::string(what) + " on an event that was never recorded (CUDA: cudaErrorInvalidResourceHandle "
                "for elapsed time; a wait on it would order nothing)");
  }
  return ev;
}

void* CpuBackend::device_alloc(size_t bytes) {
  const size_t rounded = std::max<size_t>(64, (bytes + 63) / 64 * 64);
  // A training step streams gigabytes of activations through its layers; on 4 KiB pages a pass over a tensor
  // misses the TLB every 4 KiB. Buffers of a huge page or more start on a huge-page boundary and are offered to
  // transparent huge pages (advice only: without THP, or with THP off, they are ordinary memory).
  constexpr size_t kHugePage = size_t{2} << 20;
  void* p = nullptr;
  if (rounded >= kHugePage) {
    if (posix_memalign(&p, kHugePage, rounded) != 0) p = nullptr;
    if (p) (void)madvise(p, rounded / kHugePage * kHugePage, MADV_HUGEPAGE);
  } else {
    p = std::aligned_alloc(64, rounded);
  }
  if (!p) {
    throw OutOfMemory("out of memory allocating " + std::to_string(bytes) + " bytes (peak so far " +
                std::to_string(peak_.load()) + " bytes)");
  }
  std::lock_guard<std::mutex> lk(mem_mu_);
  sizes_[p] = rounded;
  size_t cur = current_.fetch_add(rounded) + rounded;
  size_t pk = peak_.load();
  while (cur > pk && !peak_.compare_exchange_weak(pk, cur)) {
  }
  return p;
}

void CpuBackend::device_free(void* p) {
  if (!p) return;
  size_t bytes = 0;
  {
    std::lock_guard<std::mutex> lk(mem_mu_);
    auto it = sizes_.find(p);
    MG_ENSURE(it != sizes_.end(), "device_free of a pointer this backend did not allocate");
    bytes = it->second;
    current_ -= bytes;
    sizes_.erase(it);
  }
  // A copy still queued on a worker stream would read or write freed memory (on a GPU: silent corruption or
  // an illegal address much later). The error is kept for the stream's next synchronize, as CUDA keeps a
  // sticky error; the memory is released only after the copy ran so the process itself stays sound.
  const auto lo = reinterpret_cast<uintptr_t>(p), hi = lo + bytes;
  std::unique_lock<std::mutex> lk(use_mu_);
  auto overlapping = [&]() -> const InFlight* {
    for (const auto& kv : in_flight_)
      if (kv.second.begin < hi && lo < kv.second.end) return &kv.second;
    return nullptr;
  };
  if (const InFlight* u = overlapping()) {
    u->stream->fail(std::make_exception_ptr(Error(
        "device memory (" + std::to_string(bytes) + " bytes) freed while a copy on the " + u->stream_name +
        " stream still used it: synchronise that stream (or wait on an event after the copy) before freeing")));
    use_cv_.wait(lk, [&] { return overlapping() == nullptr; });
  }
  lk.unlock();
  std::free(p);
}

PeakRate CpuBackend::peak_flops(Precision p) {
  if (p != Precision::FP32) return {0, std::string("no measured ") + precision_name(p) + " peak on a CPU"};
  // Once per thread count and process: the cores do not change, and a sweep asks for every entry.
  static std::mutex mu;
  static std::map<int, FmaPeak> measured;
  std::lock_guard<std::mutex> lk(mu);
  auto it = measured.find(threads_);
  if (it == measured.end()) it = measured.emplace(threads_, measure_fma_peak(threads_)).first;
  const FmaPeak& f = it->second;
  return {f.flops_per_s, fmt::format("measured fp32 FMA peak ({}, {} thread{}): {:.0f} GFLOP/s", f.isa, f.threads,
                                     f.threads == 1 ? "" : "s", f.flops_per_s / 1e9)};
}

size_t CpuBackend::device_memory_in_use() {
  // The process's resident high-water mark: on a CPU "device memory" is host memory shared by every replica
  // of the process, so this is the whole process, not this replica.
  std::FILE* f = std::fopen("/proc/self/status", "r");
  if (!f) return 0;
  char line[256];
  size_t kib = 0;
  while (std::fgets(line, sizeof(line), f)) {
    if (std::strncmp(line, "VmHWM:", 6) == 0) {
      kib = std::strtoull(line + 6, nullptr, 10);
      break;
    }
  }
  std::fclose(f);
  return kib * 1024;
}

void* CpuBackend::host_alloc_pinned(size_t bytes) {
  void* p = std::aligned_alloc(64, std::max<size_t>(64, (bytes + 63) / 64 * 64));
  if (!p) throw Error("out of host memory allocating " + std::to_string(bytes) + " bytes for staging");
  return p;
}

void CpuBackend::host_free_pinned(void* p) { std::free(p); }

WorkerStream* CpuBackend::worker(StreamKind s) {
  switch (s) {
    case StreamKind::Compute: return nullptr;
    case StreamKind::Copy: return copy_.get();
    case StreamKind::Comm: return comm_.get();
  }
  return nullptr;
}

void CpuBackend::run_on(StreamKind s, std::function<void()> fn) {
  if (auto* w = worker(s)) {
    w->enqueue(std::move(fn));
  } else {
    fn();
  }
}

void CpuBackend::copy(void* dst, const void* src, size_t bytes, StreamKind s) {
  WorkerStream* w = worker(s);
  if (!w) {
    std::memcpy(dst, src, bytes);
    return;
  }
  uint64_t id_dst = 0, id_src = 0;
  {
    std::lock_guard<std::mutex> lk(use_mu_);
    const char* name = s == StreamKind::Copy ? "copy" : "comm";
    const auto d = reinterpret_cast<uintptr_t>(dst), r = reinterpret_cast<uintptr_t>(src);
    id_dst = ++next_use_;
    in_flight_[id_dst] = InFlight{d, d + bytes, w, name};
    id_src = ++next_use_;
    in_flight_[id_src] = InFlight{r, r + bytes, w, name};
  }
  w->enqueue([=] {
    std::memcpy(dst, src, bytes);
    {
      std::lock_guard<std::mutex> lk(use_mu_);
      in_flight_.erase(id_dst);
      in_flight_.erase(id_src);
    }
    use_cv_.notify_all();
  });
}

void CpuBackend::copy_h2d(void* dst, const void* src, size_t bytes, StreamKind s) { copy(dst, src, bytes, s); }
void CpuBackend::copy_d2h(void* dst, const void* src, size_t bytes, StreamKind s) { copy(dst, src, bytes, s); }
void CpuBackend::copy_d2d(void* dst, const void* src, size_t bytes, StreamKind s) { copy(dst, src, bytes, s); }

std::unique_ptr<Event> CpuBackend::create_event() { return std::make_unique<CpuEvent>(this, ordinal_); }

void CpuBackend::record(Event& e, StreamKind s) {
  CpuEvent& ev = own(e, "record");
  WorkerStream* w = worker(s);
  ev.stream = w;
  if (!w) {
    ev.complete(std::chrono::steady_clock::now());
    return;
  }
  ev.reset();
  w->enqueue([&ev] { ev.complete(std::chrono::steady_clock::now()); });
}

void CpuBackend::stream_wait(StreamKind s, Event& e) {
  CpuEvent& ev = recorded(e, "stream_wait");
  if (WorkerStream* w = worker(s)) {
    w->enqueue([&ev] { ev.wait(); });
  } else {
    synchronize(e);
  }
}

void CpuBackend::synchronize(Event& e) {
  CpuEvent& ev = recorded(e, "synchronize");
  ev.wait();
  if (ev.stream) ev.stream->rethrow_if_failed();
}

void CpuBackend::synchronize(StreamKind s) {
  if (WorkerStream* w = worker(s)) w->synchronize();
}

bool CpuBackend::query(Event& e) { return own(e, "query").done(); }

double CpuBackend::elapsed_seconds(Event& start, Event& end) {
  CpuEvent& a = recorded(start, "elapsed_seconds");
  CpuEvent& b = recorded(end, "elapsed_seconds");
  synchronize(a);
  synchronize(b);
  return std::chrono::duration<double>(b.time() - a.time()).count();
}

void CpuBackend::host_fn(StreamKind s, std::function<void()> fn) { run_on(s, std::move(fn)); }

std::unique_ptr<LayerOp> CpuBackend::create_layer(const LayerDesc& desc, const std::vector<Shape>& in_shapes,
                                                  const LayerOptions& opt) {
  return create_cpu_layer(*this, desc, in_shapes, opt);
}

void CpuBackend::fill(const Tensor& t, float value) {
  const int64_t n = t.numel();
  if (t.dtype == DType::F32) {
    std::fill_n(t.as<float>(), n, value);
    return;
  }
#pragma omp parallel for
  for (int64_t i = 0; i < n; ++i) store(t, i, value);
}

void CpuBackend::fill_uniform(const Tensor& t, float lo, float hi, uint64_t seed) {
  const int64_t n = t.numel();
  if (t.dtype == DType::I32) {  // integer range [lo, hi)
#pragma omp parallel for
    for (int64_t i = 0; i < n; ++i) {
      t.as<int32_t>()[i] = static_cast<int32_t>(lo) +
                           static_cast<int32_t>(counter_uniform(seed, i) * static_cast<float>(hi - lo));
    }
    return;
  }
#pragma omp parallel for
  for (int64_t i = 0; i < n; ++i) store(t, i, lo + (hi - lo) * counter_uniform(seed, i));
}

void CpuBackend::add_inplace(const Tensor& dst, const Tensor& src) {
  MG_ENSURE(dst.numel() == src.numel() && dst.dtype == src.dtype, "add_inplace: mismatched tensors");
  const int64_t n = dst.numel();
  if (dst.dtype == DType::F32) {
    float* d = dst.as<float>();
    const float* s = src.as<float>();
#pragma omp parallel for simd
    for (int64_t i = 0; i < n; ++i) d[i] += s[i];
    return;
  }
#pragma omp parallel for
  for (int64_t i = 0; i < n; ++i) store(dst, i, load(dst, i) + load(src, i));
}

void CpuBackend::scale(const Tensor& t, float alpha) {
  const int64_t n = t.numel();
  if (t.dtype == DType::F32) {
    float* d = t.as<float>();
#pragma omp parallel for simd
    for (int64_t i = 0; i < n; ++i) d[i] *= alpha;
    return;
  }
#pragma omp parallel for
  for (int64_t i = 0; i < n; ++i) store(t, i, load(t, i) * alpha);
}

namespace {

// d[i] = f(s[i]) with the types fixed, so the loop vectorises (a per-element dtype switch does not): the
// gradients' casts to and from a 16-bit wire run every step.
template <typename Out, typename In, typename F>
void convert(const Tensor& dst, const Tensor& src, F f) {
  Out* __restrict d = dst.as<Out>();
  const In* __restrict s = src.as<In>();
  const int64_t n = dst.numel();
#pragma omp parallel for simd
  for (int64_t i = 0; i < n; ++i) d[i] = f(s[i]);
}

}  // namespace

void CpuBackend::cast(const Tensor& dst, const Tensor& src) {
  MG_ENSURE(dst.numel() == src.numel(), "cast: mismatched sizes");
  const int64_t n = dst.numel();
  if (dst.dtype == src.dtype) {
    std::memcpy(dst.data, src.data, dst.bytes());
    return;
  }
  const DType a = dst.dtype, b = src.dtype;
  using u16 = uint16_t;
  if (a == DType::BF16 && b == DType::F32)
    return convert<u16, float>(dst, src, [](float v) { return float_to_bf16(v); });
  if (a == DType::F32 && b == DType::BF16)
    return convert<float, u16>(dst, src, [](u16 v) { return bf16_to_float(v); });
  if (a == DType::F16 && b == DType::F32)
    return convert<u16, float>(dst, src, [](float v) { return float_to_fp16(v); });
  if (a == DType::F32 && b == DType::F16)
    return convert<float, u16>(dst, src, [](u16 v) { return fp16_to_float(v); });
#pragma omp parallel for
  for (int64_t i = 0; i < n; ++i) store(dst, i, load(src, i));
}

// fp32 logits with a gradient: oneDNN's log-softmax (vector code, where the loop below calls scalar exp) writes
// each row's log-probabilities into dlogits, so loss_i = -logp[y] exactly; then exp in place gives p, and
// (p - onehot) * grad_scale / n the gradient. The labels are checked.
void CpuBackend::softmax_xent_f32(const Tensor& logits, const Tensor& labels, const Tensor& loss,
                                  const Tensor& dlogits, float grad_scale) {
  const int64_t n = logits.shape.n();
  const int64_t k = logits.numel() / n;
  const dnnl::memory::desc md({n, k}, dnnl::memory::data_type::f32, dnnl::memory::format_tag::ab);
  dnnl::primitive_attr attr;
  MG_CHECK_DNNL(attr.set_scratchpad_mode(dnnl::scratchpad_mode::user));
  dnnl::logsoftmax_forward::primitive_desc lsm_pd;
  dnnl::eltwise_forward::primitive_desc exp_pd;
  MG_CHECK_DNNL(lsm_pd = dnnl::logsoftmax_forward::primitive_desc(
                    dnnl::logsoftmax_forward::desc(dnnl::prop_kind::forward_inference, md, 1), attr, engine_));
  MG_CHECK_DNNL(exp_pd = dnnl::eltwise_forward::primitive_desc(
                    dnnl::eltwise_forward::desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::eltwise_exp, md,
                                                0.f, 0.f),
                    attr, engine_));
  const size_t scratch = std::max(lsm_pd.scratchpad_desc().get_size(), exp_pd.scratchpad_desc().get_size());
  reserve_scratchpad(scratch);
  dnnl::memory x, d;
  MG_CHECK_DNNL(x = dnnl::memory(md, engine_, logits.data));
  MG_CHECK_DNNL(d = dnnl::memory(md, engine_, dlogits.data));
  auto run = [&](const auto& pd, dnnl::memory& src) {
    dnnl::primitive p;
    MG_CHECK_DNNL(p = dnnl::primitive(pd));
    std::unordered_map<int, dnnl::memory> args{{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, d}};
    if (pd.scratchpad_desc().get_size()) {
      dnnl::memory pad;
      MG_CHECK_DNNL(pad = dnnl::memory(pd.scratchpad_desc(), engine_, scratchpad()));
      args.emplace(DNNL_ARG_SCRATCHPAD, pad);
    }
    MG_CHECK_DNNL(p.execute(stream_, args));
    MG_CHECK_DNNL(stream_.wait());
  };
  run(lsm_pd, x);
  const int32_t* y = labels.as<int32_t>();
  float* g = dlogits.as<float>();
  double total = 0;
  for (int64_t i = 0; i < n; ++i) total -= g[i * k + y[i]];
  run(exp_pd, d);
  const float s = grad_scale / static_cast<float>(n);
  const int64_t all = n * k;
#pragma omp parallel for simd
  for (int64_t j = 0; j < all; ++j) g[j] *= s;
  for (int64_t i = 0; i < n; ++i) g[i * k + y[i]] -= s;
  loss.as<float>()[0] = static_cast<float>(total / static_cast<double>(n));
}

void CpuBackend::softmax_xent(const Tensor& logits, const Tensor& labels, const Tensor& loss,
                              const Tensor& dlogits, float grad_scale) {
  const int64_t n = logits.shape.n();
  const int64_t k = logits.numel() / n;
  const int32_t* y = labels.as<int32_t>();
  MG_ENSURE(std::all_of(y, y + n, [k](int32_t v) { return v >= 0 && v < k; }), "label outside [0, num_classes)");
  if (logits.dtype == DType::F32 && dlogits.data && dlogits.dtype == DType::F32) {
    softmax_xent_f32(logits, labels, loss, dlogits, grad_scale);
    return;
  }
  double total = 0;
#pragma omp parallel for reduction(+ : total)
  for (int64_t i = 0; i < n; ++i) {
    const int64_t base = i * k;
    float mx = -INFINITY;
    for (int64_t j = 0; j < k; ++j) mx = std::max(mx, load(logits, base + j));
    double sum = 0;
    for (int64_t j = 0; j < k; ++j) sum += std::exp(static_cast<double>(load(logits, base + j) - mx));
    const double logz = std::log(sum) + mx;
    total += logz - load(logits, base + y[i]);
    if (dlogits.data) {
      for (int64_t j = 0; j < k; ++j) {
        double p = std::exp(static_cast<double>(load(logits, base + j)) - logz);
        double g = (p - (j == y[i] ? 1.0 : 0.0)) / static_cast<double>(n) * grad_scale;
        store(dlogits, base + j, static_cast<float>(g));
      }
    }
  }
  loss.as<float>()[0] = static_cast<float>(total / static_cast<double>(n));
}

void CpuBackend::sgd_update(float* p, const float* g, float* v, size_t n, float lr, float momentum,
                            float weight_decay, float grad_scale) {
  const int64_t m = static_cast<int64_t>(n);
#pragma omp parallel for simd
  for (int64_t i = 0; i < m; ++i) {
    const float gi = g[i] * grad_scale + weight_decay * p[i];
    v[i] = momentum * v[i] + gi;
    p[i] -= lr * v[i];
  }
}

int64_t CpuBackend::count_nonfinite(const Tensor& t) {
  const int64_t n = t.numel();
  int64_t bad = 0;
#pragma omp parallel for reduction(+ : bad)
  for (int64_t i = 0; i < n; ++i) bad += std::isfinite(load(t, i)) ? 0 : 1;
  return bad;
}

}  // namespace mg
