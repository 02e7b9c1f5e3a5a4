#include "check/layer_check.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>
#include <utility>

#include "backend/device_buffer.h"
#include "check/failed_row.h"
#include "check/host_values.h"
#include "check/reference_layers.h"
#include "core/counter_rng.h"
#include "core/error.h"

namespace mg::check {

namespace {

constexpr uint64_t kSeed = 7;

Vec distinct_values(size_t n, uint64_t seed) {
  MG_ENSURE(n <= 512, "distinct layer inputs are limited to 512 elements (integers exact in bf16)");
  std::vector<size_t> idx(n);
  std::iota(idx.begin(), idx.end(), 0);
  std::sort(idx.begin(), idx.end(),
            [&](size_t a, size_t b) { return counter_uniform(seed, a) < counter_uniform(seed, b); });
  Vec v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<float>(idx[i]) - static_cast<float>(n / 2);
  return v;
}

// An Embedding's input is int32 token ids (held as floats on the host side); every other input is activations.
bool token_ids(const LayerCase& c, size_t input) { return c.desc.kind == LayerKind::Embedding && input == 0; }

struct Inputs {
  std::vector<Vec> x, params;
  Vec dout;
};

// What one layer computed on a backend, as host fp32 vectors.
struct LayerRun {
  Vec out, out_inference;
  std::vector<Vec> din, dparams, dparams_accumulated;
};

LayerRun run_layer(Backend& be, const LayerCase& c, Precision p, const Inputs& in) {
  be.attach_thread();
  const DType dt = activation_dtype(p);
  LayerOptions opt;
  opt.precision = p;
  opt.seed = kSeed;
  opt.relu = c.relu;
  auto op = be.create_layer(c.desc, c.shapes, opt);
  const Shape out_shape = op->output_shape();
  const auto ps = op->params();
  MG_ENSURE(ps.size() == in.params.size(), "layer " + c.name + ": parameter count differs from layer_params");
  std::vector<DeviceBuffer> pbuf, gbuf;
  std::vector<float*> pp, gp;
  for (size_t j = 0; j < ps.size(); ++j) {
    pbuf.push_back(to_device(be, in.params[j], DType::F32));
    gbuf.push_back(to_device(be, Vec(in.params[j].size(), 0.f), DType::F32));
    pp.push_back(pbuf.back().as<float>());
    gp.push_back(gbuf.back().as<float>());
  }
  op->bind(pp, gp);
  std::vector<DeviceBuffer> xb, dxb;
  std::vector<Tensor> xt, dxt;
  for (size_t i = 0; i < c.shapes.size(); ++i) {
    xb.push_back(to_device(be, in.x[i], token_ids(c, i) ? DType::I32 : dt));
    dxb.emplace_back(be, static_cast<size_t>(c.shapes[i].numel()) * dtype_size(dt));
  }
  for (size_t i = 0; i < c.shapes.size(); ++i) {
    xt.push_back(xb[i].tensor(c.shapes[i], token_ids(c, i) ? DType::I32 : dt));
    dxt.push_back(token_ids(c, i) ? Tensor{nullptr, c.shapes[i], dt} : dxb[i].tensor(c.shapes[i], dt));
  }
  const size_t on = static_cast<size_t>(out_shape.numel());
  DeviceBuffer yb(be, on * dtype_size(dt));
  const Tensor y = yb.tensor(out_shape, dt);
  DeviceBuffer dyb = to_device(be, in.dout, dt);
  const Tensor dy = dyb.tensor(out_shape, dt);

  LayerRun r;
  op->forward(xt, y, true);
  r.out = from_device(be, y.data, on, dt);
  op->backward(xt, y, dy, dxt, false);
  for (size_t i = 0; i < c.shapes.size(); ++i)
    if (!token_ids(c, i)) r.din.push_back(from_device(be, dxt[i].data, static_cast<size_t>(c.shapes[i].numel()), dt));
  for (size_t j = 0; j < ps.size(); ++j) r.dparams.push_back(from_device(be, gp[j], in.params[j].size(), DType::F32));
  op->backward(xt, y, dy, dxt, true);  // accumulates: parameter gradients double
  for (size_t j = 0; j < ps.size(); ++j)
    r.dparams_accumulated.push_back(from_device(be, gp[j], in.params[j].size(), DType::F32));
  op->forward(xt, y, false);
  r.out_inference = from_device(be, y.data, on, dt);
  return r;
}

LayerDesc pool(LayerKind kind, int64_t k, int64_t stride, int64_t pad, bool ceil) {
  LayerDesc d;
  d.kind = kind;
  d.pool.kh = d.pool.kw = k;
  d.pool.stride_h = d.pool.stride_w = stride;
  d.pool.pad_h = d.pool.pad_w = pad;
  d.pool.ceil_mode = ceil;
  return d;
}

LayerDesc simple(LayerKind kind) {
  LayerDesc d;
  d.kind = kind;
  return d;
}

// The output shape of a case (what infer_shapes computes for a model, for a layer with free-standing inputs).
Shape output_shape(const LayerCase& c) { return layer_shapes(c.desc, c.shapes).out; }

LayerCase make_case(const std::string& name, LayerDesc d, std::vector<Shape> shapes, bool distinct = false) {
  d.name = name;
  for (size_t i = 0; i < shapes.size(); ++i) d.inputs.push_back(static_cast<int>(i));
  return LayerCase{name, d, std::move(shapes), distinct, false, {}};
}

LayerCase with_relu(LayerCase c) {
  c.name += "_relu";
  c.desc.name = c.name;
  c.relu = true;
  return c;
}

// The naive reference of a layer with a ReLU after it: the layer's forward clamped, and its backward on dout
// masked where that forward is not positive.
ReferenceRun reference_with_relu(const LayerCase& c, const Inputs& in) {
  ReferenceRun r = reference_layer(c.desc, c.shapes, in.x, in.params, in.dout, kSeed);
  Vec masked(in.dout);
  for (size_t i = 0; i < masked.size(); ++i) {
    if (!(r.out[i] > 0.f)) masked[i] = 0.f;
  }
  const ReferenceRun b = reference_layer(c.desc, c.shapes, in.x, in.params, masked, kSeed);
  r.din = b.din;
  r.dparams = b.dparams;
  for (Vec* v : {&r.out, &r.out_inference}) {
    for (float& y : *v) y = y > 0.f ? y : 0.f;
  }
  return r;
}

}  // namespace

std::vector<LayerCase> all_layer_cases() {
  LayerDesc fc = simple(LayerKind::Linear), fc_nobias = simple(LayerKind::Linear), drop = simple(LayerKind::Dropout);
  fc.linear.out_features = 24;
  fc_nobias.linear.out_features = 10;
  fc_nobias.linear.bias = false;
  drop.dropout.p = 0.3f;
  LayerDesc emb = simple(LayerKind::Embedding), causal = simple(LayerKind::Attention), full = causal;
  LayerDesc fc_tokens = simple(LayerKind::Linear);
  emb.embedding = {50, 16, 12};
  causal.attention = {2, true};
  full.attention = {4, false};
  fc_tokens.linear.out_features = 12;
  LayerDesc gelu_erf = simple(LayerKind::Gelu), patches = simple(LayerKind::PatchTokens);
  gelu_erf.gelu.tanh = false;
  patches.patch_tokens.patches = 6;
  return {
      make_case("conv3x3_s1", conv_layer("", 16, 3, 1, 1), {Shape{2, 8, 6, 6}}),
      make_case("conv3x3_s1_bias", conv_layer("", 16, 3, 1, 1, 1, true), {Shape{2, 16, 9, 7}}),
      make_case("conv7x7_s2_bias", conv_layer("", 8, 7, 2, 3, 1, true), {Shape{2, 3, 12, 12}}),
      make_case("conv1x1_s1", conv_layer("", 24, 1, 1, 0), {Shape{2, 16, 5, 7}}),
      make_case("conv1x1_s2", conv_layer("", 16, 1, 2, 0), {Shape{2, 16, 5, 5}}),
      make_case("conv3x3_g4", conv_layer("", 8, 3, 1, 1, 4), {Shape{2, 8, 6, 6}}),
      make_case("batchnorm", simple(LayerKind::BatchNorm), {Shape{4, 16, 4, 4}}),
      make_case("batchnorm_odd", simple(LayerKind::BatchNorm), {Shape{2, 6, 5, 5}}),
      make_case("relu", simple(LayerKind::Relu), {Shape{2, 8, 5, 5}}),
      make_case("maxpool3_s2_p1", pool(LayerKind::MaxPool, 3, 2, 1, false), {Shape{1, 4, 9, 9}}, true),
      make_case("maxpool2_s2_ceil", pool(LayerKind::MaxPool, 2, 2, 0, true), {Shape{2, 4, 7, 7}}, true),
      make_case("avgpool3_s2_p1_ceil", pool(LayerKind::AvgPool, 3, 2, 1, true), {Shape{2, 4, 8, 8}}),
      make_case("avgpool3_s1_p1", pool(LayerKind::AvgPool, 3, 1, 1, false), {Shape{2, 4, 6, 6}}),
      make_case("global_avgpool", simple(LayerKind::GlobalAvgPool), {Shape{2, 16, 5, 5}}),
      make_case("flatten", simple(LayerKind::Flatten), {Shape{2, 4, 3, 3}}),
      make_case("linear", fc, {Shape{4, 40}}),
      make_case("linear_nobias", fc_nobias, {Shape{3, 17}}),
      make_case("add", simple(LayerKind::Add), {Shape{2, 8, 5, 5}, Shape{2, 8, 5, 5}}),
      with_relu(make_case("batchnorm", simple(LayerKind::BatchNorm), {Shape{4, 16, 4, 4}})),
      with_relu(make_case("add", simple(LayerKind::Add), {Shape{2, 8, 5, 5}, Shape{2, 8, 5, 5}})),
      make_case("concat", simple(LayerKind::Concat), {Shape{2, 4, 3, 3}, Shape{2, 8, 3, 3}, Shape{2, 3, 3, 3}}),
      make_case("dropout", drop, {Shape{2, 8, 6, 6}}),
      make_case("embedding", emb, {Shape{3, 10}}),
      make_case("layernorm", simple(LayerKind::LayerNorm), {Shape{2, 5, 24}}),
      make_case("gelu", simple(LayerKind::Gelu), {Shape{2, 5, 16}}),
      make_case("linear_tokens", fc_tokens, {Shape{2, 5, 16}}),
      make_case("attention_causal", causal, {Shape{2, 7, 48}}),
      make_case("attention_full", full, {Shape{5, 6, 48}}),  // more samples than heads: CUDA batches over samples
      make_case("token_flatten", simple(LayerKind::TokenFlatten), {Shape{2, 5, 12}}),
      make_case("gelu_erf", gelu_erf, {Shape{2, 5, 16}}),
      make_case("patch_tokens", patches, {Shape{2, 8, 2, 3}}),
      make_case("class_token", simple(LayerKind::ClassToken), {Shape{3, 5, 12}}),
  };
}

std::vector<LayerCase> kind_cases_for(const ModelDesc& m) {
  std::set<LayerKind> used;
  for (const LayerDesc& l : m.layers) used.insert(l.kind);
  std::vector<LayerCase> out;
  for (LayerCase& c : all_layer_cases())
    if (used.count(c.desc.kind) && (!c.relu || used.count(LayerKind::Relu))) out.push_back(std::move(c));
  return out;
}

bool winograd_case(const LayerCase& c) {
  const ConvParams& v = c.desc.conv;
  return c.desc.kind == LayerKind::Conv && v.kh == 3 && v.kw == 3 && v.stride_h == 1 && v.stride_w == 1 &&
         v.groups == 1;
}

double tolerance(Precision p) {
  switch (p) {
    case Precision::FP32: return 2e-4;
    case Precision::TF32: return 5e-3;
    case Precision::FP16: return 1e-2;
    case Precision::BF16: return 4e-2;
  }
  return 0;
}

double rel_err(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size()) return INFINITY;
  double num = 0, den = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const double d = static_cast<double>(a[i]) - b[i];
    num += d * d;
    den += static_cast<double>(b[i]) * b[i];
  }
  const double e = den > 0 ? std::sqrt(num / den) : std::sqrt(num);
  return std::isnan(e) ? INFINITY : e;
}

CheckRow rel_err_row(std::string group, std::string name, Precision p) {
  CheckRow row;
  row.group = std::move(group);
  row.name = std::move(name);
  row.precision = precision_name(p);
  row.metric = "rel_err";
  row.tolerance = tolerance(p);
  return row;
}

void take_worst(CheckRow& row, const std::string& what, const std::vector<float>& got,
                const std::vector<float>& want) {
  const double e = rel_err(got, want);
  if (row.detail.empty() || e > row.error) {
    row.error = e;
    row.detail = what;
  }
}

CheckRow check_layer(Backend& dut, Backend* reference, const LayerCase& c, Precision p) {
  CheckRow row = rel_err_row("layer", c.name + " (" + layer_kind_name(c.desc.kind) + (c.relu ? "+ReLU" : "") + ")", p);
  try {
    const DType dt = activation_dtype(p);
    Inputs in;
    for (size_t i = 0; i < c.shapes.size(); ++i) {
      const size_t n = static_cast<size_t>(c.shapes[i].numel());
      if (token_ids(c, i)) {  // with repeats, so the backward's scatter adds rows up
        Vec ids = random_vec(n, 11 + i, 0.f, static_cast<float>(c.desc.embedding.vocab));
        for (float& v : ids) v = std::floor(v);
        in.x.push_back(ids);
        continue;
      }
      in.x.push_back(rounded(c.distinct ? distinct_values(n, 11 + i) : random_vec(n, 11 + i, -1.f, 1.f), dt));
    }
    const std::vector<ParamShape> ps = layer_params(c.desc, c.shapes);
    for (size_t j = 0; j < ps.size(); ++j) {
      const bool gamma = ps[j].name == "gamma";
      in.params.push_back(random_vec(static_cast<size_t>(ps[j].shape.numel()), 100 + j, gamma ? 0.5f : -0.5f,
                                     gamma ? 1.5f : 0.5f));
    }
    in.dout = rounded(random_vec(static_cast<size_t>(output_shape(c).numel()), 99, -1.f, 1.f), dt);

    const LayerRun got = run_layer(dut, c, p, in);
    LayerRun want;
    if (reference) {
      want = run_layer(*reference, c, Precision::FP32, in);
    } else {
      ReferenceRun r =
          c.relu ? reference_with_relu(c, in) : reference_layer(c.desc, c.shapes, in.x, in.params, in.dout, kSeed);
      want.out = r.out;
      want.out_inference = r.out_inference;
      want.din = r.din;
      want.dparams = r.dparams;
      for (const Vec& g : r.dparams) {
        Vec twice(g);
        for (float& v : twice) v *= 2.0f;
        want.dparams_accumulated.push_back(std::move(twice));
      }
    }
    // Every quantity against the reference; the row reports the worst relative to the tolerance.
    auto take = [&](const std::string& what, const Vec& a, const Vec& b) { take_worst(row, what, a, b); };
    take("forward", got.out, want.out);
    for (size_t i = 0; i < got.din.size(); ++i) take("input gradient " + std::to_string(i), got.din[i], want.din[i]);
    for (size_t j = 0; j < got.dparams.size(); ++j) {
      take(ps[j].name + " gradient", got.dparams[j], want.dparams[j]);
      take(ps[j].name + " gradient accumulated", got.dparams_accumulated[j], want.dparams_accumulated[j]);
    }
    take("inference forward", got.out_inference, want.out_inference);
    row.passed = row.error <= row.tolerance;
    row.detail = "worst: " + row.detail + "; reference: " +
                 (reference ? "CPU backend fp32" : std::string("naive fp64"));
  } catch (const std::exception& e) {
    mark_failed(row, INFINITY, "failed to run: ", e);
  }
  return row;
}

}  // namespace mg::check
