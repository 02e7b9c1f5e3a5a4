#include "models/registry.h"

#include <functional>

#include "core/error.h"
#include "models/families.h"

namespace mg {

namespace {

struct Entry {
  ModelInfo info;
  std::function<ModelDesc(int64_t)> build;
};

const std::vector<Entry>& catalogue() {
  static const std::vector<Entry> entries = {
      {{"resnet18", {}, "torchvision resnet18", false}, [](int64_t c) { return build_resnet(18, c); }},
      {{"resnet34", {}, "torchvision resnet34", false}, [](int64_t c) { return build_resnet(34, c); }},
      {{"resnet50", {"resnet"}, "torchvision resnet50 (v1.5: stride on the 3x3 conv)", false},
       [](int64_t c) { return build_resnet(50, c); }},
      {{"resnet101", {}, "torchvision resnet101 (v1.5)", false}, [](int64_t c) { return build_resnet(101, c); }},
      {{"resnet152", {}, "torchvision resnet152 (v1.5)", false}, [](int64_t c) { return build_resnet(152, c); }},
      {{"vgg16", {}, "torchvision vgg16 (no BN); image sizes 224-255 only", false},
       [](int64_t c) { return build_vgg(16, c); }},
      {{"vgg19", {}, "torchvision vgg19 (no BN); image sizes 224-255 only", false},
       [](int64_t c) { return build_vgg(19, c); }},
      {{"alexnet", {}, "torchvision alexnet; image sizes 223-254 only", false},
       [](int64_t c) { return build_alexnet(c); }},
      {{"inception3", {"inception_v3"}, "torchvision inception_v3 with aux_logits=False", false},
       [](int64_t c) { return build_inception3(c); }},
      {{"gpt2", {"gpt2-small"},
        "GPT-2 small (HF gpt2, 12x768, 12 heads); language model: size = sequence length, classes = its "
        "50257-token vocabulary; lm_head tied to wte (124.4 M parameters, as published)",
        false},
       [](int64_t) { return build_gpt2({"gpt2", 12, 12, 768, 50257, 1024}); }},
      {{"gpt2-medium", {},
        "GPT-2 medium (HF gpt2-medium, 24x1024, 16 heads); lm_head tied to wte (354.8 M parameters, as "
        "published)",
        false},
       [](int64_t) { return build_gpt2({"gpt2-medium", 24, 16, 1024, 50257, 1024}); }},
      {{"vit-b16", {"vit_b_16"},
        "ViT-B/16 (torchvision vit_b_16, timm vit_base_patch16_224: 12x768, 12 heads, 16x16 patches); image "
        "sizes 224-239 (the position table's 14x14 grid)",
        false},
       [](int64_t c) { return build_vit({"vit-b16", 12, 12, 768, 16, 224}, c); }},
      {{"vit-s16", {"vit_s_16"},
        "ViT-S/16 (timm vit_small_patch16_224: 12x384, 6 heads, 16x16 patches); image sizes 224-239", false},
       [](int64_t c) { return build_vit({"vit-s16", 12, 6, 384, 16, 224}, c); }},
      {{"tiny", {}, "test network: 2 conv+BN+ReLU blocks, trains in seconds on CPU", true},
       [](int64_t c) { return build_tiny(true, c); }},
      {{"tiny_nobn", {}, "test network: tiny without batch-norm, for exact gradient checks", true},
       [](int64_t c) { return build_tiny(false, c); }},
      {{"gpt2-tiny", {}, "test network: GPT-2 with 2 layers, 2 heads, C=64, 256 byte tokens, up to 64 positions", true},
       [](int64_t) { return build_gpt2({"gpt2-tiny", 2, 2, 64, 256, 64}); }},
      {{"vit-tiny", {}, "test network: ViT with 2 layers, 2 heads, C=32, 8x8 patches of a 32x32 image", true},
       [](int64_t c) { return build_vit({"vit-tiny", 2, 2, 32, 8, 32}, c); }},
  };
  return entries;
}

const Entry& find(const std::string& name) {
  for (const Entry& e : catalogue()) {
    if (e.info.name == name) return e;
    for (const std::string& a : e.info.aliases)
      if (a == name) return e;
  }
  std::string allowed;
  for (const Entry& e : catalogue()) {
    allowed += (allowed.empty() ? "" : ", ") + e.info.name;
    for (const std::string& a : e.info.aliases) allowed += ", " + a;
  }
  throw UsageError("unknown model '" + name + "' (allowed: " + allowed + ")");
}

}  // namespace

std::vector<std::string> model_names() {
  std::vector<std::string> names;
  for (const Entry& e : catalogue()) names.push_back(e.info.name);
  return names;
}

std::string canonical_model_name(const std::string& name) { return find(name).info.name; }

ModelInfo model_info(const std::string& name) { return find(name).info; }

ModelDesc build_model(const std::string& name, int64_t num_classes) {
  const Entry& e = find(name);
  if (num_classes < 1)
    throw UsageError("--num-classes " + std::to_string(num_classes) + " must be at least 1");
  return e.build(num_classes);
}

}  // namespace mg
