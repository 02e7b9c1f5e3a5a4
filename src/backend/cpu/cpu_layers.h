// Shared pieces of the oneDNN layer implementations (cpu_layers_*.cpp); internal to the CPU backend.
//
// Every layer builds all of its oneDNN primitives in its constructor (the "choose algorithms at start-up"
// rule), owns its workspaces through CpuBackend::device_alloc so they count towards peak memory, and runs each
// call to completion on the backend's oneDNN stream before returning (the CPU Compute stream is inline).
// Primitives use a user-provided scratchpad, one per replica (CpuBackend::scratchpad), so no call allocates
// behind our back and the layers do not each hold one.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>

#include "backend/cpu/cpu_backend.h"
#include "backend/device_buffer.h"
#include "backend/layer_base.h"
#include "core/error.h"

namespace mg::cpu {

using dnnl::memory;
using Tag = dnnl::memory::format_tag;
using DT = dnnl::memory::data_type;
using Args = std::unordered_map<int, dnnl::memory>;

DT to_dnnl(DType t);

// Activation dtype for a precision on this CPU, or UsageError naming the precision and what CPU supports.
DType cpu_activation_dtype(Precision p, const std::string& layer);

// oneDNN descriptor of an activation: 4-D {N,C,H,W} stored NHWC; 2-D {N,F} is the same memory as {N,F,1,1},
// 3-D {N,T,C} as {N*T,C,1,1}.
memory::desc act_desc(const Shape& s, DType t);
memory::dims act_dims(const Shape& s);

// Layer-owned allocations come from the backend, so peak memory sees them.
using Buffer = DeviceBuffer;

using CpuLayerArgs = LayerArgs<CpuBackend>;

// Base of every CPU layer: LayerBase (shapes, checks, binding) plus the scratchpad and a checked
// execute-and-wait.
class CpuLayer : public LayerBase {
 public:
  explicit CpuLayer(const CpuLayerArgs& a);

 protected:
  // Attributes every primitive descriptor is created with (user scratchpad).
  static dnnl::primitive_attr attr();
  // Grows the layer's scratchpad need to cover a primitive descriptor's (primitives run one at a time).
  void need_scratch(const dnnl::memory::desc& md);
  // The primitive P of descriptor pd, its scratchpad counted in the layer's need.
  template <typename P, typename Pd>
  P primitive_of(const Pd& pd) {
    need_scratch(pd.scratchpad_desc());
    P p;
    MG_CHECK_DNNL(p = P(pd));
    return p;
  }
  // Once, at the end of the derived constructor: declares the need to the replica's shared scratchpad.
  void allocate_scratch();
  // Runs a primitive with the scratchpad added and waits for it.
  void run(dnnl::primitive& p, Args args);
  // A memory object over p; by default with no storage yet, the handle then being set per call.
  dnnl::memory mem(const memory::desc& md, void* p = DNNL_MEMORY_NONE) const {
    dnnl::memory m;
    MG_CHECK_DNNL(m = dnnl::memory(md, be_.engine(), p));
    return m;
  }
  static void set(dnnl::memory& m, const void* p) { MG_CHECK_DNNL(m.set_data_handle(const_cast<void*>(p))); }

  CpuBackend& be_;
  size_t scratch_bytes_ = 0;
  dnnl::memory scratch_mem_;  // over CpuBackend::scratchpad(), set per call
};

// A oneDNN eltwise layer (ReLU, GELU): backward from the input, or from the output where the algorithm allows it
// (backward_reads_dst), so that the network may run the layer in place, the input then gone.
class EltwiseLayer : public CpuLayer {
 public:
  EltwiseLayer(const CpuLayerArgs& a, dnnl::algorithm alg, bool backward_reads_dst);
  void forward(const std::vector<Tensor>& in, const Tensor& out, bool training) override;
  void backward(const std::vector<Tensor>& in, const Tensor& out, const Tensor& dout, const std::vector<Tensor>& din,
                bool accumulate) override;

 private:
  dnnl::primitive fwd_, bwd_;
  dnnl::memory a_, b_, c_;
  bool from_dst_;
};

// Parallel helpers for the few elementwise passes oneDNN has no primitive for.
void parallel_copy(void* dst, const void* src, size_t bytes);
// dst[i] (+)= src[i] over n floats.
void store_or_add(float* dst, const float* src, int64_t n, bool accumulate);


// Each layer family's rows of the CPU layer table (cpu_layers.cpp joins them).
LayerRows<CpuBackend> conv_layers();
LayerRows<CpuBackend> linear_layers();
LayerRows<CpuBackend> norm_layers();
LayerRows<CpuBackend> pool_layers();  // MaxPool, AvgPool, GlobalAvgPool
LayerRows<CpuBackend> misc_layers();  // Relu, Add, Concat, Flatten, TokenFlatten, Dropout
LayerRows<CpuBackend> embedding_layers();
LayerRows<CpuBackend> layernorm_layers();
LayerRows<CpuBackend> gelu_layers();
LayerRows<CpuBackend> attention_layers();
LayerRows<CpuBackend> class_token_layers();  // PatchTokens, ClassToken

}  // namespace mg::cpu

namespace mg::cpu {

// A layer with an fp32 master weight in canonical layout (conv OHWI, linear {out,in}) that its primitives want
// in their own formats: forward reorders (and casts, for bf16) the master into the forward format once per
// call and keeps it for backward-data when that primitive wants the same format (else it is staged only);
// weight gradients come out in the backward-weights format (fp32) and are reordered back to canonical,
// overwriting or adding.
class WeightedLayer : public CpuLayer {
 public:
  using CpuLayer::CpuLayer;
  // Conv and linear run the same way once their primitives exist: forward with optional bias, backward data
  // (when the input wants a gradient) and backward weights (+bias), gradients overwritten or accumulated.
  void forward(const std::vector<Tensor>& in, const Tensor& out, bool training) override;
  void backward(const std::vector<Tensor>& in, const Tensor& out, const Tensor& dout, const std::vector<Tensor>& din,
                bool accumulate) override;

 protected:
  // Set by build().
  dnnl::primitive fwd_, bwd_data_, bwd_w_;
  dnnl::memory src_, dst_, bias_, dbias_;  // dst and diff_dst share a descriptor
  Buffer dbias_buf_;                       // bias gradient staging when accumulating
  int64_t bias_count_ = 0;                 // 0: no bias

  // Call from the derived constructor once its three primitive descriptors exist: creates the primitives, the
  // weight copies and reorders (setup_weights), the scratchpad, and the activation and bias memories.
  template <typename FwdPd, typename BwdDataPd, typename BwdWPd>
  void build(const FwdPd& fwd, const BwdDataPd& bwd_data, const BwdWPd& bwd_w, const memory::desc& canonical,
             const memory::desc& src, const memory::desc& dst, int64_t bias_count) {
    fwd_ = primitive_of<dnnl::primitive>(fwd);
    bwd_data_ = primitive_of<dnnl::primitive>(bwd_data);
    bwd_w_ = primitive_of<dnnl::primitive>(bwd_w);
    setup_weights(canonical, fwd.weights_desc(), bwd_data.weights_desc(), bwd_w.diff_weights_desc());
    allocate_scratch();
    src_ = mem(src);
    dst_ = mem(dst);
    bias_count_ = bias_count;
    if (bias_count) {
      const memory::desc bias_md({bias_count}, DT::f32, Tag::a);
      bias_ = mem(bias_md);
      dbias_ = mem(bias_md);
      dbias_buf_ = Buffer(be_, static_cast<size_t>(bias_count) * sizeof(float));
    }
  }
  void setup_weights(const memory::desc& canonical, const memory::desc& fwd, const memory::desc& bwd_data,
                     const memory::desc& diff);
  // forward()/backward() on raw activation storage in the primitives' formats (dx null: no input gradient),
  // for a layer that moves its activations into those formats itself.
  void run_forward(const void* x, void* y);
  void run_backward(const void* x, const void* dy, void* dx, bool accumulate);
  void run_backward_data(const void* dy, void* dx);
  void run_backward_weights(const void* x, const void* dy, bool accumulate);
  // Bytes at the start of the replica's staging area the weight copies use inside one call; a layer may stage
  // more of its own after them.
  size_t staging_bytes() const { return staging_bytes_; }
  // Weights in the forward format, refreshed from the master copy.
  dnnl::memory& forward_weights();
  // Weights in the backward-data format (reuses the forward copy when the formats agree).
  dnnl::memory& backward_data_weights();
  // Where backward-weights should write; then finish_weight_grad() lands it in the canonical gradient.
  dnnl::memory& weight_grad_target(bool accumulate);
  void finish_weight_grad(bool accumulate);

 private:
  memory::desc canonical_, fwd_md_, bwd_data_md_, diff_;
  dnnl::memory master_, wfwd_, wbwd_, dw_, grad_;
  Buffer wfwd_buf_;
  size_t dw_offset_ = 0;  // of the weight gradient in the staging area (after the backward-data weights)
  size_t staging_bytes_ = 0;
  dnnl::reorder to_fwd_, to_bwd_, from_diff_, from_diff_acc_;
  bool fwd_is_master_ = false, bwd_same_as_fwd_ = false, diff_is_canonical_ = false;
  bool fwd_staged_ = false;  // the forward copy lives in the staging area, only inside forward()
  bool grad_direct_ = false;  // the last weight_grad_target() wrote straight into the gradient
};

}  // namespace mg::cpu
