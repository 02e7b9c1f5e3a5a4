// The CUDA layer table and the precision check every layer shares (see cuda_layers.h).
#include "backend/cuda/cuda_layers.h"

namespace mg {
namespace cuda {

namespace {
// The activation dtype of a precision this device supports, or UsageError naming what it does support.
DType supported_dtype(const CudaBackend& be, Precision p, const std::string& layer) {
  if (!be.supports(p)) {
    std::string allowed;
    for (Precision q : {Precision::FP32, Precision::TF32, Precision::FP16, Precision::BF16}) {
      if (be.supports(q)) allowed += std::string(allowed.empty() ? "" : ", ") + precision_name(q);
    }
    throw UsageError(std::string("--precision ") + precision_name(p) + " is not supported by " + be.info().name +
                     " (layer " + layer + "); allowed: " + allowed);
  }
  return activation_dtype(p);
}
}  // namespace

CudaLayer::CudaLayer(const CudaLayerArgs& a)
    : LayerBase(a.d, a.in, a.opt, supported_dtype(a.be, a.opt.precision, a.d.name)), be_(a.be) {}

}  // namespace cuda

std::unique_ptr<LayerOp> create_cuda_layer(CudaBackend& be, const LayerDesc& desc,
                                           const std::vector<Shape>& in_shapes, const LayerOptions& opt) {
  static const LayerRows<CudaBackend> table = join_families<CudaBackend>(
      {cuda::conv_layers, cuda::linear_layers, cuda::norm_layers, cuda::pool_layers, cuda::misc_layers,
       cuda::embedding_layers, cuda::layernorm_layers, cuda::gelu_layers, cuda::attention_layers,
       cuda::class_token_layers});
  return create_layer_from(table, be, desc, in_shapes, opt);
}

}  // namespace mg
