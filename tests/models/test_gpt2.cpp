// GPT-2's description: parameter count against Hugging Face's gpt2 (the head tied to the token table), forward
// FLOPs against the closed form, the block structure, the sequence lengths it accepts, and the ties a description
// may not make.
#include <catch2/catch.hpp>

#include "core/error.h"
#include "models/registry.h"

using namespace mg;

TEST_CASE("gpt2: 124,439,808 parameters as published, the head tied to the token table") {
  const ModelDesc m = build_model("gpt2");
  CHECK(m.tokens);
  CHECK(m.num_classes == 50257);
  CHECK(count_params(m, 1024) == 124439808);  // HF gpt2, nanoGPT, llm.c
  CHECK(count_params(m, 1) == count_params(m, 1024));  // no parameter depends on the sequence length
  CHECK(count_params(build_model("gpt2-medium"), 1024) == 354823168);  // HF gpt2-medium
  // The same closed form at the test size: L (12 C^2 + 13 C) + (V + Tmax) C + 2 C (the table counted once).
  const int64_t L = 2, C = 64, V = 256, T = 64;
  CHECK(count_params(build_model("gpt2-tiny"), 16) == L * (12 * C * C + 13 * C) + (V + T) * C + 2 * C);
  // The head still describes its {V, C} weight (backends build from it), marked as the table's.
  const LayerDesc& head = m.layers.back();
  REQUIRE(head.tied_weight >= 0);
  CHECK(m.layers[static_cast<size_t>(head.tied_weight)].kind == LayerKind::Embedding);
  const std::vector<ParamShape> p = layer_params(head, {Shape{1024, 768}});
  REQUIRE(p.size() == 1);
  CHECK(p[0].shape == Shape{50257, 768});
  CHECK(p[0].tied_layer == head.tied_weight);
}

TEST_CASE("gpt2: forward FLOPs per sequence are 2 T (12 L C^2 + V C) plus attention's 4 L T^2 C") {
  const double V = 50257;
  struct Size {
    const char* name;
    double L, C;
  };
  for (const Size& s : {Size{"gpt2", 12, 768}, Size{"gpt2-medium", 24, 1024}}) {
    for (const double T : {1024.0, 128.0}) {
      INFO(s.name << " T " << T);
      const double L = s.L, C = s.C;
      const double want = 2 * T * (12 * L * C * C + V * C) + 4 * L * T * T * C;
      CHECK(forward_gflops_per_image(build_model(s.name), static_cast<int64_t>(T)) ==
            Approx(want / 1e9).epsilon(1e-12));
    }
  }
  // What `mgbench models` shows for a 1024-token sequence: 291.6 and 827.0 GFLOPs.
  CHECK(forward_gflops_per_image(build_model("gpt2"), 1024) == Approx(291.6483072).epsilon(1e-12));
  CHECK(forward_gflops_per_image(build_model("gpt2-medium"), 1024) == Approx(826.951073792).epsilon(1e-12));
}

TEST_CASE("gpt2: pre-norm blocks with causal attention, ln_f, rows of logits from the tied head") {
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

TEST_CASE("a tied weight must be an earlier layer's weight of the same shape, or the description is refused") {
  const ModelDesc good = build_model("gpt2-tiny");
  const size_t head = good.layers.size() - 1;
  auto refused = [&](ModelDesc m, const std::string& why) {
    INFO(why);
    try {
      infer_shapes(m, 2, 16);
      FAIL("accepted");
    } catch (const UsageError& e) {
      FAIL("a user error, not a broken description: " << e.what());
    } catch (const Error& e) {
      const std::string what = e.what();
      INFO(what);
      CHECK(what.find("invalid model description: gpt2-tiny layer " + std::to_string(head) + " 'lm_head'") == 0);
      CHECK(what.find(why) != std::string::npos);
    }
  };
  ModelDesc later = good;
  later.layers[head].tied_weight = static_cast<int>(head);  // itself: not earlier
  refused(later, "not an earlier layer");
  ModelDesc missing = good;
  missing.layers[head].tied_weight = 1000;
  refused(missing, "tied to layer 1000, which is not an earlier layer");
  ModelDesc input = good;
  input.layers[head].tied_weight = 0;
  refused(input, "not an earlier layer");
  ModelDesc no_weight = good;  // ln_f has gamma and beta, no weight
  no_weight.layers[head].tied_weight = static_cast<int>(head) - 2;
  refused(no_weight, "which has no weight of its own");
  ModelDesc other_shape = good;  // the first block's c_attn: {3C, C}, not {V, C}
  int c_attn = 0;
  while (good.layers[static_cast<size_t>(c_attn)].name != "h.0.attn.c_attn") ++c_attn;
  other_shape.layers[head].tied_weight = c_attn;
  refused(other_shape, "but its weight is [256,64] and that one [192,64]");
  ModelDesc forward_tie = good;  // c_attn {3C, C} would read the head's weight, which comes later
  forward_tie.layers[static_cast<size_t>(c_attn)].tied_weight = static_cast<int>(head);
  CHECK_THROWS_WITH(infer_shapes(forward_tie, 2, 16),
                    Catch::Contains("'h.0.attn.c_attn': its weight is tied to layer " + std::to_string(head) +
                                    ", which is not an earlier layer"));
  ModelDesc from_norm = good;  // a layer with no weight cannot tie one
  from_norm.layers[head - 2].tied_weight = 1;
  try {
    infer_shapes(from_norm, 2, 16);
    FAIL("accepted");
  } catch (const Error& e) {
    const std::string what = e.what();
    CHECK(what.find("'ln_f': its weight is tied to layer 1 but it has no weight") != std::string::npos);
  }
}
