// gpt2-tiny on the CPU backend against GPT-2 written plainly in PyTorch (gpt2_torch_reference.py, float64): with
// the same parameters, tokens and labels, the logits, the loss and every parameter's gradient agree; and trained
// from the same weights and batch, the losses agree with torch.optim's step for step (torch_reference.h). Skipped
// where python3-torch is not installed (scripts/deps.txt installs it).
#include <catch2/catch.hpp>

#include <string>

#include "support/skip.h"
#include "train/torch_reference.h"

using namespace mg;

TEST_CASE("gpt2-tiny: logits, loss and every parameter gradient agree with PyTorch's at fp32") {
  test::check_one_step("gpt2_torch_reference.py", "gpt2-tiny", 2, 24, 1e-5);
}

TEST_CASE("gpt2-tiny: eight AdamW steps' losses agree with torch.optim.AdamW's from the same weights and batch",
          "[train][gpt2][torch]") {
  test::check_eight_steps("gpt2_torch_reference.py", "gpt2-tiny", Optimizer::AdamW, 2, 24, 0.5);
}

TEST_CASE("gpt2-tiny: eight SGD steps' losses agree with torch.optim.SGD's from the same weights and batch",
          "[train][gpt2][torch]") {
  test::check_eight_steps("gpt2_torch_reference.py", "gpt2-tiny", Optimizer::Sgd, 2, 24, 0);
}

// Hidden, as it takes minutes and gigabytes here (run it by its tag); float32 on both sides, hence the looser bound.
TEST_CASE("gpt2: five AdamW steps' losses agree with torch.optim.AdamW's from the same weights and batch",
          "[.gpt2-full]") {
  const std::string python = test::torch_python();
  if (python.empty()) MG_SKIP("python3-torch is not installed");
  const test::Trajectories t =
      test::run_both(python, "gpt2_torch_reference.py", "gpt2", Optimizer::AdamW, 5, 2, 32, "float32");
  for (size_t s = 0; s < t.mg.size(); ++s) WARN("step " << s + 1 << ": " << t.mg[s] << " vs PyTorch's " << t.torch[s]);
  test::check_agree(t, 1e-3);
}
