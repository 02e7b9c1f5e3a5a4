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

// What a listing says about a model beyond its layers.
struct ModelInfo {
  std::string name;                  // canonical
  std::vector<std::string> aliases;
  std::string note;                  // provenance and deliberate deviations, one line
  bool test_network = false;         // small nets for tests, not benchmarks
};
ModelInfo model_info(const std::string& name);  // accepts aliases; UsageError like canonical_model_name

}  // namespace mg
