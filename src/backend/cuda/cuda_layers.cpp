// The CUDA layer factory and the plumbing every layer shares (see cuda_layers.h).
#include "backend/cuda/cuda_layers.h"

namespace mg {
namespace cuda {

Buffer::Buffer(CudaBackend& be, size_t bytes) : be_(&be), p_(bytes ? be.device_alloc(bytes) : nullptr) {}
Buffer::~Buffer() {
  if (p_) {
    try {
      be_->device_free(p_);
    } catch (const std::exception&) {
      // a destructor cannot report; the backend frees what is left when it goes
    }
  }
}
Buffer::Buffer(Buffer&& o) noexcept : be_(o.be_), p_(o.p_) { o.p_ = nullptr; }
Buffer& Buffer::operator=(Buffer&& o) noexcept {
  if (this != &o) {
    Buffer tmp(std::move(*this));
    be_ = o.be_;
    p_ = o.p_;
    o.p_ = nullptr;
  }
  return *this;
}

CudaLayer::CudaLayer(CudaBackend& be, const LayerDesc& d, const std::vector<Shape>& in_shapes,
                     const LayerOptions& opt)
    : be_(be), desc_(d), in_shapes_(in_shapes), dt_(activation_dtype(opt.precision)), opt_(opt) {
  if (!be.supports(opt.precision)) {
    std::string allowed;
    for (Precision p : {Precision::FP32, Precision::TF32, Precision::FP16, Precision::BF16}) {
      if (be.supports(p)) allowed += std::string(allowed.empty() ? "" : ", ") + precision_name(p);
    }
    throw UsageError(std::string("--precision ") + precision_name(opt.precision) + " is not supported by " +
                     be.info().name + " (layer " + d.name + "); allowed: " + allowed);
  }
  for (const Shape& s : in_shapes_) {
    if (s.rank() != 2 && s.rank() != 4) {
      throw UsageError(where() + "input shape " + s.str() + " is neither {N,C,H,W} nor {N,F}");
    }
    for (int64_t v : s.dims) {
      if (v <= 0) throw UsageError(where() + "input shape " + s.str() + " has a non-positive size");
    }
  }
}

void CudaLayer::bind(const std::vector<float*>& params, const std::vector<float*>& grads) {
  MG_ENSURE(params.size() == param_shapes_.size() && grads.size() == param_shapes_.size(),
            where() + "bind() got " + std::to_string(params.size()) + " params and " +
                std::to_string(grads.size()) + " grads, expected " + std::to_string(param_shapes_.size()));
  for (size_t i = 0; i < params.size(); ++i) {
    MG_ENSURE(params[i] && grads[i], where() + "null parameter or gradient storage");
  }
  params_ = params;
  grads_ = grads;
}

void CudaLayer::check_bound() const {
  MG_ENSURE(params_.size() == param_shapes_.size(), where() + "used before bind()");
}

void CudaLayer::check_io(const std::vector<Tensor>& in, const Tensor& out) const {
  MG_ENSURE(in.size() == in_shapes_.size(), where() + "wrong number of inputs");
  for (size_t i = 0; i < in.size(); ++i) {
    MG_ENSURE(in[i].numel() == in_shapes_[i].numel() && in[i].dtype == dt_,
              where() + "input " + std::to_string(i) + " is " + in[i].shape.str() + " " + dtype_name(in[i].dtype) +
                  ", expected " + in_shapes_[i].str() + " " + dtype_name(dt_));
  }
  MG_ENSURE(out.numel() == out_shape_.numel() && out.dtype == dt_,
            where() + "output is " + out.shape.str() + " " + dtype_name(out.dtype) + ", expected " +
                out_shape_.str() + " " + dtype_name(dt_));
}

int64_t pool_out_size(int64_t in, int64_t k, int64_t stride, int64_t pad, bool ceil_mode) {
  const int64_t span = in + 2 * pad - k;
  if (span < 0) return 0;
  int64_t out = (ceil_mode ? (span + stride - 1) / stride : span / stride) + 1;
  if (ceil_mode && (out - 1) * stride >= in + pad) --out;
  return out;
}

}  // namespace cuda

std::unique_ptr<LayerOp> create_cuda_layer(CudaBackend& be, const LayerDesc& desc,
                                           const std::vector<Shape>& in_shapes, const LayerOptions& opt) {
  auto want_inputs = [&](size_t lo, size_t hi) {
    if (in_shapes.size() < lo || in_shapes.size() > hi) {
      throw UsageError("layer " + desc.name + " takes " +
                       (lo == hi ? std::to_string(lo) : std::to_string(lo) + ".." + std::to_string(hi)) +
                       " input(s), got " + std::to_string(in_shapes.size()));
    }
  };
  switch (desc.kind) {
    case LayerKind::Conv: want_inputs(1, 1); return cuda::make_conv(be, desc, in_shapes, opt);
    case LayerKind::Linear: want_inputs(1, 1); return cuda::make_linear(be, desc, in_shapes, opt);
    case LayerKind::BatchNorm: want_inputs(1, 1); return cuda::make_batchnorm(be, desc, in_shapes, opt);
    case LayerKind::Relu: want_inputs(1, 1); return cuda::make_relu(be, desc, in_shapes, opt);
    case LayerKind::MaxPool:
    case LayerKind::AvgPool:
    case LayerKind::GlobalAvgPool: want_inputs(1, 1); return cuda::make_pool(be, desc, in_shapes, opt);
    case LayerKind::Flatten: want_inputs(1, 1); return cuda::make_flatten(be, desc, in_shapes, opt);
    case LayerKind::Add: want_inputs(2, 2); return cuda::make_add(be, desc, in_shapes, opt);
    case LayerKind::Concat: want_inputs(2, 1024); return cuda::make_concat(be, desc, in_shapes, opt);
    case LayerKind::Dropout: want_inputs(1, 1); return cuda::make_dropout(be, desc, in_shapes, opt);
    case LayerKind::Input:
      throw UsageError("layer " + desc.name + ": Input is the network input, not a computed layer");
    case LayerKind::LRN:
      throw UsageError("layer " + desc.name + ": LRN is not supported (allowed kinds: Conv, BatchNorm, Relu, "
                       "MaxPool, AvgPool, GlobalAvgPool, Flatten, Linear, Add, Concat, Dropout)");
  }
  throw UsageError("layer " + desc.name + ": unknown layer kind");
}

}  // namespace mg
