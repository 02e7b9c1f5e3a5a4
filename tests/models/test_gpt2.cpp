// GPT-2's description: parameter count against Hugging Face's gpt2 (tied embeddings) plus the untied head,
// forward FLOPs against the closed form, the block structure, and the sequence lengths it accepts.
#include <catch2/catch.hpp>

#include "core/error.h"
#include "models/registry.h"

using namespace mg;

TEST_CASE("gpt2: 124,439,808 parameters as published, plus its untied 50257 x 768 head") {
  const ModelDesc m = build_model("gpt2");
  CHECK(m.tokens);
  CHECK(m.num_classes == 50257);
  CHECK(count_params(m, 1024) == 124439808 + 50257 * 768);
  CHECK(count_params(m, 1) == count_params(m, 1024));  // no parameter depends on the sequence length
  CHECK(count_params(build_model("gpt2-medium"), 1024) == 354823168 + 50257 * 1024);  // HF gpt2-medium
  // The same closed form at the test size: L (12 C^2 + 13 C) + (2 V + Tmax) C + 2 C.
  const int64_t L = 2, C = 64, V = 256, T = 64;
  CHECK(count_params(build_model("gpt2-tiny"), 16) == L * (12 * C * C + 13 * C) + (2 * V + T) * C + 2 * C);
}

TEST_CASE("gpt2: forward FLOPs per sequence are 2 T (12 L C^2 + V C) plus attention's 4 L T^2 C") {
  const double L = 12, C = 768, V = 50257;
  for (const double T : {1024.0, 128.0}) {
    const double want = 2 * T * (12 * L * C * C + V * C) + 4 * L * T * T * C;
    CHECK(forward_gflops_per_image(build_model("gpt2"), static_cast<int64_t>(T)) == Approx(want / 1e9).epsilon(1e-12));
  }
}

TEST_CASE("gpt2: pre-norm blocks with causal attention, ln_f, rows of logits from an untied head") {
  const ModelDesc m = build_model("gpt2-tiny");
  const auto s = infer_shapes(m, 2, 16);
  CHECK(s[0] == Shape{2, 16});
  int attention = 0, norms = 0, gelus = 0;
  for (const LayerDesc& l : m.layers) {
    if (l.kind == LayerKind::Attention) {
      ++attention;
      CHECK(l.attention.causal);
      CHECK(l.attention.heads == 2);
    }
    norms += l.kind == LayerKind::LayerNorm;
    gelus += l.kind == LayerKind::Gelu;
  }
  CHECK(attention == 2);
  CHECK(norms == 2 * 2 + 1);
  CHECK(gelus == 2);
  CHECK(m.layers.back().name == "lm_head");
  CHECK_FALSE(m.layers.back().linear.bias);
  CHECK(s.back() == Shape{32, 256});
  CHECK(s[s.size() - 2] == Shape{32, 64});  // ln_f's output as one row per token
}

TEST_CASE("gpt2: sequence lengths 1 to the position table's, others refused naming --seq-len") {
  const ModelDesc m = build_model("gpt2-tiny");
  CHECK_NOTHROW(infer_shapes(m, 1, 1));
  CHECK_NOTHROW(infer_shapes(m, 1, 64));
  CHECK_THROWS_WITH(infer_shapes(m, 1, 65), "--seq-len 65 does not fit gpt2-tiny (1 to 64)");
  CHECK_THROWS_AS(infer_shapes(m, 1, 0), UsageError);
  CHECK(build_model("gpt2-small").name == "gpt2");
}
