// The network families the registry offers; each builder lives in its own file (resnet.cpp, vgg.cpp, ...).
#pragma once
#include <cstdint>
#include <string>

#include "models/layer_desc.h"

namespace mg {

ModelDesc build_resnet(int depth, int64_t num_classes);  // 18, 34, 50, 101, 152
ModelDesc build_vgg(int depth, int64_t num_classes);     // 16, 19
ModelDesc build_alexnet(int64_t num_classes);
ModelDesc build_inception3(int64_t num_classes);
ModelDesc build_tiny(bool batch_norm, int64_t num_classes);

// A GPT-2 language model's size; its classes are its vocabulary.
struct Gpt2Config {
  std::string name;
  int64_t layers, heads, dim, vocab, max_positions;
};
ModelDesc build_gpt2(const Gpt2Config& c);

// A Vision Transformer's size: patch x patch pixels per token, image_size the one its position table fits.
struct VitConfig {
  std::string name;
  int64_t layers, heads, dim, patch, image_size;
};
ModelDesc build_vit(const VitConfig& c, int64_t num_classes);

}  // namespace mg
