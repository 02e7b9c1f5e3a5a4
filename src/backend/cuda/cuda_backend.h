// CudaBackend: one GPU replica. Memory is cudaMalloc'd and counted (current and peak); three non-blocking
// streams (Compute, Copy, Comm) with events; cuDNN and cuBLAS handles bound to the Compute stream, and one
// convolution workspace shared by all layers of the replica (they run in order on that one stream).
#pragma once
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "backend/backend.h"
#include "backend/conv_algorithm_tally.h"

namespace mg {

class CudaBackend final : public Backend {
 public:
  CudaBackend(int ordinal, const BackendOptions& opt);
  ~CudaBackend() override;
  CudaBackend(const CudaBackend&) = delete;
  CudaBackend& operator=(const CudaBackend&) = delete;

  DeviceKind kind() const override { return DeviceKind::Cuda; }
  DeviceInfo info() const override;
  std::string unsupported_reason(Precision p) const override;
  void attach_thread() override;

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
  void* native_stream(StreamKind s) override { return stream(s); }

  bool fuses_relu(LayerKind k) const override { return k == LayerKind::BatchNorm || k == LayerKind::Add; }
  // Not yet: cuDNN offers it (cudnnBatchNormalizationForwardTrainingEx with CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION)
  // under conditions no GPU here can confirm, so the CUDA graph keeps the separate add.
  bool fuses_add(LayerKind, Precision) const override { return false; }
  std::unique_ptr<LayerOp> create_layer(const LayerDesc& desc, const std::vector<Shape>& in_shapes,
                                        const LayerOptions& opt) override;
  // Keys "fwd:implicit_precomp_gemm/fma", "dgrad:algo_1/fma", "wgrad:algo_0/fma": layers per pass's choice.
  std::map<std::string, int> conv_algorithm_counts() const override { return conv_algo_counts_.counts(); }

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
                    float beta1, float beta2, float eps, float weight_decay, float grad_scale) override;
  int64_t count_nonfinite(const Tensor& t) override;

  // ---- for the layer implementations (cuda_layer_*.cpp)
  int ordinal() const { return ordinal_; }
  int sm_version() const { return sm_; }  // major*10 + minor
  cudaStream_t stream(StreamKind s) const { return streams_[static_cast<int>(s)]; }
  cudaStream_t compute() const { return stream(StreamKind::Compute); }
  cudnnHandle_t cudnn() const { return cudnn_; }
  cublasHandle_t cublas() const { return cublas_; }
  // Shared convolution workspace: grown (never shrunk) while layers are created, read at run time.
  void reserve_workspace(size_t bytes);
  void* workspace() const { return workspace_; }
  size_t workspace_bytes() const { return workspace_bytes_; }
  // Largest workspace an algorithm may ask for, fixed from free memory when the first layer is created.
  size_t workspace_limit();
  // Convolution algorithm choices keyed by problem, so identical layers are benchmarked once.
  struct ConvAlgos {
    cudnnConvolutionFwdAlgo_t fwd;
    cudnnConvolutionBwdDataAlgo_t bwd_data;
    cudnnConvolutionBwdFilterAlgo_t bwd_filter;
    cudnnMathType_t fwd_math, bwd_data_math, bwd_filter_math;
    size_t workspace;
  };
  std::map<std::string, ConvAlgos>& conv_algo_cache() { return conv_algos_; }
  void count_conv_algorithm(const std::string& name) { conv_algo_counts_.count(name); }
  // Device scratch owned by the backend, valid until the next call on the Compute stream that asks for more.
  void* scratch(size_t bytes);

 private:
  // Replaces buffer p (of `have` bytes) by one of `bytes`, once the compute stream's queued work no longer uses it.
  void regrow(void*& p, size_t& have, size_t bytes);
  void rethrow_host_fn_error();
  void init();
  void release() noexcept;

  int ordinal_;
  int sm_ = 0;
  cudaDeviceProp prop_{};
  cudaStream_t streams_[3] = {nullptr, nullptr, nullptr};
  cudnnHandle_t cudnn_ = nullptr;
  cublasHandle_t cublas_ = nullptr;

  std::mutex mem_mu_;
  std::unordered_map<void*, size_t> sizes_;
  std::atomic<size_t> current_{0}, peak_{0};

  void* workspace_ = nullptr;
  size_t workspace_bytes_ = 0;
  size_t workspace_limit_ = 0;
  std::map<std::string, ConvAlgos> conv_algos_;
  ConvAlgorithmTally conv_algo_counts_;
  void* scratch_ = nullptr;
  size_t scratch_bytes_ = 0;
  unsigned long long* counter_dev_ = nullptr;
  unsigned long long* counter_host_ = nullptr;

  std::mutex host_fn_mu_;
  std::string host_fn_error_;
};

// Defined with the layers (cuda_layers.cpp).
std::unique_ptr<LayerOp> create_cuda_layer(CudaBackend& be, const LayerDesc& desc,
                                           const std::vector<Shape>& in_shapes, const LayerOptions& opt);

// cudnnDataType_t / cudaDataType_t for an element type.
cudnnDataType_t cudnn_dtype(DType dt);
cudaDataType_t cuda_dtype(DType dt);

}  // namespace mg
