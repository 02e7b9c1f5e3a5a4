// GPT-2 as Hugging Face's GPT2LMHeadModel (and nanoGPT) build it: token + position embedding, pre-norm blocks
// (ln_1, fused qkv c_attn, causal attention, c_proj, residual; ln_2, c_fc, tanh GELU, c_proj, residual), ln_f
// and the lm_head, all Linear layers with bias except the head; no dropout (as benchmarks run it); GPT-2's
// initialisation. The head's weight is the token table (tied, as GPT2LMHeadModel, nanoGPT and llm.c tie it), so
// GPT-2 small counts the published 124,439,808 parameters and gpt2-medium 354,823,168. The logits are one row
// per token, {N*T, V}, so the trainer's cross-entropy takes them as it takes images' (ln_f's output is flattened
// to rows before the head, which then is a plain 2-D Linear).
#include <cmath>

#include "models/families.h"
#include "models/net_builder.h"

namespace mg {

ModelDesc build_gpt2(const Gpt2Config& c) {
  NetBuilder b(c.name, c.vocab);
  const int wte = b.embedding("wte_wpe", c.vocab, c.dim, c.max_positions);
  int x = wte;
  for (int64_t i = 0; i < c.layers; ++i) {
    const std::string p = "h." + std::to_string(i) + ".";
    int h = b.layer_norm(x, p + "ln_1");
    h = b.linear(h, p + "attn.c_attn", 3 * c.dim);
    h = b.attention(h, p + "attn", c.heads, true);
    h = b.linear(h, p + "attn.c_proj", c.dim);
    x = b.add(x, h, p + "add_1");
    h = b.layer_norm(x, p + "ln_2");
    h = b.linear(h, p + "mlp.c_fc", 4 * c.dim);
    h = b.gelu(h, p + "mlp.gelu");
    h = b.linear(h, p + "mlp.c_proj", c.dim);
    x = b.add(x, h, p + "add_2");
  }
  x = b.layer_norm(x, "ln_f");
  x = b.token_flatten(x, "tokens");
  const int head = b.linear(x, "lm_head", c.vocab);
  ModelDesc m = b.finish_tokens(c.max_positions);
  m.layers[static_cast<size_t>(head)].linear.bias = false;
  m.layers[static_cast<size_t>(head)].tied_weight = wte;  // {V, C}, the token table's layout
  // GPT-2's initialisation (as nanoGPT writes it): N(0, 0.02) for the tables and every Linear, the two residual
  // projections of each block scaled by 1/sqrt(2L) so the residual stream's variance does not grow with depth.
  for (LayerDesc& l : m.layers) {
    if (l.kind != LayerKind::Linear && l.kind != LayerKind::Embedding) continue;
    const bool residual = l.name.size() > 7 && l.name.compare(l.name.size() - 7, 7, ".c_proj") == 0;
    l.init_std = residual ? 0.02f / std::sqrt(2.0f * static_cast<float>(c.layers)) : 0.02f;
  }
  return m;
}

}  // namespace mg
