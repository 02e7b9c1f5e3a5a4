#include "backend/cuda/cuda_backend.h"


#include <algorithm>
#include <cstdio>

#include "backend/adam_bias_correction.h"
#include "backend/cuda/cuda_check.h"
#include "backend/gpu_probe.h"
#include "backend/loaded_libraries.h"
#include "core/error.h"
#include "kernels/cuda/kernels.cuh"

namespace mg {

namespace {

class CudaEvent final : public Event {
 public:
  explicit CudaEvent(int device) {
    MG_CHECK_CUDA(cudaSetDevice(device));
    MG_CHECK_CUDA(cudaEventCreate(&ev_));
  }
  ~CudaEvent() override {
    if (ev_) cudaEventDestroy(ev_);  // destructor: nothing useful to do with a failure here
  }
  cudaEvent_t get() const { return ev_; }

 private:
  cudaEvent_t ev_ = nullptr;
};

cudaEvent_t as_cuda(Event& e) { return static_cast<CudaEvent&>(e).get(); }

std::string version3(int major, int minor, int patch) {
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

// CUDA encodes versions as 1000*major + 10*minor.
std::string cuda_version_string(int v) { return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10); }

void host_fn_trampoline(void* arg) {
  auto* fn = static_cast<std::function<void()>*>(arg);
  (*fn)();
  delete fn;
}

}  // namespace

cudnnDataType_t cudnn_dtype(DType dt) {
  switch (dt) {
    case DType::F32: return CUDNN_DATA_FLOAT;
    case DType::F16: return CUDNN_DATA_HALF;
    case DType::BF16: return CUDNN_DATA_BFLOAT16;
    case DType::I32: return CUDNN_DATA_INT32;
  }
  throw Error("cudnn_dtype: unknown element type");
}

cudaDataType_t cuda_dtype(DType dt) {
  switch (dt) {
    case DType::F32: return CUDA_R_32F;
    case DType::F16: return CUDA_R_16F;
    case DType::BF16: return CUDA_R_16BF;
    case DType::I32: return CUDA_R_32I;
  }
  throw Error("cuda_dtype: unknown element type");
}

CudaBackend::CudaBackend(int ordinal, const BackendOptions&) : ordinal_(ordinal) {
  // A throwing constructor runs no destructor: what was created so far is released here.
  try {
    init();
  } catch (...) {
    release();
    throw;
  }
}

void CudaBackend::init() {
  MG_CHECK_CUDA(cudaSetDevice(ordinal_));
  MG_CHECK_CUDA(cudaGetDeviceProperties(&prop_, ordinal_));
  sm_ = prop_.major * 10 + prop_.minor;
  // Gradient all-reduce gets the highest priority so bucket collectives are not starved by backward kernels
  // (the overlap the data-parallel engine measures depends on it).
  int least = 0, greatest = 0;
  MG_CHECK_CUDA(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  MG_CHECK_CUDA(cudaStreamCreateWithPriority(&streams_[0], cudaStreamNonBlocking, least));
  MG_CHECK_CUDA(cudaStreamCreateWithPriority(&streams_[1], cudaStreamNonBlocking, least));
  MG_CHECK_CUDA(cudaStreamCreateWithPriority(&streams_[2], cudaStreamNonBlocking, greatest));
  // cuBLAS first: cuDNN then finds cuBLASLt already loaded, as when it was linked, whatever its own search finds.
  const cuda::CublasLibrary& blas = cuda::cublas_library();
  MG_CHECK_CUDNN(cudnnCreate(&cudnn_));
  MG_CHECK_CUDNN(cudnnSetStream(cudnn_, compute()));
  MG_CHECK_CUBLAS(blas.create(&cublas_));
  MG_CHECK_CUBLAS(blas.set_stream(cublas_, compute()));
  MG_CHECK_CUBLAS(blas.set_pointer_mode(cublas_, CUBLAS_POINTER_MODE_HOST));
  counter_dev_ = static_cast<unsigned long long*>(device_alloc(sizeof(unsigned long long)));
  MG_CHECK_CUDA(cudaMallocHost(reinterpret_cast<void**>(&counter_host_), sizeof(unsigned long long)));
}

CudaBackend::~CudaBackend() { release(); }

void CudaBackend::release() noexcept {
  // Teardown must not throw; a failure here has nowhere better to report to.
  if (cudaSetDevice(ordinal_) != cudaSuccess) return;
  for (cudaStream_t s : streams_)
    if (s) (void)cudaStreamSynchronize(s);
  if (cublas_) (void)cuda::cublas_library().destroy(cublas_);
  if (cudnn_) (void)cudnnDestroy(cudnn_);
  cublas_ = nullptr;
  cudnn_ = nullptr;
  if (counter_host_) (void)cudaFreeHost(counter_host_);
  counter_host_ = nullptr;
  for (auto& kv : sizes_) (void)cudaFree(kv.first);
  sizes_.clear();
  for (cudaStream_t& s : streams_) {
    if (s) (void)cudaStreamDestroy(s);
    s = nullptr;
  }
  (void)cudaGetLastError();
}

DeviceInfo CudaBackend::info() const {
  DeviceInfo d;
  d.name = prop_.name;
  d.memory_bytes = prop_.totalGlobalMem;
  d.ordinal = ordinal_;
  char bus[32] = {0};
  if (cudaDeviceGetPCIBusId(bus, sizeof(bus), ordinal_) == cudaSuccess) d.pci_bus_id = bus;
  return d;
}

std::string CudaBackend::unsupported_reason(Precision p) const {
  int need = 0;
  switch (p) {
    case Precision::FP32: break;
    case Precision::FP16: need = 70; break;  // tensor cores from Volta
    case Precision::TF32:                    // TF32 and bf16 arrived with Ampere
    case Precision::BF16: need = 80; break;
  }
  if (sm_ >= need) return "";
  return std::string(precision_name(p)) + " needs sm_" + std::to_string(need) + " or newer (this GPU is sm_" +
         std::to_string(sm_) + ")";
}

void CudaBackend::attach_thread() { MG_CHECK_CUDA(cudaSetDevice(ordinal_)); }

void* CudaBackend::device_alloc(size_t bytes) {
  MG_CHECK_CUDA(cudaSetDevice(ordinal_));
  void* p = nullptr;
  const size_t n = std::max<size_t>(bytes, 1);
  const cudaError_t e = cudaMalloc(&p, n);
  if (e == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();  // clear it so later calls do not report this failure again
    throw OutOfMemory("GPU " + std::to_string(ordinal_) + " out of memory allocating " + std::to_string(bytes) +
                " bytes (" + std::to_string(current_.load()) + " bytes in use, peak " +
                std::to_string(peak_.load()) + " bytes)");
  }
  MG_CHECK_CUDA(e);
  std::lock_guard<std::mutex> lk(mem_mu_);
  sizes_[p] = n;
  const size_t cur = current_.fetch_add(n) + n;
  size_t pk = peak_.load();
  while (cur > pk && !peak_.compare_exchange_weak(pk, cur)) {
  }
  return p;
}

void CudaBackend::device_free(void* p) {
  if (!p) return;
  {
    std::lock_guard<std::mutex> lk(mem_mu_);
    auto it = sizes_.find(p);
    MG_ENSURE(it != sizes_.end(), "device_free of a pointer this backend did not allocate");
    current_ -= it->second;
    sizes_.erase(it);
  }
  MG_CHECK_CUDA(cudaSetDevice(ordinal_));
  MG_CHECK_CUDA(cudaFree(p));
}

PeakRate CudaBackend::peak_flops(Precision p) { return published_gpu_peak(info().name, p); }

size_t CudaBackend::device_memory_in_use() {
  size_t free_b = 0, total_b = 0;
  MG_CHECK_CUDA(cudaSetDevice(ordinal_));
  MG_CHECK_CUDA(cudaMemGetInfo(&free_b, &total_b));
  return total_b >= free_b ? total_b - free_b : 0;
}

void* CudaBackend::host_alloc_pinned(size_t bytes) {
  void* p = nullptr;
  const cudaError_t e = cudaMallocHost(&p, std::max<size_t>(bytes, 1));
  if (e == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();
    throw Error("out of pinned host memory allocating " + std::to_string(bytes) + " bytes for staging");
  }
  MG_CHECK_CUDA(e);
  return p;
}

void CudaBackend::host_free_pinned(void* p) {
  if (p) MG_CHECK_CUDA(cudaFreeHost(p));
}

void CudaBackend::copy_h2d(void* dst, const void* src, size_t bytes, StreamKind s) {
  MG_CHECK_CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stream(s)));
}
void CudaBackend::copy_d2h(void* dst, const void* src, size_t bytes, StreamKind s) {
  MG_CHECK_CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, stream(s)));
}
void CudaBackend::copy_d2d(void* dst, const void* src, size_t bytes, StreamKind s) {
  MG_CHECK_CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream(s)));
}

std::unique_ptr<Event> CudaBackend::create_event() { return std::make_unique<CudaEvent>(ordinal_); }

void CudaBackend::record(Event& e, StreamKind s) { MG_CHECK_CUDA(cudaEventRecord(as_cuda(e), stream(s))); }

void CudaBackend::stream_wait(StreamKind s, Event& e) {
  MG_CHECK_CUDA(cudaStreamWaitEvent(stream(s), as_cuda(e), 0));
}

void CudaBackend::synchronize(Event& e) {
  MG_CHECK_CUDA(cudaEventSynchronize(as_cuda(e)));
  rethrow_host_fn_error();
}

void CudaBackend::synchronize(StreamKind s) {
  MG_CHECK_CUDA(cudaStreamSynchronize(stream(s)));
  rethrow_host_fn_error();
}

bool CudaBackend::query(Event& e) {
  const cudaError_t r = cudaEventQuery(as_cuda(e));
  if (r == cudaErrorNotReady) return false;
  MG_CHECK_CUDA(r);
  return true;
}

double CudaBackend::elapsed_seconds(Event& start, Event& end) {
  // Like the CPU backend, wait for both rather than fail with cudaErrorNotReady.
  MG_CHECK_CUDA(cudaEventSynchronize(as_cuda(start)));
  MG_CHECK_CUDA(cudaEventSynchronize(as_cuda(end)));
  float ms = 0;
  MG_CHECK_CUDA(cudaEventElapsedTime(&ms, as_cuda(start), as_cuda(end)));
  return static_cast<double>(ms) * 1e-3;
}

// The callback runs on a CUDA driver thread that cannot propagate exceptions: a failure is kept and rethrown
// by the next synchronize() on this backend.
void CudaBackend::host_fn(StreamKind s, std::function<void()> fn) {
  auto* wrapped = new std::function<void()>([this, fn = std::move(fn)] {
    try {
      fn();
    } catch (const std::exception& e) {
      std::lock_guard<std::mutex> lk(host_fn_mu_);
      if (host_fn_error_.empty()) host_fn_error_ = e.what();
    }
  });
  const cudaError_t r = cudaLaunchHostFunc(stream(s), host_fn_trampoline, wrapped);
  if (r != cudaSuccess) delete wrapped;
  MG_CHECK_CUDA(r);
}

void CudaBackend::rethrow_host_fn_error() {
  std::lock_guard<std::mutex> lk(host_fn_mu_);
  if (!host_fn_error_.empty()) {
    std::string msg = std::move(host_fn_error_);
    host_fn_error_.clear();
    throw Error(msg);
  }
}

void CudaBackend::reserve_workspace(size_t bytes) {
  if (bytes <= workspace_bytes_) return;
  // Layers are created before any step runs, but earlier layers may already have queued work (find runs).
  regrow(workspace_, workspace_bytes_, bytes);
}

void CudaBackend::regrow(void*& p, size_t& have, size_t bytes) {
  MG_CHECK_CUDA(cudaStreamSynchronize(compute()));
  device_free(p);
  p = nullptr;
  have = 0;
  p = device_alloc(bytes);
  have = bytes;
}

size_t CudaBackend::workspace_limit() {
  if (workspace_limit_ == 0) {
    size_t free_b = 0, total_b = 0;
    MG_CHECK_CUDA(cudaSetDevice(ordinal_));
    MG_CHECK_CUDA(cudaMemGetInfo(&free_b, &total_b));
    // A quarter of what is free, capped at 4 GiB: at 1 GiB, ResNet-50 fp32 at batch 256 on an H200 lost the fast
    // backward-data algorithm (1.23 GB) of two 1x1 convolutions on 56x56 and ran one 20-40x slower instead.
    workspace_limit_ = std::min<size_t>(free_b / 4, size_t{4} << 30);
  }
  return workspace_limit_;
}

void* CudaBackend::scratch(size_t bytes) {
  if (bytes > scratch_bytes_) regrow(scratch_, scratch_bytes_, bytes);
  return scratch_;
}

std::unique_ptr<LayerOp> CudaBackend::create_layer(const LayerDesc& desc, const std::vector<Shape>& in_shapes,
                                                   const LayerOptions& opt) {
  attach_thread();
  return create_cuda_layer(*this, desc, in_shapes, opt);
}

void CudaBackend::fill(const Tensor& t, float value) {
  kernels::fill(t.data, t.dtype, t.numel(), value, compute());
}

void CudaBackend::fill_uniform(const Tensor& t, float lo, float hi, uint64_t seed) {
  kernels::fill_uniform(t.data, t.dtype, t.numel(), lo, hi, seed, compute());
}

void CudaBackend::add_inplace(const Tensor& dst, const Tensor& src) {
  MG_ENSURE(dst.numel() == src.numel() && dst.dtype == src.dtype, "add_inplace: mismatched tensors");
  kernels::add_inplace(dst.data, src.data, dst.dtype, dst.numel(), compute());
}

void CudaBackend::scale(const Tensor& t, float alpha) {
  kernels::scale(t.data, t.dtype, t.numel(), alpha, compute());
}

void CudaBackend::cast(const Tensor& dst, const Tensor& src) {
  MG_ENSURE(dst.numel() == src.numel(), "cast: mismatched sizes");
  kernels::cast(dst.data, dst.dtype, src.data, src.dtype, dst.numel(), compute());
}

void CudaBackend::softmax_xent(const Tensor& logits, const Tensor& labels, const Tensor& loss,
                               const Tensor& dlogits, float grad_scale) {
  const int64_t n = logits.shape.n();
  MG_ENSURE(n > 0 && labels.dtype == DType::I32 && labels.numel() == n, "softmax_xent: labels must be I32 {N}");
  MG_ENSURE(loss.dtype == DType::F32, "softmax_xent: loss must be fp32");
  MG_ENSURE(!dlogits.data || (dlogits.dtype == logits.dtype && dlogits.numel() == logits.numel()),
            "softmax_xent: dlogits must match logits");
  const int64_t k = logits.numel() / n;
  float* row_loss = static_cast<float*>(scratch(static_cast<size_t>(n) * sizeof(float)));
  kernels::softmax_xent(logits.data, logits.dtype, labels.as<int32_t>(), n, k, row_loss, loss.as<float>(),
                        dlogits.data, grad_scale, compute());
}

void CudaBackend::sgd_update(float* params, const float* grads, float* momentum_buf, size_t n, float lr,
                             float momentum, float weight_decay, float grad_scale) {
  kernels::sgd_update(params, grads, momentum_buf, static_cast<int64_t>(n), lr, momentum, weight_decay, grad_scale,
                      compute());
}

void CudaBackend::adamw_update(float* params, const float* grads, float* m, float* v, size_t n, int64_t step, float lr,
                               float beta1, float beta2, float eps, float weight_decay, float grad_scale) {
  const AdamBiasCorrection c = adam_bias_correction(beta1, beta2, step);
  kernels::adamw_update(params, grads, m, v, static_cast<int64_t>(n), lr, beta1, beta2, eps, weight_decay, c.c1, c.c2,
                        grad_scale, compute());
}

int64_t CudaBackend::count_nonfinite(const Tensor& t) {
  MG_CHECK_CUDA(cudaMemsetAsync(counter_dev_, 0, sizeof(unsigned long long), compute()));
  kernels::count_nonfinite(t.data, t.dtype, t.numel(), counter_dev_, compute());
  MG_CHECK_CUDA(cudaMemcpyAsync(counter_host_, counter_dev_, sizeof(unsigned long long), cudaMemcpyDeviceToHost,
                                compute()));
  MG_CHECK_CUDA(cudaStreamSynchronize(compute()));
  return static_cast<int64_t>(*counter_host_);
}

// ---- the entry points src/backend/backend.cpp declares under MG_HAVE_CUDA

std::unique_ptr<Backend> make_cuda_backend(int ordinal, const BackendOptions& opt) {
  return std::make_unique<CudaBackend>(ordinal, opt);
}

void cuda_runtime_facts(GpuFacts& facts) {
  facts.runtime_version = cuda_version_string(CUDART_VERSION);
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    // Kept, not mapped to "no GPU": with a GPU visible to the kernel it is the cause a user needs (gpu_probe.h).
    facts.runtime_error = std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e);
    (void)cudaGetLastError();
    return;
  }
  facts.runtime_count = n;
}

namespace {

// cudnnGetVersion: major*10000 + minor*100 + patch since cuDNN 9, major*1000 + minor*100 + patch before.
std::string cudnn_version_string(int v) {
  const int major_unit = v >= 90000 ? 10000 : 1000;
  return version3(v / major_unit, (v % major_unit) / 100, v % 100);
}

// What the open cuBLAS reports; "" when this process has not opened it (a CPU run) or it cannot say.
std::string loaded_cublas_version() {
  const cuda::CublasLibrary* l = cuda::cublas_library_if_open();
  int maj = 0, min = 0, pat = 0;
  if (!l || l->get_property(MAJOR_VERSION, &maj) != CUBLAS_STATUS_SUCCESS ||
      l->get_property(MINOR_VERSION, &min) != CUBLAS_STATUS_SUCCESS ||
      l->get_property(PATCH_LEVEL, &pat) != CUBLAS_STATUS_SUCCESS)
    return "";
  return version3(maj, min, pat);
}

// cublasLtGetVersion: major*10000 + minor*100 + patch, as CUBLAS_VERSION; "" when not opened.
std::string loaded_cublaslt_version() {
  const cuda::CublasLibrary* l = cuda::cublas_library_if_open();
  if (!l) return "";
  const size_t v = l->lt_version();
  return version3(static_cast<int>(v / 10000), static_cast<int>((v % 10000) / 100), static_cast<int>(v % 100));
}

std::string loaded_cudart_version() {
  int v = 0;
  const bool ok = cudaRuntimeGetVersion(&v) == cudaSuccess;
  (void)cudaGetLastError();
  return ok ? cuda_version_string(v) : "";
}

}  // namespace

void cuda_loaded_libraries(std::map<std::string, LoadedLibrary>& out) {
  out["cudart"] = {loaded_file_of(reinterpret_cast<const void*>(&cudaRuntimeGetVersion)), loaded_cudart_version()};
  if (const cuda::CublasLibrary* l = cuda::cublas_library_if_open()) {
    out["cublas"] = {loaded_file_of(reinterpret_cast<const void*>(l->get_property)), loaded_cublas_version()};
    out["cublaslt"] = {loaded_file_of(reinterpret_cast<const void*>(l->lt_version)), loaded_cublaslt_version()};
  }
  out["cudnn"] = {loaded_file_of(reinterpret_cast<const void*>(&cudnnGetVersion)),
                  cudnn_version_string(static_cast<int>(cudnnGetVersion()))};
}

std::string open_cuda_libraries() {
  try {
    (void)cuda::cublas_library();
    return "";
  } catch (const Error& e) {
    return e.what();
  }
}

// "<lib>_headers": what the binary was compiled against; "<lib>": what the loaded library reports.
std::vector<std::pair<std::string, std::string>> cuda_library_versions() {
  std::vector<std::pair<std::string, std::string>> v;
  v.emplace_back("cuda_headers", cuda_version_string(CUDART_VERSION));
  v.emplace_back("cudnn_headers", version3(CUDNN_MAJOR, CUDNN_MINOR, CUDNN_PATCHLEVEL));
  v.emplace_back("cublas_headers", version3(CUBLAS_VER_MAJOR, CUBLAS_VER_MINOR, CUBLAS_VER_PATCH));
  const std::string rt = loaded_cudart_version();
  if (!rt.empty()) v.emplace_back("cuda_runtime", rt);
  int drv = 0;
  if (cudaDriverGetVersion(&drv) == cudaSuccess && drv > 0) v.emplace_back("cuda_driver", cuda_version_string(drv));
  (void)cudaGetLastError();
  v.emplace_back("cudnn", cudnn_version_string(static_cast<int>(cudnnGetVersion())));
  for (const auto& [key, value] : {std::pair<const char*, std::string>{"cublas", loaded_cublas_version()},
                                   {"cublaslt", loaded_cublaslt_version()}})
    if (!value.empty()) v.emplace_back(key, value);
  return v;
}

}  // namespace mg
