#include "train/relu_fusion.h"

namespace mg {

std::vector<int> relu_fusion(const ModelDesc& m, const Backend& be) {
  const size_t n = m.layers.size();
  const std::vector<std::vector<int>> readers = layer_readers(m);
  std::vector<int> fused(n, -1);
  for (size_t i = 1; i < n; ++i) {
    const LayerDesc& l = m.layers[i];
    if (l.kind != LayerKind::Relu || l.inputs.size() != 1) continue;
    const int j = l.inputs[0];
    if (j == 0 || readers[j].size() != 1 || !be.fuses_relu(m.layers[j].kind)) continue;
    fused[i] = j;
  }
  return fused;
}

}  // namespace mg
