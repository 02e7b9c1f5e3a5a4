// The sizes each transformer layer takes from its description and shapes, one derivation for both backends: a
// layer derives from its sizes, so its code reads them as members.
#pragma once
#include <cstdint>

#include "models/layer_desc.h"

namespace mg {

// Layer norm over the last dimension: rows_ rows of c_ values.
struct LayerNormDims {
  explicit LayerNormDims(const Shape& out) : c_(out.dims.back()), rows_(out.numel() / c_) {}
  const int64_t c_, rows_;
};

// Token and position embedding of {n_, t_} token ids into c_ values, from a vocabulary of v_ tokens.
struct EmbeddingDims {
  EmbeddingDims(const LayerDesc& d, const Shape& ids)
      : n_(ids[0]), t_(ids[1]), c_(d.embedding.dim), v_(d.embedding.vocab) {}
  const int64_t n_, t_, c_, v_;
};

// Self-attention on {n_, t_, c_} in h_ heads of hd_ values each.
struct AttentionDims {
  AttentionDims(const LayerDesc& d, const Shape& out)
      : n_(out[0]), t_(out[1]), c_(out[2]), h_(d.attention.heads), hd_(c_ / h_) {}
  const int64_t n_, t_, c_, h_, hd_;
};

// ViT's patch tokens: n_ images of p_ patches of c_ values, a class token put in front of each.
struct PatchTokenDims {
  PatchTokenDims(const LayerDesc& d, const Shape& in) : n_(in.n()), p_(d.patch_tokens.patches), c_(in.c()) {}
  const int64_t n_, p_, c_;
};

// ViT's class token read out of {n_, t_, c_} tokens.
struct ClassTokenDims {
  explicit ClassTokenDims(const Shape& in) : n_(in[0]), t_(in[1]), c_(in[2]) {}
  const int64_t n_, t_, c_;
};

}  // namespace mg
