// Naive reference implementations of every layer kind mgbench computes, in double precision on host vectors:
// the ground truth `mgbench check` holds the CPU backend to (the CUDA backend is held to the CPU backend).
// Written for clarity, not speed: loops over the definitions, with torch's conventions (NHWC memory with
// logical {N,C,H,W} shapes, conv weights {O,KH,KW,I/g}, count_include_pad average pooling, biased batch
// variance with running statistics updated by momentum, the counter-based dropout mask of backend.h; GELU in
// GPT-2's tanh form or torch's exact one, layer norm over the last dimension, scaled dot-product attention over
// a fused qkv, ViT's class token in and out).
#pragma once
#include <cstdint>
#include <vector>

#include "core/tensor.h"
#include "models/layer_desc.h"

namespace mg::check {

using Vec = std::vector<float>;

struct ReferenceRun {
  Vec out;                   // training forward
  Vec out_inference;         // inference forward after one training forward (running statistics updated)
  std::vector<Vec> din;      // per input
  std::vector<Vec> dparams;  // per parameter, in layer_params() order
};

// in: one vector per input (NHWC; an Embedding's token ids as floats), params: as layer_params(d, shapes), dout:
// gradient of the output. din has no entry for token ids.
// seed: LayerOptions::seed (dropout mask). Throws UsageError for kinds no backend computes.
ReferenceRun reference_layer(const LayerDesc& d, const std::vector<Shape>& shapes, const std::vector<Vec>& in,
                             const std::vector<Vec>& params, const Vec& dout, uint64_t seed);

}  // namespace mg::check
