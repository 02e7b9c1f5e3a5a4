// The CPU layer table and the plumbing every oneDNN layer shares (see cpu_layers.h).
#include "backend/cpu/cpu_layers.h"

#include <omp.h>

#include <algorithm>
#include <cstring>
#include <mutex>

namespace mg {
namespace cpu {

DT to_dnnl(DType t) {
  switch (t) {
    case DType::F32: return DT::f32;
    case DType::BF16: return DT::bf16;
    case DType::F16: return DT::f16;
    case DType::I32: return DT::s32;
  }
  return DT::undef;
}

DType cpu_activation_dtype(Precision p, const std::string& layer) {
  switch (p) {
    case Precision::FP32: return DType::F32;
    case Precision::BF16:
      if (!cpu_has_bf16()) {
        throw UsageError("--precision bf16 needs a CPU with AVX-512 BF16 or AMX (layer " + layer +
                         "); this CPU supports: fp32");
      }
      return DType::BF16;
    default:
      throw UsageError(std::string("--precision ") + precision_name(p) + " is not available on the CPU (layer " +
                       layer + "); allowed: fp32" + (cpu_has_bf16() ? ", bf16" : ""));
  }
}

memory::dims act_dims(const Shape& s) {
  if (s.rank() == 4) return {s[0], s[1], s[2], s[3]};
  if (s.rank() == 2) return {s[0], s[1], 1, 1};
  if (s.rank() == 3) return {s[0] * s[1], s[2], 1, 1};  // {N,T,C}: one row per token, the same memory
  throw UsageError("activation shape " + s.str() + " is neither {N,C,H,W}, {N,T,C} nor {N,F}");
}

memory::desc act_desc(const Shape& s, DType t) { return memory::desc(act_dims(s), to_dnnl(t), Tag::nhwc); }


CpuLayer::CpuLayer(const CpuLayerArgs& a)
    : LayerBase(a.d, a.in, a.opt, cpu_activation_dtype(a.opt.precision, a.d.name)), be_(a.be) {}

dnnl::primitive_attr CpuLayer::attr() {
  dnnl::primitive_attr a;
  a.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return a;
}

void CpuLayer::need_scratch(const dnnl::memory::desc& md) { scratch_bytes_ = std::max(scratch_bytes_, md.get_size()); }

void CpuLayer::allocate_scratch() {
  be_.reserve_scratchpad(scratch_bytes_);
  scratch_mem_ = mem(memory::desc({static_cast<memory::dim>(std::max<size_t>(scratch_bytes_, 1))}, DT::u8, Tag::a));
}

void CpuLayer::run(dnnl::primitive& p, Args args) {
  if (scratch_bytes_) {
    set(scratch_mem_, be_.scratchpad());
    args.emplace(DNNL_ARG_SCRATCHPAD, scratch_mem_);
  }
  MG_CHECK_DNNL(p.execute(be_.dnnl_stream(), args));
  MG_CHECK_DNNL(be_.dnnl_stream().wait());
}

void parallel_copy(void* dst, const void* src, size_t bytes) {
  if (dst == src || bytes == 0) return;
  constexpr size_t kChunk = size_t{1} << 16;
  const int64_t chunks = static_cast<int64_t>((bytes + kChunk - 1) / kChunk);
  auto* d = static_cast<char*>(dst);
  const auto* s = static_cast<const char*>(src);
#pragma omp parallel for if (chunks > 4)
  for (int64_t c = 0; c < chunks; ++c) {
    const size_t off = static_cast<size_t>(c) * kChunk;
    std::memcpy(d + off, s + off, std::min(kChunk, bytes - off));
  }
}

void store_or_add(float* dst, const float* src, int64_t n, bool accumulate) {
  if (!accumulate) {
    parallel_copy(dst, src, static_cast<size_t>(n) * sizeof(float));
    return;
  }
#pragma omp parallel for simd if (n > 65536)
  for (int64_t i = 0; i < n; ++i) dst[i] += src[i];
}


}  // namespace cpu

std::unique_ptr<LayerOp> create_cpu_layer(CpuBackend& be, const LayerDesc& desc,
                                          const std::vector<Shape>& in_shapes, const LayerOptions& opt) {
  static const LayerRows<CpuBackend> table = join_families<CpuBackend>(
      {cpu::conv_layers, cpu::linear_layers, cpu::norm_layers, cpu::pool_layers, cpu::misc_layers,
       cpu::embedding_layers, cpu::layernorm_layers, cpu::gelu_layers, cpu::attention_layers,
       cpu::class_token_layers});
  // One layer at a time across replicas: oneDNN publishes its primitive cache through uninstrumented code, so
  // ThreadSanitizer needs this order to see it; and one replica's set-up timing of convolutions never runs
  // beside another's.
  static std::mutex creation;
  const std::lock_guard<std::mutex> lock(creation);
  return create_layer_from(table, be, desc, in_shapes, opt);
}

}  // namespace mg
