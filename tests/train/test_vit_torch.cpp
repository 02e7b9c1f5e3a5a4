// vit-tiny on the CPU backend against a Vision Transformer written plainly in PyTorch (vit_torch_reference.py,
// float64, torchvision's vit_b_16 layout): with the same parameters, images and labels, the logits, the loss and
// every parameter's gradient agree (the patch convolution's NHWC/OHWI layouts, the class token and position table,
// full attention, exact GELU, layer norm eps 1e-6, the head on the class token); and trained from the same weights
// and batch, the losses agree with torch.optim's step for step (torch_reference.h). Skipped where python3-torch is
// not installed (scripts/deps.txt installs it).
#include <catch2/catch.hpp>

#include <string>

#include "train/torch_reference.h"

using namespace mg;

TEST_CASE("vit-tiny: logits, loss and every parameter gradient agree with PyTorch's at fp32", "[train][vit][torch]") {
  test::check_one_step("vit_torch_reference.py", "vit-tiny", 3, 32, 1e-5);
}

TEST_CASE("vit-tiny: eight AdamW steps' losses agree with torch.optim.AdamW's from the same weights and batch",
          "[train][vit][torch]") {
  test::check_eight_steps("vit_torch_reference.py", "vit-tiny", Optimizer::AdamW, 4, 32, 0.5);
}

TEST_CASE("vit-tiny: eight SGD steps' losses agree with torch.optim.SGD's from the same weights and batch",
          "[train][vit][torch]") {
  test::check_eight_steps("vit_torch_reference.py", "vit-tiny", Optimizer::Sgd, 4, 32, 0);
}
