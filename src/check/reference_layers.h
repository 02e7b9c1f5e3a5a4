// Naive reference implementations of every layer kind mgbench computes, in double precision on host vectors:
// the ground truth `mgbench check` holds the CPU backend to (the CUDA backend is held to the CPU backend).
// Written for clarity, not speed: loops over the definitions, with torch's conventions (NHWC memory with
// logical {N,C,H,W} shapes, conv weights {O,KH,KW,I/g}, count_include_pad average pooling, biased batch
// variance with running statistics updated by momentum, the counter-based dropout mask of backend.h; GELU in
// GPT-2's tanh form or torch's exact one, layer norm over the last dimension, scaled dot-product attention over
// a fused qkv, ViT's class token in and out), and of what a training step does besides its layers: the softmax
// cross-entropy over tokens and one AdamW update.
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

struct ReferenceXent {
  float loss = 0;
  Vec dlogits;
};

// As Backend::softmax_xent on logits {rows, vocab} with one target per row: the mean over rows of
// logsumexp - logit[target], and dlogits = grad_scale * (softmax - onehot) / rows. Throws on a target outside the
// vocabulary.
ReferenceXent reference_softmax_xent(const Vec& logits, const std::vector<int32_t>& targets, int64_t vocab,
                                     double grad_scale);

// One update's hyperparameters, as Backend::adamw_update takes them (step counts from 1).
struct AdamWStep {
  int64_t step = 1;
  float lr = 1e-3f, beta1 = 0.9f, beta2 = 0.999f, eps = 1e-8f, weight_decay = 0.01f, grad_scale = 1.f;
};

struct ReferenceAdamW {
  Vec params, m, v;
  Vec delta;  // params' change, without the rounding of the new params to fp32
};

// One step of torch.optim.AdamW from state (params, m, v) on grads: the weight decay scales the parameters
// (decoupled) and never enters the moments.
ReferenceAdamW reference_adamw(const Vec& params, const Vec& grads, const Vec& m, const Vec& v, const AdamWStep& s);

}  // namespace mg::check
