// Vision Transformer as torchvision's vit_b_16 and timm's vit_base_patch16_224 build it: a stride-p p x p
// convolution with bias cuts the image into patches, a learned class token goes in front and a learned position
// table is added; pre-norm encoder blocks (ln_1, fused qkv, full attention, projection, residual; ln_2, fc1,
// exact GELU, fc2, residual) with layer norm eps 1e-6; a final layer norm, and the head reads the class token.
// No dropout (as benchmarks run it). Initialisation as timm's: N(0, 0.02) for every Linear, the position table
// and the class token, the patch convolution He uniform. The position table fixes the patch grid, so only image
// sizes giving the default grid fit (224 to 239 for a 16-pixel patch).
#include "models/families.h"
#include "models/net_builder.h"

namespace mg {

ModelDesc build_vit(const VitConfig& c, int64_t num_classes) {
  NetBuilder b(c.name, num_classes);
  const int64_t grid = c.image_size / c.patch;
  int x = b.conv(NetBuilder::kInput, "conv_proj", c.dim, c.patch, c.patch, 0, true);
  x = b.patch_tokens(x, "tokens", grid * grid);
  for (int64_t i = 0; i < c.layers; ++i) {
    const std::string p = "encoder." + std::to_string(i) + ".";
    int h = b.layer_norm(x, p + "ln_1", 1e-6f);
    h = b.linear(h, p + "attn.qkv", 3 * c.dim);
    h = b.attention(h, p + "attn", c.heads, false);
    h = b.linear(h, p + "attn.proj", c.dim);
    x = b.add(x, h, p + "add_1");
    h = b.layer_norm(x, p + "ln_2", 1e-6f);
    h = b.linear(h, p + "mlp.fc1", 4 * c.dim);
    h = b.gelu(h, p + "mlp.gelu", false);
    h = b.linear(h, p + "mlp.fc2", c.dim);
    x = b.add(x, h, p + "add_2");
  }
  x = b.layer_norm(x, "ln", 1e-6f);
  x = b.class_token(x, "class_token");
  b.linear(x, "head", num_classes);
  ModelDesc m = b.finish(c.image_size);
  for (LayerDesc& l : m.layers)
    if (l.kind == LayerKind::Linear || l.kind == LayerKind::PatchTokens) l.init_std = 0.02f;
  return m;
}

}  // namespace mg
