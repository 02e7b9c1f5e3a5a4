// The layer cases of a model's pre-run check: one per distinct layer the model runs (kind, kernel, stride,
// padding, groups, bias, channel counts, the ReLU the backend folds into it), at batch 2 and a spatial size cut
// to what the layer's window needs, so a failure is always on a shape the benchmark would run.
#pragma once
#include <vector>

#include "backend/backend.h"
#include "check/layer_check.h"
#include "models/layer_desc.h"

namespace mg::check {

// Every layer of `m` but the input is covered by exactly one case (LayerCase::layers lists the layers); a ReLU
// that `be` folds into its BatchNorm or Add is checked as that layer's fused ReLU rather than on its own.
std::vector<LayerCase> model_layer_cases(const ModelDesc& m, const Backend& be);

}  // namespace mg::check
