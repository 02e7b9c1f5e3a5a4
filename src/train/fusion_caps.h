// What a backend offers the graph's fusions, as plain data: the graph plan (graph_plan.h) and the ReLU folding
// (relu_fusion.h) are decided from this alone, so they can be computed and tested without a backend.
#pragma once
#include <vector>

#include "backend/backend.h"
#include "models/layer_desc.h"

namespace mg {

struct FusionCaps {
  std::vector<LayerKind> relu_into;  // kinds that compute a ReLU folded into them (Backend::fuses_relu)
  bool batch_norm_adds = false;      // batch norm computes the residual Add after it (Backend::fuses_add)
  bool takes_relu(LayerKind k) const;
};

// What be offers, the Add fusion at precision p.
FusionCaps fusion_caps(const Backend& be, Precision p);

}  // namespace mg
