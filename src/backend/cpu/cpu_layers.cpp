// The CPU layer factory and the plumbing every oneDNN layer shares (see cpu_layers.h).
#include "backend/cpu/cpu_layers.h"

#include <omp.h>

#include <algorithm>
#include <cstring>

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
  throw UsageError("activation shape " + s.str() + " is neither {N,C,H,W} nor {N,F}");
}

memory::desc act_desc(const Shape& s, DType t) { return memory::desc(act_dims(s), to_dnnl(t), Tag::nhwc); }


CpuLayer::CpuLayer(CpuBackend& be, const LayerDesc& d, const std::vector<Shape>& in_shapes,
                   const LayerOptions& opt)
    : be_(be), desc_(d), in_shapes_(in_shapes), dt_(cpu_activation_dtype(opt.precision, d.name)), opt_(opt) {
  for (const Shape& s : in_shapes_) {
    if (s.rank() != 2 && s.rank() != 4) {
      throw UsageError("layer " + d.name + ": input shape " + s.str() + " is neither {N,C,H,W} nor {N,F}");
    }
    for (int64_t v : s.dims) {
      if (v <= 0) throw UsageError("layer " + d.name + ": input shape " + s.str() + " has a non-positive size");
    }
  }
}

void CpuLayer::bind(const std::vector<float*>& params, const std::vector<float*>& grads) {
  MG_ENSURE(params.size() == param_shapes_.size() && grads.size() == param_shapes_.size(),
            "layer " + desc_.name + ": bind() got " + std::to_string(params.size()) + " params and " +
                std::to_string(grads.size()) + " grads, expected " + std::to_string(param_shapes_.size()));
  for (size_t i = 0; i < params.size(); ++i) {
    MG_ENSURE(params[i] && grads[i], "layer " + desc_.name + ": null parameter or gradient storage");
  }
  params_ = params;
  grads_ = grads;
}

void CpuLayer::check_bound() const {
  MG_ENSURE(params_.size() == param_shapes_.size(), "layer " + desc_.name + ": used before bind()");
}

void CpuLayer::check_io(const std::vector<Tensor>& in, const Tensor& out) const {
  MG_ENSURE(in.size() == in_shapes_.size(), "layer " + desc_.name + ": wrong number of inputs");
  for (size_t i = 0; i < in.size(); ++i) {
    MG_ENSURE(in[i].numel() == in_shapes_[i].numel() && in[i].dtype == dt_,
              "layer " + desc_.name + ": input " + std::to_string(i) + " is " + in[i].shape.str() + " " +
                  dtype_name(in[i].dtype) + ", expected " + in_shapes_[i].str() + " " + dtype_name(dt_));
  }
  MG_ENSURE(out.numel() == out_shape_.numel() && out.dtype == dt_,
            "layer " + desc_.name + ": output is " + out.shape.str() + ", expected " + out_shape_.str());
}

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
  check_layer_inputs(desc, in_shapes.size());
  switch (desc.kind) {
    case LayerKind::Conv: return cpu::make_conv(be, desc, in_shapes, opt);
    case LayerKind::Linear: return cpu::make_linear(be, desc, in_shapes, opt);
    case LayerKind::BatchNorm: return cpu::make_batchnorm(be, desc, in_shapes, opt);
    case LayerKind::Relu: return cpu::make_relu(be, desc, in_shapes, opt);
    case LayerKind::MaxPool:
    case LayerKind::AvgPool:
    case LayerKind::GlobalAvgPool: return cpu::make_pool(be, desc, in_shapes, opt);
    case LayerKind::Flatten: return cpu::make_flatten(be, desc, in_shapes, opt);
    case LayerKind::Add: return cpu::make_add(be, desc, in_shapes, opt);
    case LayerKind::Concat: return cpu::make_concat(be, desc, in_shapes, opt);
    case LayerKind::Dropout: return cpu::make_dropout(be, desc, in_shapes, opt);
    case LayerKind::Input:
    case LayerKind::LRN:
      break;  // rejected by check_layer_inputs
  }
  throw UsageError("layer " + desc.name + ": unknown layer kind");
}

}  // namespace mg
