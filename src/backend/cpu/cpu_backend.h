// CpuBackend: one CPU replica. Layers run through oneDNN (cpu_layers*.cpp) on this replica's share of the
// cores; memory is ordinary aligned host memory, counted so peak memory is reported like device memory.
#pragma once
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>

#include <oneapi/dnnl/dnnl.hpp>

#include "backend/backend.h"
#include "backend/conv_algorithm_tally.h"
#include "backend/cpu/cpu_stream.h"

namespace mg {

class CpuBackend final : public Backend {
 public:
  CpuBackend(int ordinal, const BackendOptions& opt);
  ~CpuBackend() override;

  DeviceKind kind() const override { return DeviceKind::Cpu; }
  DeviceInfo info() const override;
  std::string unsupported_reason(Precision p) const override;
  void attach_thread() override;
  int threads() const { return threads_; }
  CpuConvAlgo conv_algo() const { return conv_algo_; }

  void* device_alloc(size_t bytes) override;
  void device_free(void* p) override;
  void* host_alloc_pinned(size_t bytes) override;
  void host_free_pinned(void* p) override;
  size_t peak_memory_bytes() const override { return peak_.load(); }
  void reset_peak_memory() override { peak_.store(current_.load()); }
  size_t device_memory_in_use() override;
  PeakRate peak_flops(Precision p) override;

  void copy_h2d(void* dst, const void* src, size_t bytes, StreamKind s) override;
  void copy_d2h(void* dst, const void* src, size_t bytes, StreamKind s) override;
  void copy_d2d(void* dst, const void* src, size_t bytes, StreamKind s) override;
  std::unique_ptr<Event> create_event() override;
  void record(Event& e, StreamKind s) override;
  void stream_wait(StreamKind s, Event& e) override;
  void synchronize(Event& e) override;
  void synchronize(StreamKind s) override;
  bool query(Event& e) override;
  double elapsed_seconds(Event& start, Event& end) override;
  void host_fn(StreamKind s, std::function<void()> fn) override;
  void* native_stream(StreamKind) override { return nullptr; }

  bool fuses_relu(LayerKind k) const override { return k == LayerKind::BatchNorm || k == LayerKind::Add; }
  // fp32 batch norm is mgbench's own loop (bn_kernels.h), which adds the residual as it writes; bf16 is oneDNN's.
  bool fuses_add(LayerKind k, Precision p) const override {
    return k == LayerKind::BatchNorm && activation_dtype(p) == DType::F32;
  }
  std::unique_ptr<LayerOp> create_layer(const LayerDesc& desc, const std::vector<Shape>& in_shapes,
                                        const LayerOptions& opt) override;
  std::map<std::string, int> conv_algorithm_counts() const override { return conv_algorithms_.counts(); }
  // A convolution layer tells which algorithm it runs, once, when built.
  void count_conv_algorithm(const std::string& name) { conv_algorithms_.count(name); }

  void fill(const Tensor& t, float value) override;
  void fill_uniform(const Tensor& t, float lo, float hi, uint64_t seed) override;
  void add_inplace(const Tensor& dst, const Tensor& src) override;
  void scale(const Tensor& t, float alpha) override;
  void cast(const Tensor& dst, const Tensor& src) override;
  void softmax_xent(const Tensor& logits, const Tensor& labels, const Tensor& loss, const Tensor& dlogits,
                    float grad_scale) override;
  void sgd_update(float* params, const float* grads, float* momentum_buf, size_t n, float lr, float momentum,
                  float weight_decay, float grad_scale) override;
  void adamw_update(float* params, const float* grads, float* m, float* v, size_t n, int64_t step, float lr,
                    float beta1, float beta2, float eps, float weight_decay, float grad_scale) override;  // cpu_adamw.cpp
  int64_t count_nonfinite(const Tensor& t) override;

  // For the oneDNN layer implementations.
  dnnl::engine& engine() { return engine_; }
  dnnl::stream& dnnl_stream() { return stream_; }
  // One oneDNN scratchpad for all of this replica's layers: they run one at a time on the Compute stream, so
  // none needs its own. Layers declare their need when built and fetch the address at every call (it moves
  // when a layer built later needs more).
  void reserve_scratchpad(size_t bytes) { scratch_.need = std::max(scratch_.need, bytes); }
  void* scratchpad() { return shared(scratch_); }
  // Likewise one staging area for what a layer needs only inside one call besides the scratchpad (weights
  // reordered for a forward whose backward-data does not reuse them or for backward-data, weight gradients in
  // the primitive's format).
  void reserve_staging(size_t bytes) { staging_.need = std::max(staging_.need, bytes); }
  void* staging() { return shared(staging_); }

 private:
  void softmax_xent_f32(const Tensor& logits, const Tensor& labels, const Tensor& loss, const Tensor& dlogits,
                        float grad_scale);
  WorkerStream* worker(StreamKind s);  // nullptr for the inline Compute stream
  void run_on(StreamKind s, std::function<void()> fn);
  void copy(void* dst, const void* src, size_t bytes, StreamKind s);
  // The event as this backend's, or an Error naming the misuse (another device's event; never recorded).
  CpuEvent& own(Event& e, const char* what);
  CpuEvent& recorded(Event& e, const char* what);

  int ordinal_;
  int threads_;
  CpuConvAlgo conv_algo_;
  dnnl::engine engine_;
  dnnl::stream stream_;
  std::unique_ptr<WorkerStream> copy_, comm_;
  ConvAlgorithmTally conv_algorithms_;
  std::mutex mem_mu_;
  std::unordered_map<void*, size_t> sizes_;
  std::atomic<size_t> current_{0}, peak_{0};
  // Address ranges read or written by copies still queued on a worker stream, so device_free can tell when a
  // buffer is released under pending work.
  struct InFlight {
    uintptr_t begin, end;
    WorkerStream* stream;
    const char* stream_name;
  };
  std::mutex use_mu_;
  std::condition_variable use_cv_;
  std::unordered_map<uint64_t, InFlight> in_flight_;
  uint64_t next_use_ = 0;
  struct Shared {
    size_t need = 0, bytes = 0;
    void* p = nullptr;
  };
  void* shared(Shared& s);  // (re)allocated to the need on first use after it grew
  Shared scratch_, staging_;
};

// Defined with the oneDNN layers (cpu_layers*.cpp).
std::unique_ptr<LayerOp> create_cpu_layer(CpuBackend& be, const LayerDesc& desc,
                                          const std::vector<Shape>& in_shapes, const LayerOptions& opt);
// Whether this processor runs bf16 natively (AVX-512 BF16 / AMX), as oneDNN sees it.
bool cpu_has_bf16();

}  // namespace mg
