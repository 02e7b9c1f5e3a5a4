#include "models/net_builder.h"

#include <utility>

#include "core/error.h"

namespace mg {

namespace {
// A layer description with its kind and name set, the rest default.
LayerDesc named(LayerKind kind, const std::string& name) {
  LayerDesc l;
  l.kind = kind;
  l.name = name;
  return l;
}
}  // namespace

NetBuilder::NetBuilder(std::string model_name, int64_t num_classes) {
  if (num_classes < 1)
    throw UsageError("--num-classes " + std::to_string(num_classes) + " must be at least 1");
  desc_.name = std::move(model_name);
  desc_.num_classes = num_classes;
  LayerDesc in;
  in.kind = LayerKind::Input;
  in.name = "input";
  desc_.layers.push_back(in);
}

int NetBuilder::push(LayerDesc l, std::vector<int> inputs) {
  l.inputs = std::move(inputs);
  desc_.layers.push_back(std::move(l));
  return static_cast<int>(desc_.layers.size()) - 1;
}

int NetBuilder::conv(int in, const std::string& name, int64_t out_channels, int64_t k, int64_t stride, int64_t pad,
                     bool bias) {
  return push(conv_layer(name, out_channels, k, stride, pad, 1, bias), {in});
}

int NetBuilder::conv2(int in, const std::string& name, int64_t out_channels, int64_t kh, int64_t kw, int64_t pad_h,
                      int64_t pad_w) {
  LayerDesc l = conv_layer(name, out_channels, 1, 1, 0);
  l.conv.kh = kh;
  l.conv.kw = kw;
  l.conv.pad_h = pad_h;
  l.conv.pad_w = pad_w;
  return push(std::move(l), {in});
}

int NetBuilder::batch_norm(int in, const std::string& name, float eps) {
  LayerDesc l = named(LayerKind::BatchNorm, name);
  l.bn.eps = eps;
  return push(std::move(l), {in});
}

int NetBuilder::relu(int in, const std::string& name) {
  return push(named(LayerKind::Relu, name), {in});
}

namespace {
LayerDesc pool(LayerKind kind, const std::string& name, int64_t k, int64_t stride, int64_t pad) {
  LayerDesc l = named(kind, name);
  l.pool.kh = l.pool.kw = k;
  l.pool.stride_h = l.pool.stride_w = stride;
  l.pool.pad_h = l.pool.pad_w = pad;
  return l;
}
}  // namespace

int NetBuilder::max_pool(int in, const std::string& name, int64_t k, int64_t stride, int64_t pad) {
  return push(pool(LayerKind::MaxPool, name, k, stride, pad), {in});
}

int NetBuilder::avg_pool(int in, const std::string& name, int64_t k, int64_t stride, int64_t pad) {
  return push(pool(LayerKind::AvgPool, name, k, stride, pad), {in});
}

int NetBuilder::global_avg_pool(int in, const std::string& name) {
  return push(named(LayerKind::GlobalAvgPool, name), {in});
}

int NetBuilder::flatten(int in, const std::string& name) {
  return push(named(LayerKind::Flatten, name), {in});
}

int NetBuilder::linear(int in, const std::string& name, int64_t out_features, int64_t in_features) {
  LayerDesc l = named(LayerKind::Linear, name);
  l.linear.out_features = out_features;
  l.linear.in_features = in_features;
  return push(std::move(l), {in});
}

int NetBuilder::dropout(int in, const std::string& name, float p) {
  LayerDesc l = named(LayerKind::Dropout, name);
  l.dropout.p = p;
  return push(std::move(l), {in});
}

int NetBuilder::add(int a, int b, const std::string& name) {
  LayerDesc l = named(LayerKind::Add, name);
  return push(std::move(l), {a, b});
}

int NetBuilder::concat(const std::vector<int>& ins, const std::string& name) {
  LayerDesc l = named(LayerKind::Concat, name);
  return push(std::move(l), ins);
}

int NetBuilder::embedding(const std::string& name, int64_t vocab, int64_t dim, int64_t max_positions) {
  LayerDesc l = named(LayerKind::Embedding, name);
  l.embedding = {vocab, dim, max_positions};
  return push(std::move(l), {kInput});
}

int NetBuilder::layer_norm(int in, const std::string& name, float eps) {
  LayerDesc l = named(LayerKind::LayerNorm, name);
  l.ln.eps = eps;
  return push(std::move(l), {in});
}

int NetBuilder::gelu(int in, const std::string& name, bool tanh) {
  LayerDesc l = named(LayerKind::Gelu, name);
  l.gelu.tanh = tanh;
  return push(std::move(l), {in});
}

int NetBuilder::attention(int in, const std::string& name, int64_t heads, bool causal) {
  LayerDesc l = named(LayerKind::Attention, name);
  l.attention = {heads, causal};
  return push(std::move(l), {in});
}

int NetBuilder::token_flatten(int in, const std::string& name) {
  return push(named(LayerKind::TokenFlatten, name), {in});
}

int NetBuilder::patch_tokens(int in, const std::string& name, int64_t patches) {
  LayerDesc l = named(LayerKind::PatchTokens, name);
  l.patch_tokens.patches = patches;
  return push(std::move(l), {in});
}

int NetBuilder::class_token(int in, const std::string& name) {
  return push(named(LayerKind::ClassToken, name), {in});
}

ModelDesc NetBuilder::finish_tokens(int64_t default_seq_len) {
  desc_.tokens = true;
  desc_.default_image_size = default_seq_len;
  desc_.min_image_size = 1;
  infer_shapes(desc_, 1, default_seq_len);  // an inconsistent description fails here, at build time
  return desc_;
}

ModelDesc NetBuilder::finish(int64_t default_image_size) {
  desc_.default_image_size = default_image_size;
  // Fails loudly here, at build time, if the description is inconsistent at its own default size.
  infer_shapes(desc_, 1, default_image_size);
  int64_t min = default_image_size;
  while (min > 1) {
    try {
      infer_shapes(desc_, 1, min - 1);
    } catch (const UsageError&) {
      break;
    }
    --min;
  }
  desc_.min_image_size = min;
  return desc_;
}

}  // namespace mg
