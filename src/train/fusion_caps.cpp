#include "train/fusion_caps.h"

#include <algorithm>

namespace mg {

bool FusionCaps::takes_relu(LayerKind k) const {
  return std::find(relu_into.begin(), relu_into.end(), k) != relu_into.end();
}

FusionCaps fusion_caps(const Backend& be, Precision p) {
  FusionCaps caps;
  for (int k = static_cast<int>(LayerKind::Input); k <= static_cast<int>(LayerKind::LRN); ++k) {
    if (be.fuses_relu(static_cast<LayerKind>(k))) caps.relu_into.push_back(static_cast<LayerKind>(k));
  }
  caps.batch_norm_adds = be.fuses_add(LayerKind::BatchNorm, p);
  return caps;
}

}  // namespace mg
