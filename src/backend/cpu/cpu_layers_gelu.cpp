// GELU in its tanh form, as GPT-2 (and nanoGPT, llm.c) compute it, or, where the description asks (ViT), the
// exact form torch's nn.GELU() computes: oneDNN's eltwise gelu_tanh / gelu_erf, whose vector code computes the
// same formulas (backend/gelu_math.h) where a plain loop calls scalar tanhf and erff. Backward reads the input
// (never the output, so it may be overwritten).
#include "backend/cpu/cpu_layers.h"

namespace mg::cpu {

namespace {

class GeluLayer final : public EltwiseLayer {
 public:
  explicit GeluLayer(const CpuLayerArgs& args)
      : EltwiseLayer(args,
                     args.d.gelu.tanh ? dnnl::algorithm::eltwise_gelu_tanh : dnnl::algorithm::eltwise_gelu_erf,
                     false) {}
};

}  // namespace

LayerRows<CpuBackend> gelu_layers() { return {layer_row<GeluLayer, CpuBackend>(LayerKind::Gelu)}; }

}  // namespace mg::cpu
