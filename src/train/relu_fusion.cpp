#include "train/relu_fusion.h"

namespace mg {

std::vector<int> relu_fusion(const ModelDesc& m, const FusionCaps& caps) {
  const size_t n = m.layers.size();
  const std::vector<std::vector<int>> readers = layer_readers(m);
  std::vector<int> fused(n, -1);
  for (size_t i = 1; i < n; ++i) {
    const LayerDesc& l = m.layers[i];
    if (l.kind != LayerKind::Relu || l.inputs.size() != 1) continue;
    const int j = l.inputs[0];
    if (j == 0 || readers[j].size() != 1 || !caps.takes_relu(m.layers[j].kind)) continue;
    fused[i] = j;
  }
  return fused;
}

// The ReLU folding does not depend on precision; the capabilities' Add fusion is not looked at.
std::vector<int> relu_fusion(const ModelDesc& m, const Backend& be) {
  return relu_fusion(m, fusion_caps(be, Precision::FP32));
}

}  // namespace mg
