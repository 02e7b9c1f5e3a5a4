// Appends layers to a ModelDesc in topological order, so the family files read like torchvision's modules.
// Every method returns the index of the layer it added, to be passed as the input of later layers.
#pragma once
#include <string>
#include <vector>

#include "models/layer_desc.h"

namespace mg {

class NetBuilder {
 public:
  NetBuilder(std::string model_name, int64_t num_classes);  // adds layer 0, the input

  static constexpr int kInput = 0;

  int conv(int in, const std::string& name, int64_t out_channels, int64_t k, int64_t stride = 1, int64_t pad = 0,
           bool bias = false);
  // Asymmetric kernels (inception's 1x7 / 7x1).
  int conv2(int in, const std::string& name, int64_t out_channels, int64_t kh, int64_t kw, int64_t pad_h,
            int64_t pad_w);
  int batch_norm(int in, const std::string& name, float eps);
  int relu(int in, const std::string& name);
  int max_pool(int in, const std::string& name, int64_t k, int64_t stride, int64_t pad = 0);
  int avg_pool(int in, const std::string& name, int64_t k, int64_t stride, int64_t pad = 0);
  int global_avg_pool(int in, const std::string& name);
  int flatten(int in, const std::string& name);
  // in_features > 0 pins the input width (see LinearParams::in_features).
  int linear(int in, const std::string& name, int64_t out_features, int64_t in_features = 0);
  int dropout(int in, const std::string& name, float p);
  int add(int a, int b, const std::string& name);
  int concat(const std::vector<int>& ins, const std::string& name);
  // Transformer pieces (models/gpt2.cpp, models/vit.cpp): token + position embedding of the input ids, layer norm, GELU,
  // attention over a fused qkv, and {N,T,C} -> {N*T,C}.
  int embedding(const std::string& name, int64_t vocab, int64_t dim, int64_t max_positions);
  int layer_norm(int in, const std::string& name, float eps = 1e-5f);
  int gelu(int in, const std::string& name, bool tanh = true);
  int attention(int in, const std::string& name, int64_t heads, bool causal);
  int token_flatten(int in, const std::string& name);
  // ViT's (models/vit.cpp): a patch grid to class token + patches + positions, and the class token back out.
  int patch_tokens(int in, const std::string& name, int64_t patches);
  int class_token(int in, const std::string& name);

  int64_t num_classes() const { return desc_.num_classes; }

  // Sets the default image size and derives min_image_size: the smallest size from which every size up to the
  // default builds, so the minimum is computed from the layers rather than remembered.
  ModelDesc finish(int64_t default_image_size);
  // A language model's: token ids in, sequences of 1 to default_seq_len tokens (the position table's length).
  ModelDesc finish_tokens(int64_t default_seq_len);

 private:
  int push(LayerDesc l, std::vector<int> inputs);
  ModelDesc desc_;
};

}  // namespace mg
