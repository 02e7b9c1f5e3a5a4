#include "models/layer_desc.h"

#include <string>

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

const Shape& single_input(const ModelDesc& m, size_t i, const std::vector<Shape>& shapes, size_t rank) {
  const LayerDesc& l = m.layers[i];
  if (l.inputs.size() != 1) bad_model(m, i, "takes exactly one input");
  const Shape& s = shapes[l.inputs[0]];
  if (rank && s.rank() != rank) bad_model(m, i, "expects a " + std::to_string(rank) + "-D input, got " + s.str());
  return s;
}

bool infer_impl(const ModelDesc& m, int64_t batch, int64_t image_size, std::vector<Shape>& shapes,
                Failure& fail) {
  shapes.clear();
  shapes.reserve(m.layers.size());
  if (m.layers.empty() || m.layers[0].kind != LayerKind::Input)
    throw Error("invalid model description: " + m.name + ": layer 0 must be the input");
  for (size_t i = 0; i < m.layers.size(); ++i) {
    const LayerDesc& l = m.layers[i];
    for (int in : l.inputs)
      if (in < 0 || static_cast<size_t>(in) >= i)
        bad_model(m, i, "input " + std::to_string(in) + " is not an earlier layer");
    switch (l.kind) {
      case LayerKind::Input:
        if (i != 0) bad_model(m, i, "only layer 0 may be the input");
        shapes.push_back(Shape{batch, 3, image_size, image_size});
        break;
      case LayerKind::Conv: {
        const Shape& s = single_input(m, i, shapes, 4);
        const ConvParams& c = l.conv;
        if (c.groups < 1 || s.c() % c.groups || c.out_channels % c.groups || c.out_channels < 1)
          bad_model(m, i, "channels " + std::to_string(s.c()) + "->" + std::to_string(c.out_channels) +
                              " do not divide into " + std::to_string(c.groups) + " groups");
        const int64_t h = window_out_size(s.h(), c.kh, c.stride_h, c.pad_h, false);
        const int64_t w = window_out_size(s.w(), c.kw, c.stride_w, c.pad_w, false);
        if (h < 1 || w < 1) {
          fail = {Fit::TooSmall, where(m, i)};
          return false;
        }
        shapes.push_back(Shape{s.n(), c.out_channels, h, w});
        break;
      }
      case LayerKind::MaxPool:
      case LayerKind::AvgPool: {
        const Shape& s = single_input(m, i, shapes, 4);
        const PoolParams& p = l.pool;
        // torch rejects padding beyond half the window; cuDNN and oneDNN would compute something else.
        if (2 * p.pad_h > p.kh || 2 * p.pad_w > p.kw) bad_model(m, i, "padding exceeds half the window");
        const int64_t h = window_out_size(s.h(), p.kh, p.stride_h, p.pad_h, p.ceil_mode);
        const int64_t w = window_out_size(s.w(), p.kw, p.stride_w, p.pad_w, p.ceil_mode);
        if (h < 1 || w < 1) {
          fail = {Fit::TooSmall, where(m, i)};
          return false;
        }
        shapes.push_back(Shape{s.n(), s.c(), h, w});
        break;
      }
      case LayerKind::BatchNorm:
      case LayerKind::Relu:
      case LayerKind::Dropout:
      case LayerKind::LRN:
        shapes.push_back(single_input(m, i, shapes, 0));
        break;
      case LayerKind::GlobalAvgPool: {
        const Shape& s = single_input(m, i, shapes, 4);
        shapes.push_back(Shape{s.n(), s.c()});
        break;
      }
      case LayerKind::Flatten: {
        const Shape& s = single_input(m, i, shapes, 4);
        shapes.push_back(Shape{s.n(), s.c() * s.h() * s.w()});
        break;
      }
      case LayerKind::Linear: {
        const Shape& s = single_input(m, i, shapes, 2);
        if (l.linear.out_features < 1) bad_model(m, i, "out_features must be positive");
        if (l.linear.in_features > 0 && s.c() != l.linear.in_features) {
          const Shape& pre = m.layers[l.inputs[0]].kind == LayerKind::Flatten
                                 ? shapes[m.layers[l.inputs[0]].inputs[0]]
                                 : s;
          fail = {Fit::Mismatch, "its classifier takes " + std::to_string(l.linear.in_features) +
                                     " features but this size gives " + std::to_string(s.c()) + " (a " +
                                     std::to_string(pre.h()) + "x" + std::to_string(pre.w()) + " map)"};
          return false;
        }
        shapes.push_back(Shape{s.n(), l.linear.out_features});
        break;
      }
      case LayerKind::Add: {
        if (l.inputs.size() != 2) bad_model(m, i, "add takes two inputs");
        const Shape& a = shapes[l.inputs[0]];
        const Shape& b = shapes[l.inputs[1]];
        if (a != b) bad_model(m, i, "add of mismatched shapes " + a.str() + " and " + b.str());
        shapes.push_back(a);
        break;
      }
      case LayerKind::Concat: {
        if (l.inputs.size() < 2) bad_model(m, i, "concat takes two or more inputs");
        Shape out = shapes[l.inputs[0]];
        if (out.rank() != 4) bad_model(m, i, "concat expects 4-D inputs");
        int64_t channels = 0;
        for (int in : l.inputs) {
          const Shape& s = shapes[in];
          if (s.rank() != 4 || s.n() != out.n() || s.h() != out.h() || s.w() != out.w())
            bad_model(m, i, "concat of mismatched shapes " + out.str() + " and " + s.str());
          channels += s.c();
        }
        shapes.push_back(Shape{out.n(), channels, out.h(), out.w()});
        break;
      }
    }
  }
  return true;
}

}  // namespace

std::vector<Shape> infer_shapes(const ModelDesc& m, int64_t batch, int64_t image_size) {
  if (batch < 1) throw UsageError("--batch-size " + std::to_string(batch) + " must be at least 1");
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
  switch (l.kind) {
    case LayerKind::Conv: {
      MG_ENSURE(in_shapes.size() == 1 && in_shapes[0].rank() == 4, "conv '" + l.name + "' needs one 4-D input");
      const ConvParams& c = l.conv;
      std::vector<ParamShape> p{{"weight", Shape{c.out_channels, c.kh, c.kw, in_shapes[0].c() / c.groups}}};
      if (c.bias) p.push_back({"bias", Shape{c.out_channels}});
      return p;
    }
    case LayerKind::BatchNorm: {
      MG_ENSURE(in_shapes.size() == 1, "batchnorm '" + l.name + "' needs one input");
      const int64_t c = in_shapes[0].c();
      return {{"gamma", Shape{c}}, {"beta", Shape{c}}};
    }
    case LayerKind::Linear: {
      MG_ENSURE(in_shapes.size() == 1 && in_shapes[0].rank() == 2, "linear '" + l.name + "' needs one 2-D input");
      std::vector<ParamShape> p{{"weight", Shape{l.linear.out_features, in_shapes[0].c()}}};
      if (l.linear.bias) p.push_back({"bias", Shape{l.linear.out_features}});
      return p;
    }
    default:
      return {};
  }
}

namespace {
std::vector<Shape> inputs_of(const LayerDesc& l, const std::vector<Shape>& shapes) {
  std::vector<Shape> in;
  for (int i : l.inputs) in.push_back(shapes[i]);
  return in;
}
}  // namespace

int64_t count_params(const ModelDesc& m, int64_t image_size) {
  const std::vector<Shape> shapes = infer_shapes(m, 1, image_size);
  int64_t total = 0;
  for (const LayerDesc& l : m.layers)
    for (const ParamShape& p : layer_params(l, inputs_of(l, shapes))) total += p.shape.numel();
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
      macs += static_cast<double>(shapes[l.inputs[0]].c()) * l.linear.out_features;
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
  size_t lo = 1, hi = 1;
  switch (l.kind) {
    case LayerKind::Add: lo = hi = 2; break;
    case LayerKind::Concat: lo = 2; hi = 1024; break;
    case LayerKind::Input:
      throw UsageError("layer " + l.name + ": Input is the network input, not a computed layer");
    case LayerKind::LRN:
      throw UsageError("layer " + l.name + ": LRN is not supported (allowed kinds: Conv, BatchNorm, Relu, "
                       "MaxPool, AvgPool, GlobalAvgPool, Flatten, Linear, Add, Concat, Dropout)");
    default: break;
  }
  if (n < lo || n > hi) {
    throw UsageError("layer " + l.name + " takes " + (lo == hi ? std::to_string(lo) : std::to_string(lo) + ".." + std::to_string(hi)) +
                     " input(s), got " + std::to_string(n));
  }
}

}  // namespace mg
