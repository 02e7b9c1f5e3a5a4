// ViT's description: parameter counts against torchvision's vit_b_16 and timm's vit_small_patch16_224, forward
// FLOPs against the closed form, the block structure, and the image sizes its position table accepts.
#include <catch2/catch.hpp>

#include "core/error.h"
#include "models/registry.h"

using namespace mg;

TEST_CASE("vit: 86,567,656 and 22,050,664 parameters as torchvision and timm count them") {
  CHECK(count_params(build_model("vit-b16"), 224) == 86567656);  // torchvision vit_b_16
  CHECK(count_params(build_model("vit-s16"), 224) == 22050664);  // timm vit_small_patch16_224
  // The closed form at the test size: 3 p^2 C + C (patches), C + (P+1) C (class, positions), L (12 C^2 + 13 C),
  // 2 C (final norm), C K + K (head).
  const int64_t L = 2, C = 32, p = 8, P = 16, K = 10;
  CHECK(count_params(build_model("vit-tiny", K), 32) ==
        3 * p * p * C + C + C + (P + 1) * C + L * (12 * C * C + 13 * C) + 2 * C + C * K + K);
  CHECK(count_params(build_model("vit-b16", 10), 224) == 86567656 - 990 * 768 - 990);  // only the head changes
}

TEST_CASE("vit: forward FLOPs are 2 (3 p^2 C P + L (12 T C^2 + 2 T^2 C) + C K), 17.6 GMACs for ViT-B/16") {
  const double L = 12, C = 768, p = 16, P = 196, T = P + 1, K = 1000;
  const double want = 2 * (3 * p * p * C * P + L * (12 * T * C * C + 2 * T * T * C) + C * K);
  CHECK(forward_gflops_per_image(build_model("vit-b16"), 224) == Approx(want / 1e9).epsilon(1e-12));
  CHECK(forward_gflops_per_image(build_model("vit-b16"), 224) / 2 == Approx(17.6).epsilon(0.005));  // timm's table
  CHECK(forward_gflops_per_image(build_model("vit-s16"), 224) / 2 == Approx(4.6).epsilon(0.005));
  // ViT-S/16 by the same closed form (C 384, 6 heads: the heads do not enter).
  const double Cs = 384;
  const double want_s = 2 * (3 * p * p * Cs * P + L * (12 * T * Cs * Cs + 2 * T * T * Cs) + Cs * K);
  CHECK(forward_gflops_per_image(build_model("vit-s16"), 224) == Approx(want_s / 1e9).epsilon(1e-12));
}

TEST_CASE("vit: patch tokens, pre-norm blocks with full attention and exact GELU, the head on the class token") {
  const ModelDesc m = build_model("vit-tiny", 10);
  CHECK_FALSE(m.tokens);
  const auto s = infer_shapes(m, 2, 32);
  CHECK(s[1] == Shape{2, 32, 4, 4});  // the 8x8 patch convolution's grid
  CHECK(s[2] == Shape{2, 17, 32});    // class token + 16 patches
  int attention = 0, norms = 0, gelus = 0;
  for (const LayerDesc& l : m.layers) {
    if (l.kind == LayerKind::Attention) {
      ++attention;
      CHECK_FALSE(l.attention.causal);
    }
    if (l.kind == LayerKind::LayerNorm) {
      ++norms;
      CHECK(l.ln.eps == 1e-6f);
    }
    if (l.kind == LayerKind::Gelu) {
      ++gelus;
      CHECK_FALSE(l.gelu.tanh);
    }
  }
  CHECK(attention == 2);
  CHECK(norms == 2 * 2 + 1);
  CHECK(gelus == 2);
  CHECK(m.layers[m.layers.size() - 2].kind == LayerKind::ClassToken);
  CHECK(m.layers.back().name == "head");
  CHECK(s.back() == Shape{2, 10});
}

TEST_CASE("vit: only image sizes that give the position table's grid fit") {
  const ModelDesc m = build_model("vit-b16");
  CHECK(m.min_image_size == 224);
  CHECK_NOTHROW(infer_shapes(m, 1, 239));
  CHECK_THROWS_WITH(infer_shapes(m, 1, 256),
                    "--image-size 256 does not fit vit-b16: its position table holds 196 patches but this size "
                    "gives 256 (a 16x16 grid); image sizes 224 to 239 fit");
  CHECK_THROWS_AS(infer_shapes(m, 1, 200), UsageError);
  CHECK(build_model("vit_b_16").name == "vit-b16");
}
