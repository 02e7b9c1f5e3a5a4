// The CUDA layer factory and the plumbing every layer shares (see cuda_layers.h).
#include "backend/cuda/cuda_layers.h"

namespace mg {
namespace cuda {

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


}  // namespace cuda

std::unique_ptr<LayerOp> create_cuda_layer(CudaBackend& be, const LayerDesc& desc,
                                           const std::vector<Shape>& in_shapes, const LayerOptions& opt) {
  check_layer_inputs(desc, in_shapes.size());
  switch (desc.kind) {
    case LayerKind::Conv: return cuda::make_conv(be, desc, in_shapes, opt);
    case LayerKind::Linear: return cuda::make_linear(be, desc, in_shapes, opt);
    case LayerKind::BatchNorm: return cuda::make_batchnorm(be, desc, in_shapes, opt);
    case LayerKind::Relu: return cuda::make_relu(be, desc, in_shapes, opt);
    case LayerKind::MaxPool:
    case LayerKind::AvgPool:
    case LayerKind::GlobalAvgPool: return cuda::make_pool(be, desc, in_shapes, opt);
    case LayerKind::Flatten: return cuda::make_flatten(be, desc, in_shapes, opt);
    case LayerKind::Add: return cuda::make_add(be, desc, in_shapes, opt);
    case LayerKind::Concat: return cuda::make_concat(be, desc, in_shapes, opt);
    case LayerKind::Dropout: return cuda::make_dropout(be, desc, in_shapes, opt);
    case LayerKind::Input:
    case LayerKind::LRN:
      break;  // rejected by check_layer_inputs
  }
  throw UsageError("layer " + desc.name + ": unknown layer kind");
}

}  // namespace mg
