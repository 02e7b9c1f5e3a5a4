// The Backend seam: one device's memory, streams/events and layer primitives. CudaBackend (cuDNN, cuBLAS,
// kernels/cuda/) and CpuBackend (oneDNN) implement it; nothing above this header knows which one runs.
//
// Streams: each backend instance (one per replica) owns three ordered queues of work:
//   Compute - layers, loss, optimizer; Copy - host->device staging; Comm - gradient all-reduce.
// Work on one stream runs in order; Events order streams against each other and timestamp them.
// On CUDA these are cudaStream_t/cudaEvent_t. On CPU, Compute runs inline on the calling thread (so an
// event recorded there completes at once with the steady_clock time), while Copy and Comm are worker threads
// that run enqueued host functions in order and stamp events when they reach them.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "backend/published_peak.h"
#include "core/conv_algo.h"
#include "core/device.h"
#include "core/dtype.h"
#include "core/error.h"
#include "core/tensor.h"
#include "models/layer_desc.h"

namespace mg {

enum class StreamKind { Compute = 0, Copy = 1, Comm = 2 };

class Event {
 public:
  virtual ~Event() = default;
};

struct LayerOptions {
  Precision precision = Precision::FP32;
  uint64_t seed = 0;  // dropout masks and the like; replicas differ by seed only where they should
  // Which passes will run, so set-up (cuDNN algorithm search, primitive creation) prepares only those:
  // backward=false under --forward-only; input_grad=false when no input needs a gradient (the network's
  // first layer reads the images), so backward() then always gets din[i].data == nullptr.
  bool backward = true;
  bool input_grad = true;
  // A ReLU folded into this layer (BatchNorm or Add; only where Backend::fuses_relu says so): out is
  // max(result, 0) and dout the gradient with respect to that, so the network keeps no separate ReLU pass,
  // output or gradient. The model graph decides this (train/relu_fusion.h).
  bool relu = false;
  // The residual Add that alone reads this layer's output, computed in this layer's forward (BatchNorm; only
  // where Backend::fuses_add says so): forward gets the Add's other input as in[1] and writes the Add's result,
  // max(result + in[1], 0) with add_relu (the Add's fused ReLU), into out, which is the Add's output and this
  // layer's (the Add runs in place). Backward is this layer's own, with in[0] alone; the Add keeps its op for
  // its backward (the ReLU mask from out). The model graph decides this (train/graph_plan.h).
  bool add_input = false;
  bool add_relu = false;
};

// One layer's forward/backward on a backend, created once at start-up (algorithm choice, oneDNN primitive
// creation, cuDNN find) so none of that happens inside timed steps.
//
// Parameters are fp32 master copies in canonical layout, owned by the trainer in flat buffers so gradient
// buckets are contiguous: conv weight {O, KH, KW, I/groups} (OHWI, i.e. cuDNN's NHWC "KRSC"), linear weight
// {out, in} row-major, bias / BN gamma / BN beta 1-D. A backend may keep private reordered or low-precision
// copies, refreshed in forward().
class LayerOp {
 public:
  virtual ~LayerOp() = default;
  virtual Shape output_shape() const = 0;
  virtual std::vector<ParamShape> params() const = 0;
  // Storage of the parameters and of their gradients (fp32, sizes as params()); called once before use.
  virtual void bind(const std::vector<float*>& params, const std::vector<float*>& grads) = 0;
  // in/out in the activation dtype of the precision; runs on the Compute stream.
  virtual void forward(const std::vector<Tensor>& in, const Tensor& out, bool training) = 0;
  // dout: gradient w.r.t. out. din[i].data == nullptr means input i needs no gradient (the network input).
  // din is overwritten. Parameter gradients are overwritten, or added to when accumulate_param_grads is set
  // (gradient accumulation across micro-batches).
  // The network's memory plan relies on these rules every backend keeps: ReLU runs in place (in[0] and out one
  // buffer) and its backward reads only out; Add may too, over either input; Conv, Linear, BatchNorm and Add
  // backward never read their own out. So where layers run in place one after another, only the last of them may read
  // the shared buffer in its backward. A
  // layer built with LayerOptions::relu may read its out in backward (the ReLU mask), never writes it there, and
  // leaves dout unchanged. An Add gives both inputs the same gradient, so the network may ask for the first only
  // (din[1] empty) and share it with the second.
  virtual void backward(const std::vector<Tensor>& in, const Tensor& out, const Tensor& dout,
                        const std::vector<Tensor>& din, bool accumulate_param_grads) = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;

  virtual DeviceKind kind() const = 0;
  virtual DeviceInfo info() const = 0;
  // Why this device cannot train at the precision, in words a user can act on ("fp16 needs sm_70 or newer (this
  // GPU is sm_61)"); empty when it can. The one place each backend says which precisions it runs.
  virtual std::string unsupported_reason(Precision p) const = 0;
  bool supports(Precision p) const { return unsupported_reason(p).empty(); }
  // Called by every host thread before it drives this backend's Compute stream (CPU: sets the thread's
  // OpenMP team size to this replica's share of cores; CUDA: cudaSetDevice).
  virtual void attach_thread() = 0;

  // ---- memory
  virtual void* device_alloc(size_t bytes) = 0;  // throws Error naming bytes requested and peak on OOM
  virtual void device_free(void* p) = 0;
  virtual void* host_alloc_pinned(size_t bytes) = 0;
  virtual void host_free_pinned(void* p) = 0;
  virtual size_t peak_memory_bytes() const = 0;  // device bytes allocated at the high-water mark
  virtual void reset_peak_memory() = 0;
  // What the device itself reports in use now, beyond mgbench's own allocations (CUDA: cudaMemGetInfo total -
  // free, whole device: context, library workspaces, NCCL buffers, other processes). CPU: this process's peak
  // resident set (VmHWM), a high-water mark rather than a current value. 0 when unknown.
  virtual size_t device_memory_in_use() = 0;
  // The peak multiply-add rate of this device at p, the denominator of model FLOPs utilisation (CPU: measured on
  // this backend's threads, fma_peak.h; CUDA: the published dense figure); flops_per_s 0 when unknown.
  virtual PeakRate peak_flops(Precision p) = 0;

  // ---- streams and events
  virtual void copy_h2d(void* dst, const void* src, size_t bytes, StreamKind s) = 0;
  virtual void copy_d2h(void* dst, const void* src, size_t bytes, StreamKind s) = 0;
  virtual void copy_d2d(void* dst, const void* src, size_t bytes, StreamKind s) = 0;
  virtual std::unique_ptr<Event> create_event() = 0;
  virtual void record(Event& e, StreamKind s) = 0;
  virtual void stream_wait(StreamKind s, Event& e) = 0;  // later work on s starts after e
  virtual void synchronize(Event& e) = 0;                // host blocks until e completes
  virtual void synchronize(StreamKind s) = 0;
  virtual bool query(Event& e) = 0;                      // completed?
  virtual double elapsed_seconds(Event& start, Event& end) = 0;  // both complete
  // Runs fn in stream order on a host thread (CPU: the stream's worker; CUDA: cudaLaunchHostFunc, so fn must
  // not call CUDA). Used by host-side collectives (Gloo) and the CPU stager.
  virtual void host_fn(StreamKind s, std::function<void()> fn) = 0;
  // cudaStream_t for NCCL; nullptr on CPU.
  virtual void* native_stream(StreamKind s) = 0;

  // ---- layers
  // Whether create_layer takes LayerOptions::relu for this kind (the same maths as the layer followed by a ReLU,
  // in one op).
  virtual bool fuses_relu(LayerKind k) const = 0;
  // Whether create_layer takes LayerOptions::add_input for this kind at this precision.
  virtual bool fuses_add(LayerKind k, Precision p) const = 0;
  virtual std::unique_ptr<LayerOp> create_layer(const LayerDesc& desc, const std::vector<Shape>& in_shapes,
                                                const LayerOptions& opt) = 0;
  // How many of the convolution layers created so far run each algorithm, by name (CPU: direct, winograd;
  // core/conv_algo.h; CUDA: one key per pass, "wgrad:algo_1/fma"), for the result. Empty where not collected.
  virtual std::map<std::string, int> conv_algorithm_counts() const { return {}; }

  // ---- whole-tensor operations, on the Compute stream
  virtual void fill(const Tensor& t, float value) = 0;
  // Deterministic uniform [lo, hi) from seed (counter-based, so the same on both backends).
  virtual void fill_uniform(const Tensor& t, float lo, float hi, uint64_t seed) = 0;
  virtual void add_inplace(const Tensor& dst, const Tensor& src) = 0;  // dst += src, same dtype and size
  virtual void scale(const Tensor& t, float alpha) = 0;                // t *= alpha (f32, f16, bf16)
  virtual void cast(const Tensor& dst, const Tensor& src) = 0;         // between f32, f16, bf16
  // Mean softmax cross-entropy over the batch. loss: 1 fp32 element (device). dlogits = grad_scale *
  // (softmax - onehot) / N, in logits' dtype. labels: I32 {N}.
  virtual void softmax_xent(const Tensor& logits, const Tensor& labels, const Tensor& loss,
                            const Tensor& dlogits, float grad_scale) = 0;
  // SGD with momentum and weight decay, torch semantics, on flat fp32 buffers of n elements:
  //   g = grad * grad_scale + weight_decay * p;  v = momentum * v + g;  p -= lr * v
  virtual void sgd_update(float* params, const float* grads, float* momentum_buf, size_t n, float lr,
                          float momentum, float weight_decay, float grad_scale) = 0;
  // AdamW as torch.optim.AdamW, on flat fp32 buffers of n elements; step counts from 1 (bias correction):
  //   g = grad * grad_scale;  p -= lr * weight_decay * p;  m = b1 m + (1 - b1) g;  v = b2 v + (1 - b2) g^2;
  //   p -= lr * (m / (1 - b1^step)) / (sqrt(v / (1 - b2^step)) + eps)
  virtual void adamw_update(float* params, const float* grads, float* m, float* v, size_t n, int64_t step, float lr,
                            float beta1, float beta2, float eps, float weight_decay, float grad_scale) = 0;
  // Number of NaN/Inf elements (synchronises the Compute stream).
  virtual int64_t count_nonfinite(const Tensor& t) = 0;
};

// Number of CUDA devices usable: 0 without CUDA, a GPU or a working driver. Whether a GPU is visible but unusable,
// and why, is gpu_probe.h's to say; --device goes through it, never through this count alone.
int cuda_device_count();
bool cuda_built();

// Whether oneDNN offers Winograd on this CPU at all (AVX-512 in oneDNN 2.6), so pinning to it can work.
bool cpu_has_winograd();

struct BackendOptions {
  int threads = 0;  // CPU: worker threads for oneDNN in this replica (0 = all cores)
  CpuConvAlgo cpu_conv_algo = CpuConvAlgo::Fastest;
};

// Creates a backend for one replica. kind=Cuda with ordinal >= cuda_device_count() throws UsageError.
std::unique_ptr<Backend> make_backend(DeviceKind kind, int ordinal, const BackendOptions& opt);

// Throws UsageError "--precision P is not supported on <kind>:<ordinal> (<name>): <reason>" when be cannot train
// at p.
void require_precision(const Backend& be, Precision p);

// Library versions: onednn (as loaded); in a CUDA build "<lib>_headers" for cuda, cudnn and cublas as compiled
// against, and cuda_runtime, cuda_driver, cudnn, cublas, cublaslt as the loaded libraries report them (cublas and
// cublaslt only once opened: see open_deferred_libraries). The files loaded are loaded_libraries.h's; Gloo's and
// NCCL's are the communicator module's (comm/comm_libraries.h).
std::vector<std::pair<std::string, std::string>> backend_library_versions();

// Opens the libraries a CUDA backend opens on first use (cuBLAS; cuda/cublas_library.h), for a version report
// that must name them; "" when opened or not a CUDA build, else why they cannot be opened.
std::string open_deferred_libraries();

}  // namespace mg
