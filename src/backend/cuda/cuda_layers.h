// What every CUDA layer shares: shape/dtype checks, parameter binding, and device buffers owned by a layer.
// One file per layer family (cuda_layers_conv.cpp, _linear, _norm, _pool, _misc); the factory is
// create_cuda_layer in cuda_layers.cpp.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "backend/cuda/cuda_backend.h"
#include "backend/cuda/cuda_check.h"
#include "backend/device_buffer.h"
#include "core/error.h"

namespace mg::cuda {

// Layer-owned device memory comes from the backend's counted allocator, so peak memory sees it.
using Buffer = DeviceBuffer;

class CudaLayer : public LayerOp {
 public:
  CudaLayer(CudaBackend& be, const LayerDesc& d, const std::vector<Shape>& in_shapes, const LayerOptions& opt);
  Shape output_shape() const override { return out_shape_; }
  std::vector<ParamShape> params() const override { return param_shapes_; }
  void bind(const std::vector<float*>& params, const std::vector<float*>& grads) override;

 protected:
  void check_io(const std::vector<Tensor>& in, const Tensor& out) const;
  void check_bound() const;
  cudaStream_t stream() const { return be_.compute(); }
  std::string where() const { return "layer " + desc_.name + ": "; }

  CudaBackend& be_;
  LayerDesc desc_;
  std::vector<Shape> in_shapes_;
  Shape out_shape_;
  DType dt_;
  LayerOptions opt_;
  std::vector<ParamShape> param_shapes_;
  std::vector<float*> params_, grads_;
};

std::unique_ptr<LayerOp> make_conv(CudaBackend& be, const LayerDesc& d, const std::vector<Shape>& in,
                                   const LayerOptions& opt);
std::unique_ptr<LayerOp> make_linear(CudaBackend& be, const LayerDesc& d, const std::vector<Shape>& in,
                                     const LayerOptions& opt);
std::unique_ptr<LayerOp> make_batchnorm(CudaBackend& be, const LayerDesc& d, const std::vector<Shape>& in,
                                        const LayerOptions& opt);
std::unique_ptr<LayerOp> make_pool(CudaBackend& be, const LayerDesc& d, const std::vector<Shape>& in,
                                   const LayerOptions& opt);
std::unique_ptr<LayerOp> make_relu(CudaBackend& be, const LayerDesc& d, const std::vector<Shape>& in,
                                   const LayerOptions& opt);
std::unique_ptr<LayerOp> make_add(CudaBackend& be, const LayerDesc& d, const std::vector<Shape>& in,
                                  const LayerOptions& opt);
std::unique_ptr<LayerOp> make_concat(CudaBackend& be, const LayerDesc& d, const std::vector<Shape>& in,
                                     const LayerOptions& opt);
std::unique_ptr<LayerOp> make_flatten(CudaBackend& be, const LayerDesc& d, const std::vector<Shape>& in,
                                      const LayerOptions& opt);
std::unique_ptr<LayerOp> make_dropout(CudaBackend& be, const LayerDesc& d, const std::vector<Shape>& in,
                                      const LayerOptions& opt);


}  // namespace mg::cuda
