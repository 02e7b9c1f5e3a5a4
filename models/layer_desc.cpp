#include "models/layer_desc.h"

#include <string>
#include <utility>

#include "core/error.h"

namespace mg {

const char* layer_kind_name(LayerKind k) {
  switch (k) {
    case LayerKind::Input: return "input";
    case LayerKind::Conv: return "conv";
    case LayerKind::BatchNorm: return "batchnorm";
    case LayerKind::Relu: return "relu";
    case LayerKind::MaxPool: return "maxpool";
    case LayerKind::AvgPool: return "avgpool";
    case LayerKind::GlobalAvgPool: return "global_avgpool";
    case LayerKind::Flatten: return "flatten";
    case LayerKind::Linear: return "linear";
    case LayerKind::Add: return "add";
    case LayerKind::Concat: return "concat";
    case LayerKind::Dropout: return "dropout";
    case LayerKind::LRN: return "lrn";
    case LayerKind::Embedding: return "embedding";
    case LayerKind::LayerNorm: return "layernorm";
    case LayerKind::Gelu: return "gelu";
    case LayerKind::Attention: return "attention";
    case LayerKind::TokenFlatten: return "token_flatten";
    case LayerKind::PatchTokens: return "patch_tokens";
    case LayerKind::ClassToken: return "class_token";
  }
  return "?";
}

namespace {

// Why a size failed: too small (a spatial dimension reached zero) is reported with the model's minimum;
// a classifier mismatch with the range of sizes that fit.
enum class Fit { Ok, TooSmall, Mismatch };

struct Failure {
  Fit fit = Fit::Ok;
  std::string detail;
};

std::string where(const ModelDesc& m, size_t i) {
  return m.name + " layer " + std::to_string(i) + " '" + m.layers[i].name + "'";
}

// Structural errors are bugs in a model description, not user input, so they are Error, not UsageError.
[[noreturn]] void bad_model(const ModelDesc& m, size_t i, const std::string& what) {
  throw Error("invalid model description: " + where(m, i) + ": " + what);
}

std::vector<Shape> inputs_of(const LayerDesc& l, const std::vector<Shape>& shapes) {
  std::vector<Shape> in;
  for (int i : l.inputs) in.push_back(shapes[static_cast<size_t>(i)]);
  return in;
}

// How many inputs a kind takes (Input: none, it is the network's).
std::pair<size_t, size_t> input_range(LayerKind k) {
  switch (k) {
    case LayerKind::Input: return {0, 0};
    case LayerKind::Add: return {2, 2};
    case LayerKind::Concat: return {2, 1024};
    default: return {1, 1};
  }
}

std::string count_text(const LayerDesc& l, size_t n) {
  const auto [lo, hi] = input_range(l.kind);
  const std::string range = lo == hi ? std::to_string(lo) : std::to_string(lo) + ".." + std::to_string(hi);
  return "layer " + l.name + " takes " + range + " input(s), got " + std::to_string(n);
}

// The rank a model must feed a kind: models flatten explicitly before a Linear and concat feature maps only,
// where a backend layer on its own accepts more.
size_t model_input_rank(LayerKind k) {
  switch (k) {
    case LayerKind::Conv:
    case LayerKind::MaxPool:
    case LayerKind::AvgPool:
    case LayerKind::GlobalAvgPool:
    case LayerKind::Flatten:
    case LayerKind::Concat:
    case LayerKind::PatchTokens: return 4;
    case LayerKind::Embedding: return 2;
    case LayerKind::Attention:
    case LayerKind::TokenFlatten:
    case LayerKind::ClassToken: return 3;
    default: return 0;
  }
}

const ParamShape* weight_of(const std::vector<ParamShape>& params) {
  for (const ParamShape& p : params)
    if (p.name == "weight") return &p;
  return nullptr;
}

// A tie must name an earlier layer that owns a weight of exactly this layer's weight's shape.
void check_tie(const ModelDesc& m, size_t i, const std::vector<ParamShape>& params,
               const std::vector<std::vector<ParamShape>>& earlier) {
  const int k = m.layers[i].tied_weight;
  if (k < 0) return;
  const std::string tie = "its weight is tied to layer " + std::to_string(k);
  if (k == 0 || static_cast<size_t>(k) >= i) bad_model(m, i, tie + ", which is not an earlier layer");
  const ParamShape* own = weight_of(params);
  const ParamShape* target = weight_of(earlier[static_cast<size_t>(k)]);
  if (!own) bad_model(m, i, tie + " but it has no weight");
  if (!target || target->tied_layer >= 0)
    bad_model(m, i, tie + " '" + m.layers[k].name + "', which has no weight of its own");
  if (own->shape != target->shape)
    bad_model(m, i, tie + " '" + m.layers[k].name + "' but its weight is " + own->shape.str() + " and that one " +
                        target->shape.str());
}

bool infer_impl(const ModelDesc& m, int64_t batch, int64_t image_size, std::vector<Shape>& shapes,
                Failure& fail) {
  shapes.clear();
  shapes.reserve(m.layers.size());
  std::vector<std::vector<ParamShape>> params(m.layers.size());  // for the ties to check against
  if (m.layers.empty() || m.layers[0].kind != LayerKind::Input)
    throw Error("invalid model description: " + m.name + ": layer 0 must be the input");
  for (size_t i = 0; i < m.layers.size(); ++i) {
    const LayerDesc& l = m.layers[i];
    for (int in : l.inputs)
      if (in < 0 || static_cast<size_t>(in) >= i)
        bad_model(m, i, "input " + std::to_string(in) + " is not an earlier layer");
    if (l.kind == LayerKind::Input) {
      if (i != 0) bad_model(m, i, "only layer 0 may be the input");
      shapes.push_back(m.tokens ? Shape{batch, image_size} : Shape{batch, 3, image_size, image_size});
      continue;
    }
    const auto [lo, hi] = input_range(l.kind);
    if (l.inputs.size() < lo || l.inputs.size() > hi) bad_model(m, i, count_text(l, l.inputs.size()));
    const std::vector<Shape> in = inputs_of(l, shapes);
    const size_t rank = model_input_rank(l.kind);
    for (const Shape& s : in)
      if ((rank && s.rank() != rank) || (l.kind == LayerKind::Linear && s.rank() == 4))
        bad_model(m, i, "expects a " + std::to_string(rank ? rank : 2) + "-D input, got " + s.str());
    LayerShapes ls = layer_shapes(l, in);
    switch (ls.fault) {
      case LayerFault::None: break;
      case LayerFault::Invalid: bad_model(m, i, ls.why);
      case LayerFault::TooSmall: fail = {Fit::TooSmall, where(m, i)}; return false;
      case LayerFault::Mismatch: {
        if (l.kind != LayerKind::Linear) {
          fail = {Fit::Mismatch, ls.why};
          return false;
        }
        const Shape& s = in[0];
        const LayerDesc& src = m.layers[l.inputs[0]];
        const Shape& pre = src.kind == LayerKind::Flatten ? shapes[src.inputs[0]] : s;
        fail = {Fit::Mismatch, "its classifier takes " + std::to_string(l.linear.in_features) +
                                   " features but this size gives " + std::to_string(s.c()) + " (a " +
                                   std::to_string(pre.h()) + "x" + std::to_string(pre.w()) + " map)"};
        return false;
      }
    }
    check_tie(m, i, ls.params, params);
    params[i] = std::move(ls.params);
    shapes.push_back(std::move(ls.out));
  }
  return true;
}

LayerShapes fault(LayerFault f, std::string why) {
  LayerShapes r;
  r.fault = f;
  r.why = std::move(why);
  return r;
}

LayerShapes conv_shapes(const LayerDesc& d, const Shape& x) {
  const ConvParams& c = d.conv;
  const std::string where = "conv layer " + d.name + ": ";
  if (x.rank() != 4) return fault(LayerFault::Invalid, where + "input " + x.str() + " must be {N,C,H,W}");
  if (c.out_channels <= 0 || c.kh <= 0 || c.kw <= 0 || c.stride_h <= 0 || c.stride_w <= 0 || c.pad_h < 0 ||
      c.pad_w < 0 || c.groups <= 0)
    return fault(LayerFault::Invalid, where + "out_channels, kernel, stride and groups must be positive, padding >= 0");
  if (x.c() % c.groups || c.out_channels % c.groups)
    return fault(LayerFault::Invalid, where + "groups " + std::to_string(c.groups) + " must divide input channels " +
                                          std::to_string(x.c()) + " and output channels " +
                                          std::to_string(c.out_channels));
  const int64_t oh = window_out_size(x.h(), c.kh, c.stride_h, c.pad_h, false);
  const int64_t ow = window_out_size(x.w(), c.kw, c.stride_w, c.pad_w, false);
  if (oh < 1 || ow < 1)
    return fault(LayerFault::TooSmall, where + "input " + x.str() + " is smaller than the " + std::to_string(c.kh) +
                                           "x" + std::to_string(c.kw) + " kernel");
  LayerShapes r;
  r.out = Shape{x.n(), c.out_channels, oh, ow};
  r.params.push_back({"weight", Shape{c.out_channels, c.kh, c.kw, x.c() / c.groups}});  // OHWI
  if (c.bias) r.params.push_back({"bias", Shape{c.out_channels}});
  return r;
}

LayerShapes pool_shapes(const LayerDesc& d, const Shape& x) {
  const std::string where = "pooling layer " + d.name + ": ";
  if (x.rank() != 4) return fault(LayerFault::Invalid, where + "input " + x.str() + " must be {N,C,H,W}");
  LayerShapes r;
  if (d.kind == LayerKind::GlobalAvgPool) {
    r.out = Shape{x.n(), x.c()};
    return r;
  }
  const PoolParams& p = d.pool;
  if (p.kh <= 0 || p.kw <= 0 || p.stride_h <= 0 || p.stride_w <= 0 || p.pad_h < 0 || p.pad_w < 0)
    return fault(LayerFault::Invalid, where + "kernel and stride must be positive, padding >= 0");
  // torch rejects padding beyond half the window; cuDNN and oneDNN would compute something else.
  if (2 * p.pad_h > p.kh || 2 * p.pad_w > p.kw)
    return fault(LayerFault::Invalid, where + "padding must be at most half the kernel size (as torch requires)");
  const int64_t oh = window_out_size(x.h(), p.kh, p.stride_h, p.pad_h, p.ceil_mode);
  const int64_t ow = window_out_size(x.w(), p.kw, p.stride_w, p.pad_w, p.ceil_mode);
  if (oh < 1 || ow < 1)
    return fault(LayerFault::TooSmall, where + "input " + x.str() + " is too small for the " + std::to_string(p.kh) +
                                           "x" + std::to_string(p.kw) + " window");
  r.out = Shape{x.n(), x.c(), oh, ow};
  return r;
}

LayerShapes linear_shapes(const LayerDesc& d, const Shape& x) {
  const LinearParams& l = d.linear;
  if (l.out_features <= 0)
    return fault(LayerFault::Invalid, "linear layer " + d.name + ": out_features must be positive, got " +
                                          std::to_string(l.out_features));
  const int64_t f = x.rank() == 3 ? x[2] : x.numel() / x.n();
  if (l.in_features > 0 && f != l.in_features)
    return fault(LayerFault::Mismatch, "linear layer " + d.name + ": expects " + std::to_string(l.in_features) +
                                           " input features, got " + std::to_string(f) + " from input " + x.str());
  LayerShapes r;
  r.out = x.rank() == 3 ? Shape{x[0], x[1], l.out_features} : Shape{x.n(), l.out_features};
  r.params.push_back({"weight", Shape{l.out_features, f}});
  if (l.bias) r.params.push_back({"bias", Shape{l.out_features}});
  return r;
}

LayerShapes embedding_shapes(const LayerDesc& d, const Shape& x) {
  const EmbeddingParams& e = d.embedding;
  const std::string where = "embedding layer " + d.name + ": ";
  if (x.rank() != 2) return fault(LayerFault::Invalid, where + "input " + x.str() + " must be token ids {N,T}");
  if (e.vocab <= 0 || e.dim <= 0 || e.max_positions <= 0)
    return fault(LayerFault::Invalid, where + "vocab, dim and max_positions must be positive");
  if (x[1] > e.max_positions)
    return fault(LayerFault::Invalid, where + "sequence length " + std::to_string(x[1]) + " exceeds the " +
                                          std::to_string(e.max_positions) + " positions it has");
  LayerShapes r;
  r.out = Shape{x[0], x[1], e.dim};
  r.params = {{"weight", Shape{e.vocab, e.dim}}, {"position", Shape{e.max_positions, e.dim}}};
  return r;
}

LayerShapes attention_shapes(const LayerDesc& d, const Shape& x) {
  const std::string where = "attention layer " + d.name + ": ";
  if (x.rank() != 3) return fault(LayerFault::Invalid, where + "input " + x.str() + " must be fused qkv {N,T,3C}");
  const int64_t h = d.attention.heads;
  if (h <= 0 || x[2] % 3 || (x[2] / 3) % h)
    return fault(LayerFault::Invalid, where + "the last dimension of " + x.str() + " must be 3C with C a multiple of " +
                                          std::to_string(h) + " heads");
  LayerShapes r;
  r.out = Shape{x[0], x[1], x[2] / 3};
  return r;
}

// The patch grid's NHWC memory is already {N, h*w, C}; the layer puts the class token in front and adds a
// position table fixed at build time, so an image size giving another grid does not fit the model.
LayerShapes patch_token_shapes(const LayerDesc& d, const Shape& x) {
  const std::string where = "patch-token layer " + d.name + ": ";
  if (x.rank() != 4) return fault(LayerFault::Invalid, where + "input " + x.str() + " must be a patch grid {N,C,h,w}");
  const int64_t patches = d.patch_tokens.patches;
  if (patches <= 0) return fault(LayerFault::Invalid, where + "the position table's patch count must be positive");
  if (x.h() * x.w() != patches)
    return fault(LayerFault::Mismatch, "its position table holds " + std::to_string(patches) +
                                           " patches but this size gives " + std::to_string(x.h() * x.w()) + " (a " +
                                           std::to_string(x.h()) + "x" + std::to_string(x.w()) + " grid)");
  LayerShapes r;
  r.out = Shape{x.n(), 1 + patches, x.c()};
  r.params = {{"class", Shape{x.c()}}, {"position", Shape{1 + patches, x.c()}}};
  return r;
}

LayerShapes token_shapes(const LayerDesc& l, const Shape& x) {
  LayerShapes r;
  switch (l.kind) {
    case LayerKind::Embedding: return embedding_shapes(l, x);
    case LayerKind::Attention: return attention_shapes(l, x);
    case LayerKind::LayerNorm:
      if (x.rank() == 4 || !(l.ln.eps > 0))
        return fault(LayerFault::Invalid, "layer-norm layer " + l.name + ": input " + x.str() +
                                              " must be {N,C} or {N,T,C} and eps > 0");
      r.params = {{"gamma", Shape{x.dims.back()}}, {"beta", Shape{x.dims.back()}}};
      r.out = x;
      return r;
    case LayerKind::TokenFlatten:
      if (x.rank() != 3) return fault(LayerFault::Invalid, "layer " + l.name + ": input " + x.str() + " must be {N,T,V}");
      r.out = Shape{x[0] * x[1], x[2]};
      return r;
    case LayerKind::PatchTokens: return patch_token_shapes(l, x);
    case LayerKind::ClassToken:
      if (x.rank() != 3) return fault(LayerFault::Invalid, "layer " + l.name + ": input " + x.str() + " must be {N,T,C}");
      r.out = Shape{x[0], x[2]};
      return r;
    default: r.out = x; return r;  // Gelu
  }
}

}  // namespace

static LayerShapes shapes_of(const LayerDesc& l, const std::vector<Shape>& in) {
  if (l.kind == LayerKind::Input)
    return fault(LayerFault::Invalid, "layer " + l.name + ": Input is the network input, not a computed layer");
  const auto [lo, hi] = input_range(l.kind);
  if (in.size() < lo || in.size() > hi) return fault(LayerFault::Invalid, count_text(l, in.size()));
  for (const Shape& s : in) {
    if (s.rank() < 2 || s.rank() > 4)
      return fault(LayerFault::Invalid,
                   "layer " + l.name + ": input shape " + s.str() + " is neither {N,C,H,W}, {N,T,C} nor {N,F}");
    for (int64_t v : s.dims)
      if (v <= 0)
        return fault(LayerFault::Invalid, "layer " + l.name + ": input shape " + s.str() + " has a non-positive size");
  }
  const Shape& x = in[0];
  LayerShapes r;
  switch (l.kind) {
    case LayerKind::Conv: return conv_shapes(l, x);
    case LayerKind::MaxPool:
    case LayerKind::AvgPool:
    case LayerKind::GlobalAvgPool: return pool_shapes(l, x);
    case LayerKind::Linear: return linear_shapes(l, x);
    case LayerKind::BatchNorm:
      if (!(l.bn.eps > 0) || !(l.bn.momentum >= 0 && l.bn.momentum <= 1))
        return fault(LayerFault::Invalid, "batch-norm layer " + l.name + ": eps must be > 0 and momentum in [0, 1]");
      r.params = {{"gamma", Shape{x.c()}}, {"beta", Shape{x.c()}}};
      r.out = x;
      return r;
    case LayerKind::Dropout:
      if (!(l.dropout.p >= 0.f && l.dropout.p < 1.f))
        return fault(LayerFault::Invalid, "dropout layer " + l.name + ": p must be in [0, 1), got " +
                                              std::to_string(l.dropout.p));
      r.out = x;
      return r;
    case LayerKind::Relu:
    case LayerKind::LRN: r.out = x; return r;
    case LayerKind::Flatten: r.out = Shape{x.n(), x.numel() / x.n()}; return r;
    case LayerKind::Add:
      if (in[0] != in[1])
        return fault(LayerFault::Invalid, "add layer " + l.name + ": inputs differ in shape, " + in[0].str() + " vs " +
                                              in[1].str());
      r.out = x;
      return r;
    case LayerKind::Concat: {
      int64_t channels = 0;
      for (const Shape& s : in) {
        if (s.rank() != x.rank() || s.n() != x.n() || s.h() != x.h() || s.w() != x.w())
          return fault(LayerFault::Invalid, "concat layer " + l.name + ": inputs must agree in all but channels, " +
                                                x.str() + " vs " + s.str());
        channels += s.c();
      }
      r.out = x.rank() == 4 ? Shape{x.n(), channels, x.h(), x.w()} : Shape{x.n(), channels};
      return r;
    }
    case LayerKind::Embedding:
    case LayerKind::LayerNorm:
    case LayerKind::Gelu:
    case LayerKind::Attention:
    case LayerKind::TokenFlatten:
    case LayerKind::PatchTokens:
    case LayerKind::ClassToken: return token_shapes(l, x);
    case LayerKind::Input: break;
  }
  return fault(LayerFault::Invalid, "layer " + l.name + ": unknown layer kind");
}

LayerShapes layer_shapes(const LayerDesc& l, const std::vector<Shape>& in) {
  LayerShapes r = shapes_of(l, in);
  for (ParamShape& p : r.params) {
    if (p.name == "weight" || p.name == "position" || p.name == "class") p.init_std = l.init_std;
    if (p.name == "weight") p.tied_layer = l.tied_weight;
  }
  return r;
}

namespace {
// A language model's only size is its sequence length, bounded by its position table.
std::vector<Shape> infer_token_shapes(const ModelDesc& m, int64_t batch, int64_t seq_len) {
  int64_t longest = 0;
  for (const LayerDesc& l : m.layers)
    if (l.kind == LayerKind::Embedding) longest = l.embedding.max_positions;
  if (seq_len < 1 || seq_len > longest)
    throw UsageError("--seq-len " + std::to_string(seq_len) + " does not fit " + m.name + " (1 to " +
                     std::to_string(longest) + ")");
  std::vector<Shape> shapes;
  Failure fail;
  if (!infer_impl(m, batch, seq_len, shapes, fail)) throw Error("invalid model description: " + m.name + ": " + fail.detail);
  return shapes;
}
}  // namespace

std::vector<Shape> infer_shapes(const ModelDesc& m, int64_t batch, int64_t image_size) {
  if (batch < 1) throw UsageError("--batch-size " + std::to_string(batch) + " must be at least 1");
  if (m.tokens) return infer_token_shapes(m, batch, image_size);
  if (image_size < 1)
    throw UsageError("--image-size " + std::to_string(image_size) + " must be at least 1 (minimum for " + m.name +
                     ": " + std::to_string(m.min_image_size) + ")");
  std::vector<Shape> shapes;
  Failure fail;
  if (infer_impl(m, batch, image_size, shapes, fail)) return shapes;
  if (fail.fit == Fit::TooSmall)
    throw UsageError("--image-size " + std::to_string(image_size) + " is too small for " + m.name + " (minimum " +
                     std::to_string(m.min_image_size) + ")");
  // The sizes that fit form one run around the default; find its upper end to name it.
  std::vector<Shape> probe;
  Failure ignored;
  int64_t hi = m.default_image_size;
  while (hi < 16 * m.default_image_size && infer_impl(m, 1, hi + 1, probe, ignored)) ++hi;
  throw UsageError("--image-size " + std::to_string(image_size) + " does not fit " + m.name + ": " + fail.detail +
                   "; image sizes " + std::to_string(m.min_image_size) + " to " + std::to_string(hi) + " fit");
}

std::vector<ParamShape> layer_params(const LayerDesc& l, const std::vector<Shape>& in_shapes) {
  if (l.kind != LayerKind::Conv && l.kind != LayerKind::BatchNorm && l.kind != LayerKind::Linear &&
      l.kind != LayerKind::Embedding && l.kind != LayerKind::LayerNorm && l.kind != LayerKind::PatchTokens)
    return {};
  LayerShapes r = layer_shapes(l, in_shapes);
  if (r.fault != LayerFault::None) throw UsageError(r.why);
  return std::move(r.params);
}

LayerDesc conv_layer(const std::string& name, int64_t out_channels, int64_t k, int64_t stride, int64_t pad,
                     int64_t groups, bool bias) {
  LayerDesc l;
  l.kind = LayerKind::Conv;
  l.name = name;
  l.conv.out_channels = out_channels;
  l.conv.kh = l.conv.kw = k;
  l.conv.stride_h = l.conv.stride_w = stride;
  l.conv.pad_h = l.conv.pad_w = pad;
  l.conv.groups = groups;
  l.conv.bias = bias;
  return l;
}

int64_t count_params(const ModelDesc& m, int64_t image_size) {
  const std::vector<Shape> shapes = infer_shapes(m, 1, image_size);
  int64_t total = 0;
  for (const LayerDesc& l : m.layers)
    for (const ParamShape& p : layer_params(l, inputs_of(l, shapes)))
      if (p.tied_layer < 0) total += p.shape.numel();
  return total;
}

double forward_gflops_per_image(const ModelDesc& m, int64_t image_size) {
  const std::vector<Shape> shapes = infer_shapes(m, 1, image_size);
  double macs = 0;
  for (size_t i = 0; i < m.layers.size(); ++i) {
    const LayerDesc& l = m.layers[i];
    if (l.kind == LayerKind::Conv) {
      const Shape& in = shapes[l.inputs[0]];
      macs += static_cast<double>(shapes[i].numel()) * (in.c() / l.conv.groups) * l.conv.kh * l.conv.kw;
    } else if (l.kind == LayerKind::Linear) {
      // At batch 1 the input holds one sample's rows (1, or its T tokens) of features.
      macs += static_cast<double>(shapes[l.inputs[0]].numel()) * l.linear.out_features;
    } else if (l.kind == LayerKind::Attention) {
      const Shape& out = shapes[i];  // {1,T,C}: QK^T and PV are T*T*C multiply-adds each
      macs += 2.0 * out[1] * out[1] * out[2];
    }
  }
  return 2.0 * macs / 1e9;
}

int64_t window_out_size(int64_t in, int64_t k, int64_t stride, int64_t pad, bool ceil_mode) {
  const int64_t span = in + 2 * pad - k;
  if (span < 0) return 0;
  int64_t out = (ceil_mode ? (span + stride - 1) / stride : span / stride) + 1;
  if (ceil_mode && (out - 1) * stride >= in + pad) --out;
  return out;
}

void check_layer_inputs(const LayerDesc& l, size_t n) {
  switch (l.kind) {
    case LayerKind::Input:
      throw UsageError("layer " + l.name + ": Input is the network input, not a computed layer");
    case LayerKind::LRN:
      throw UsageError("layer " + l.name + ": LRN is not supported (allowed kinds: Conv, BatchNorm, Relu, "
                       "MaxPool, AvgPool, GlobalAvgPool, Flatten, Linear, Add, Concat, Dropout, Embedding, "
                       "LayerNorm, Gelu, Attention, TokenFlatten, PatchTokens, ClassToken)");
    default: break;
  }
  const auto [lo, hi] = input_range(l.kind);
  if (n < lo || n > hi) throw UsageError(count_text(l, n));
}

std::vector<std::vector<int>> layer_readers(const ModelDesc& m) {
  std::vector<std::vector<int>> readers(m.layers.size());
  for (size_t i = 0; i < m.layers.size(); ++i) {
    for (int j : m.layers[i].inputs) readers[j].push_back(static_cast<int>(i));
  }
  return readers;
}

}  // namespace mg
