#include "train/relu_fusion.h"

namespace mg {

std::vector<int> relu_fusion(const ModelDesc& m, const Backend& be) {
  const size_t n = m.layers.size();
  std::vector<int> readers(n, 0), fused(n, -1);
  for (const LayerDesc& l : m.layers) {
    for (int j : l.inputs) ++readers[j];
  }
  for (size_t i = 1; i < n; ++i) {
    const LayerDesc& l = m.layers[i];
    if (l.kind != LayerKind::Relu || l.inputs.size() != 1) continue;
    const int j = l.inputs[0];
    if (j == 0 || readers[j] != 1 || !be.fuses_relu(m.layers[j].kind)) continue;
    fused[i] = j;
  }
  return fused;
}

}  // namespace mg
