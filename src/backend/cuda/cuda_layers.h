// What every CUDA layer shares beyond LayerBase: the precision check, the Compute stream, and device buffers owned
// by a layer. One file per layer family (cuda_layers_conv.cpp, _linear, _norm, _pool, _misc, and the transformer
// kinds' _embedding, _layernorm, _gelu, _attention, _class_token); the table is
// create_cuda_layer in cuda_layers.cpp.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "backend/cuda/cuda_backend.h"
#include "backend/cuda/cuda_check.h"
#include "backend/device_buffer.h"
#include "backend/layer_base.h"
#include "core/error.h"

namespace mg::cuda {

// Layer-owned device memory comes from the backend's counted allocator, so peak memory sees it.
using Buffer = DeviceBuffer;

using CudaLayerArgs = LayerArgs<CudaBackend>;

// LayerBase (shapes, checks, binding) on a GPU replica whose device supports the precision.
class CudaLayer : public LayerBase {
 public:
  explicit CudaLayer(const CudaLayerArgs& a);

 protected:
  cudaStream_t stream() const { return be_.compute(); }

  CudaBackend& be_;
};

// Each layer family's rows of the CUDA layer table (cuda_layers.cpp joins them).
LayerRows<CudaBackend> conv_layers();
LayerRows<CudaBackend> linear_layers();
LayerRows<CudaBackend> norm_layers();
LayerRows<CudaBackend> pool_layers();  // MaxPool, AvgPool, GlobalAvgPool
LayerRows<CudaBackend> misc_layers();  // Relu, Add, Concat, Flatten, TokenFlatten, Dropout
LayerRows<CudaBackend> embedding_layers();
LayerRows<CudaBackend> layernorm_layers();
LayerRows<CudaBackend> gelu_layers();
LayerRows<CudaBackend> attention_layers();
LayerRows<CudaBackend> class_token_layers();  // PatchTokens, ClassToken

}  // namespace mg::cuda
