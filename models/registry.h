// The catalogue of networks mgbench can train.
#pragma once
#include <string>
#include <vector>

#include "models/layer_desc.h"

namespace mg {

// Canonical model names, in listing order.
std::vector<std::string> model_names();
// Resolves aliases ("resnet" -> "resnet50"); throws UsageError naming the allowed values for an unknown name.
std::string canonical_model_name(const std::string& name);
// Builds the description; num_classes > 0.
ModelDesc build_model(const std::string& name, int64_t num_classes = 1000);

}  // namespace mg
