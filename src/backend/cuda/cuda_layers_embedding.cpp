// Token plus position embedding (GPT-2's wte + wpe) from int32 token ids {N,T}, as the CPU backend computes it
// (cpu_layers_embedding.cpp); kernels in kernels/cuda/embedding.cu. The ids get no gradient; the token table's
// gradient sorts them first, in scratch allocated here so no step allocates.
#include <algorithm>

#include "backend/cuda/cuda_layers.h"
#include "backend/transformer_dims.h"
#include "kernels/cuda/kernels.cuh"

namespace mg::cuda {

namespace {

class EmbeddingLayer final : public CudaLayer, EmbeddingDims {
 public:
  explicit EmbeddingLayer(const CudaLayerArgs& args)
      : CudaLayer(args), EmbeddingDims(desc_, in_shapes_[0]), positions_(param_shapes_[1].shape.numel() / c_) {
    if (!opt_.backward) return;
    const int64_t rows = n_ * t_;
    order_ = Buffer(be_, 3 * static_cast<size_t>(rows) * sizeof(int32_t));
    sort_.keys = order_.as<int32_t>();
    sort_.rows_in = sort_.keys + rows;
    sort_.rows_out = sort_.rows_in + rows;
    sort_.temp_bytes = kernels::embedding_sort_bytes(rows);
    // Never null: cub reads a null temp pointer as a size query and would sort nothing.
    temp_ = Buffer(be_, std::max<size_t>(sort_.temp_bytes, 16));
    sort_.temp = temp_.get();
  }

  void forward(const std::vector<Tensor>& in, const Tensor& out, bool) override {
    check_ids(in, out);
    kernels::embedding_forward(in[0].as<int32_t>(), params_[0], params_[1], out.data, dt_, n_, t_, c_, v_, stream());
  }

  void backward(const std::vector<Tensor>& in, const Tensor& out, const Tensor& dout,
                const std::vector<Tensor>& din, bool accumulate) override {
    check_ids(in, out);
    MG_ENSURE(!din[0].data, where() + "token ids have no gradient; pass an empty input gradient");
    MG_ENSURE(sort_.temp, where() + "backward on a layer built for inference");
    kernels::embedding_backward(in[0].as<int32_t>(), dout.data, dt_, grads_[0], grads_[1], n_, t_, c_, v_, positions_,
                                accumulate, sort_, stream());
  }

 private:
  // The ids' range is the kernel's to check (an id outside the vocabulary makes its row NaN): they live on the device.
  void check_ids(const std::vector<Tensor>& in, const Tensor& out) const {
    check_bound();
    check_token_io(in, out);
  }

  const int64_t positions_;
  Buffer order_, temp_;  // the sort's keys and row indices; cub's temporary storage
  kernels::TokenSort sort_;
};

}  // namespace

LayerRows<CudaBackend> embedding_layers() { return {layer_row<EmbeddingLayer, CudaBackend>(LayerKind::Embedding)}; }

}  // namespace mg::cuda
