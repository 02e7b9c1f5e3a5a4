#include "check/model_cases.h"

#include <algorithm>
#include <map>
#include <string>

#include <fmt/format.h>

#include "train/relu_fusion.h"

namespace mg::check {

namespace {

constexpr int64_t kBatch = 2;
// Distinct integer inputs (max pooling's tie-free values) stay exact in bf16 only up to 512 elements.
constexpr int64_t kDistinctElements = 512;
// A Linear's weight beyond this many elements (VGG's 25088x4096) keeps its output width and bias but reads fewer
// input features: the GEMM's kind is the same, and the naive reference stays seconds.
constexpr int64_t kLinearWeightElements = int64_t{4} << 20;

// A language model's sequence in a case: enough positions for the causal mask and the position table to matter,
// few enough that the naive reference's attention (quadratic in it) and per-token layers stay seconds.
constexpr int64_t kCaseTokens = 32;

// The spatial size a case keeps along one dimension: the model's own when small, else enough for two windows.
int64_t cut(int64_t size, int64_t k, int64_t stride) { return std::min(size, std::max<int64_t>(4, k + stride)); }

std::vector<Shape> case_shapes(const LayerDesc& l, const std::vector<Shape>& in) {
  std::vector<Shape> out;
  for (const Shape& s : in) {
    if (s.rank() != 4) {  // {N, F} and token tensors keep every dimension but the batch and the sequence
      Shape c = s;
      c.dims[0] = kBatch;
      const bool token_ids = l.kind == LayerKind::Embedding;  // {N, T}
      if (c.rank() == 3 || token_ids) c.dims[1] = std::min(c.dims[1], kCaseTokens);
      int64_t& f = c.dims.back();
      if (l.kind == LayerKind::Linear && c.rank() == 2 && f * l.linear.out_features > kLinearWeightElements)
        f = std::max<int64_t>(1, kLinearWeightElements / l.linear.out_features);
      out.push_back(c);
      continue;
    }
    int64_t kh = 1, kw = 1, sh = 1, sw = 1;
    if (l.kind == LayerKind::Conv) {
      kh = l.conv.kh, kw = l.conv.kw, sh = l.conv.stride_h, sw = l.conv.stride_w;
    } else if (l.kind == LayerKind::MaxPool || l.kind == LayerKind::AvgPool) {
      kh = l.pool.kh, kw = l.pool.kw, sh = l.pool.stride_h, sw = l.pool.stride_w;
    }
    const int64_t h = cut(s.h(), kh, sh), w = cut(s.w(), kw, sw);
    if (l.kind == LayerKind::MaxPool) {
      // Pooling works per channel: fewer channels keep its windows and stay within the distinct-value limit.
      out.push_back(Shape{1, std::max<int64_t>(1, std::min(s.c(), kDistinctElements / (h * w))), h, w});
    } else {
      out.push_back(Shape{kBatch, s.c(), h, w});
    }
  }
  return out;
}

std::string shape_text(const Shape& s) {
  std::string t;
  for (size_t i = 0; i < s.rank(); ++i) t += (i ? "x" : "") + std::to_string(s.dims[i]);
  return t;
}

// What makes two layers the same case: everything the backend builds from, and nothing of the layer's name.
std::string case_key(const LayerDesc& l, const std::vector<Shape>& shapes, bool relu) {
  const ConvParams& c = l.conv;
  const PoolParams& p = l.pool;
  std::string key = fmt::format("{}|{}|", layer_kind_name(l.kind), relu);
  switch (l.kind) {
    case LayerKind::Conv:
      key += fmt::format("{} {}x{} s{}x{} p{}x{} g{} b{}", c.out_channels, c.kh, c.kw, c.stride_h, c.stride_w,
                         c.pad_h, c.pad_w, c.groups, c.bias);
      break;
    case LayerKind::MaxPool:
    case LayerKind::AvgPool:
      key += fmt::format("{}x{} s{}x{} p{}x{} c{}", p.kh, p.kw, p.stride_h, p.stride_w, p.pad_h, p.pad_w, p.ceil_mode);
      break;
    case LayerKind::Linear: key += fmt::format("{} b{}", l.linear.out_features, l.linear.bias); break;
    case LayerKind::BatchNorm: key += fmt::format("{} {}", l.bn.eps, l.bn.momentum); break;
    case LayerKind::Dropout: key += fmt::format("{}", l.dropout.p); break;
    case LayerKind::LayerNorm: key += fmt::format("{}", l.ln.eps); break;
    case LayerKind::Gelu: key += fmt::format("tanh{}", l.gelu.tanh); break;
    case LayerKind::Attention: key += fmt::format("h{} causal{}", l.attention.heads, l.attention.causal); break;
    default: break;
  }
  for (const Shape& s : shapes) key += "|" + shape_text(s);
  return key;
}

// A row name a reader can match to the model: the first layer's name and the shape the case runs.
std::string case_name(const LayerDesc& l, const std::vector<Shape>& shapes) {
  std::string name = l.name + " " + shape_text(shapes[0]);
  const ConvParams& c = l.conv;
  if (l.kind == LayerKind::Conv) {
    name += fmt::format(" {}x{}/{} p{} ->{}", c.kh, c.kw, c.stride_h, c.pad_h, c.out_channels);
    if (c.groups > 1) name += fmt::format(" g{}", c.groups);
    if (c.bias) name += " bias";
  } else if (l.kind == LayerKind::Linear) {
    name += fmt::format(" ->{}{}", l.linear.out_features, l.linear.bias ? " bias" : "");
  }
  return name;
}

}  // namespace

std::vector<LayerCase> model_layer_cases(const ModelDesc& m, const Backend& be) {
  const std::vector<Shape> shapes = infer_shapes(m, kBatch, m.default_image_size);
  const std::vector<int> fused = relu_fusion(m, be);
  std::vector<bool> relu_after(m.layers.size(), false);
  for (size_t i = 0; i < fused.size(); ++i)
    if (fused[i] >= 0) relu_after[static_cast<size_t>(fused[i])] = true;

  std::vector<LayerCase> out;
  std::map<std::string, size_t> by_key;
  std::vector<size_t> case_of(m.layers.size(), 0);
  for (size_t i = 1; i < m.layers.size(); ++i) {
    const LayerDesc& l = m.layers[i];
    if (fused[i] >= 0) {  // computed by the layer it reads: covered by that layer's case, with its ReLU
      case_of[i] = case_of[static_cast<size_t>(fused[i])];
      out[case_of[i]].layers.push_back(static_cast<int>(i));
      continue;
    }
    std::vector<Shape> in;
    for (int j : l.inputs) in.push_back(shapes[static_cast<size_t>(j)]);
    const std::vector<Shape> cs = case_shapes(l, in);
    auto [it, added] = by_key.emplace(case_key(l, cs, relu_after[i]), out.size());
    if (added) {
      LayerCase c;
      c.name = case_name(l, cs);
      c.desc = l;
      c.desc.name = c.name;
      c.desc.tied_weight = -1;  // a case is one layer, alone: it owns its weight
      c.desc.inputs.clear();
      for (size_t k = 0; k < cs.size(); ++k) c.desc.inputs.push_back(static_cast<int>(k));
      // A Linear whose input features were cut no longer reads its pinned width.
      if (l.kind == LayerKind::Linear) c.desc.linear.in_features = 0;
      // A patch grid that was cut needs a position table of its size.
      if (l.kind == LayerKind::PatchTokens) c.desc.patch_tokens.patches = cs[0].h() * cs[0].w();
      c.shapes = cs;
      c.distinct = l.kind == LayerKind::MaxPool;
      c.relu = relu_after[i];
      out.push_back(std::move(c));
    }
    case_of[i] = it->second;
    out[case_of[i]].layers.push_back(static_cast<int>(i));
  }
  return out;
}

}  // namespace mg::check
