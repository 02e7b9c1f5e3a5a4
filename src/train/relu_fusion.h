// Which ReLUs a network folds into the layer that feeds them (LayerOptions::relu): decided once, here, for
// every backend, from the model's connections and what the backend's fuses_relu offers.
//
// A ReLU is folded when it is the only reader of a BatchNorm or Add output (as in every ResNet block) and the
// backend computes that kind with a ReLU: the pair then keeps one output and one gradient, and the network has no
// separate ReLU layer (on CPU no separate pass either; CUDA runs its ReLU kernels inside the layer). With more
// than one reader the pre-ReLU value is needed elsewhere, so the pair stays two layers.
#pragma once
#include <vector>

#include "backend/backend.h"
#include "models/layer_desc.h"
#include "train/fusion_caps.h"

namespace mg {

// fused[i] = j when ReLU layer i is computed by layer j; -1 for every other layer.
std::vector<int> relu_fusion(const ModelDesc& m, const FusionCaps& caps);
std::vector<int> relu_fusion(const ModelDesc& m, const Backend& be);

}  // namespace mg
