// CPU layers (oneDNN) against plain-loop references on small random inputs.
#include <algorithm>
#include <limits>

#include "layer_test_util.h"

using namespace mgtest;

namespace {

// torch semantics: max over the window inside the input; avg divides by the window clipped to [-pad, size+pad).
std::vector<double> pool_ref(const std::vector<float>& x, Nhwc xs, const PoolParams& p, bool max, Nhwc ys) {
  std::vector<double> y(static_cast<size_t>(ys.n * ys.c * ys.h * ys.w));
  for (int64_t b = 0; b < ys.n; ++b)
    for (int64_t c = 0; c < ys.c; ++c)
      for (int64_t oy = 0; oy < ys.h; ++oy)
        for (int64_t ox = 0; ox < ys.w; ++ox) {
          const int64_t y0 = oy * p.stride_h - p.pad_h, x0 = ox * p.stride_w - p.pad_w;
          const int64_t y1 = std::min(y0 + p.kh, xs.h + p.pad_h), x1 = std::min(x0 + p.kw, xs.w + p.pad_w);
          double acc = max ? -std::numeric_limits<double>::infinity() : 0.0;
          for (int64_t iy = std::max<int64_t>(y0, 0); iy < std::min(y1, xs.h); ++iy)
            for (int64_t ix = std::max<int64_t>(x0, 0); ix < std::min(x1, xs.w); ++ix) {
              const double v = x[xs.at(b, c, iy, ix)];
              acc = max ? std::max(acc, v) : acc + v;
            }
          y[ys.at(b, c, oy, ox)] = max ? acc : acc / static_cast<double>((y1 - y0) * (x1 - x0));
        }
  return y;
}

Nhwc nhwc(const Shape& s) { return Nhwc{s.n(), s.c(), s.h(), s.w()}; }

}  // namespace

TEST_CASE("cpu conv forward matches a plain loop (stride, padding, groups, depthwise, bias)") {
  const ConvCase cases[] = {
      {{2, 3, 7, 7}, 5, 3, 1, 1, 1, true},   {{2, 4, 9, 8}, 6, 3, 2, 1, 1, false},
      {{1, 8, 6, 6}, 4, 1, 1, 0, 1, false},  {{2, 6, 7, 5}, 9, 3, 2, 0, 3, true},
      {{2, 8, 8, 8}, 8, 3, 1, 1, 8, false},  {{1, 3, 11, 11}, 4, 5, 3, 2, 1, true},
      {{2, 16, 5, 5}, 32, 3, 2, 1, 1, false},
  };
  for (const ConvCase& c : cases) {
    const LayerDesc d = c.desc();
    LayerRig rig(d, {c.in});
    const Shape ys = rig.op->output_shape();
    INFO(c.label());
    CHECK(ys == Shape{c.in.n(), c.o, (c.in.h() + 2 * c.p - c.k) / c.s + 1, (c.in.w() + 2 * c.p - c.k) / c.s + 1});
    REQUIRE(rig.op->params().size() == (c.bias ? 2u : 1u));
    CHECK(rig.op->params()[0].shape == Shape{c.o, c.k, c.k, c.in.c() / c.g});
    const auto& y = rig.forward();
    const auto ref = conv_ref(rig.x[0], nhwc(c.in), rig.p[0], c.bias ? rig.p[1].data() : nullptr, d.conv, nhwc(ys));
    CHECK(max_abs_diff(y, ref) < 1e-4);
  }
}

TEST_CASE("cpu max and avg pooling match torch semantics (padding, ceil_mode, count_include_pad)") {
  struct Case {
    Shape in;
    int64_t k, s, p;
    bool ceil;
    Shape out;
  };
  const Case cases[] = {
      {{2, 3, 8, 8}, 2, 2, 0, false, {2, 3, 4, 4}},  {{2, 4, 7, 7}, 3, 2, 1, false, {2, 4, 4, 4}},
      {{1, 5, 8, 7}, 3, 2, 0, true, {1, 5, 4, 3}},   {{2, 3, 6, 6}, 3, 2, 1, true, {2, 3, 4, 4}},
      {{1, 2, 5, 5}, 2, 2, 1, true, {1, 2, 3, 3}},   {{1, 3, 9, 9}, 3, 1, 1, false, {1, 3, 9, 9}},
  };
  for (bool is_max : {true, false}) {
    for (const Case& c : cases) {
      LayerDesc d = make_desc(is_max ? LayerKind::MaxPool : LayerKind::AvgPool, "pool");
      d.pool.kh = d.pool.kw = c.k;
      d.pool.stride_h = d.pool.stride_w = c.s;
      d.pool.pad_h = d.pool.pad_w = c.p;
      d.pool.ceil_mode = c.ceil;
      LayerRig rig(d, {c.in});
      INFO((is_max ? "max" : "avg") << " input " << c.in.str() << " k" << c.k << " s" << c.s << " p" << c.p
                                    << (c.ceil ? " ceil" : ""));
      REQUIRE(rig.op->output_shape() == c.out);
      const auto ref = pool_ref(rig.x[0], nhwc(c.in), d.pool, is_max, nhwc(c.out));
      CHECK(max_abs_diff(rig.forward(), ref) < 1e-5);
    }
  }
}

TEST_CASE("cpu global average pool reduces {N,C,H,W} to {N,C}") {
  LayerRig rig(make_desc(LayerKind::GlobalAvgPool), {Shape{3, 5, 4, 6}});
  REQUIRE(rig.op->output_shape() == Shape{3, 5});
  std::vector<double> ref(15, 0.0);
  for (int64_t b = 0; b < 3; ++b)
    for (int64_t i = 0; i < 24; ++i)
      for (int64_t c = 0; c < 5; ++c) ref[b * 5 + c] += rig.x[0][(b * 24 + i) * 5 + c] / 24.0;
  CHECK(max_abs_diff(rig.forward(), ref) < 1e-5);
}

TEST_CASE("cpu batch norm training forward normalises with batch statistics") {
  const Shape s{3, 4, 5, 3};
  LayerDesc d = make_desc(LayerKind::BatchNorm, "bn");
  LayerRig rig(d, {s});
  const auto& y = rig.forward(true);
  const int64_t m = s.n() * s.h() * s.w();
  std::vector<double> ref(y.size());
  for (int64_t c = 0; c < s.c(); ++c) {
    double mean = 0, var = 0;
    for (int64_t i = 0; i < m; ++i) mean += rig.x[0][i * s.c() + c];
    mean /= m;
    for (int64_t i = 0; i < m; ++i) var += std::pow(rig.x[0][i * s.c() + c] - mean, 2);
    var /= m;
    for (int64_t i = 0; i < m; ++i) {
      ref[i * s.c() + c] = (rig.x[0][i * s.c() + c] - mean) / std::sqrt(var + d.bn.eps) * rig.p[0][c] + rig.p[1][c];
    }
  }
  CHECK(max_abs_diff(y, ref) < 1e-5);
}

TEST_CASE("cpu batch norm updates running statistics like torch and uses them in inference") {
  const Shape s{4, 3, 2, 3};
  LayerDesc d = make_desc(LayerKind::BatchNorm, "bn");
  d.bn.momentum = 0.25f;
  d.bn.eps = 1e-3f;
  LayerRig rig(d, {s});
  const int64_t m = s.n() * s.h() * s.w();
  std::vector<double> rmean(3, 0.0), rvar(3, 1.0);
  for (int step = 0; step < 3; ++step) {
    rig.x[0] = random_vec(rig.x[0].size(), 50 + step, -2.f + step, 3.f);
    rig.forward(true);
    for (int64_t c = 0; c < 3; ++c) {
      double mean = 0, var = 0;
      for (int64_t i = 0; i < m; ++i) mean += rig.x[0][i * 3 + c];
      mean /= m;
      for (int64_t i = 0; i < m; ++i) var += std::pow(rig.x[0][i * 3 + c] - mean, 2);
      var /= (m - 1);  // unbiased, as torch stores it
      rmean[c] = 0.75 * rmean[c] + 0.25 * mean;
      rvar[c] = 0.75 * rvar[c] + 0.25 * var;
    }
  }
  rig.x[0] = random_vec(rig.x[0].size(), 99);
  const auto& y = rig.forward(false);
  std::vector<double> ref(y.size());
  for (int64_t i = 0; i < m; ++i)
    for (int64_t c = 0; c < 3; ++c) {
      ref[i * 3 + c] = (rig.x[0][i * 3 + c] - rmean[c]) / std::sqrt(rvar[c] + 1e-3) * rig.p[0][c] + rig.p[1][c];
    }
  CHECK(max_abs_diff(y, ref) < 1e-5);
}

TEST_CASE("cpu linear forward matches a plain loop, 2-D and flattened 4-D input") {
  for (bool bias : {true, false}) {
    for (const Shape& s : {Shape{4, 10}, Shape{3, 2, 3, 2}}) {
      LayerDesc d = make_desc(LayerKind::Linear, "fc");
      d.linear.out_features = 7;
      d.linear.bias = bias;
      LayerRig rig(d, {s});
      const int64_t f = s.numel() / s.n();
      REQUIRE(rig.op->output_shape() == Shape{s.n(), 7});
      REQUIRE(rig.op->params()[0].shape == Shape{7, f});
      std::vector<double> ref(static_cast<size_t>(s.n() * 7));
      for (int64_t b = 0; b < s.n(); ++b)
        for (int64_t o = 0; o < 7; ++o) {
          double acc = bias ? rig.p[1][o] : 0.0;
          for (int64_t i = 0; i < f; ++i) acc += static_cast<double>(rig.x[0][b * f + i]) * rig.p[0][o * f + i];
          ref[b * 7 + o] = acc;
        }
      CHECK(max_abs_diff(rig.forward(), ref) < 1e-5);
    }
  }
}

TEST_CASE("cpu relu, add, flatten and concat forward") {
  const Shape s{2, 3, 4, 5};
  {
    LayerRig rig(make_desc(LayerKind::Relu), {s});
    std::vector<double> ref(rig.x[0].begin(), rig.x[0].end());
    for (double& v : ref) v = std::max(v, 0.0);
    CHECK(max_abs_diff(rig.forward(), ref) == 0.0);
  }
  {
    LayerRig rig(make_desc(LayerKind::Add), {s, s});
    std::vector<double> ref(rig.x[0].size());
    for (size_t i = 0; i < ref.size(); ++i) ref[i] = static_cast<double>(rig.x[0][i] + rig.x[1][i]);
    CHECK(max_abs_diff(rig.forward(), ref) == 0.0);
  }
  {
    LayerRig rig(make_desc(LayerKind::Flatten), {s});
    REQUIRE(rig.op->output_shape() == Shape{2, 60});
    CHECK(max_abs_diff(rig.forward(), std::vector<double>(rig.x[0].begin(), rig.x[0].end())) == 0.0);
  }
  {
    const std::vector<Shape> ins{{2, 3, 4, 5}, {2, 1, 4, 5}, {2, 6, 4, 5}};
    LayerRig rig(make_desc(LayerKind::Concat), ins);
    REQUIRE(rig.op->output_shape() == Shape{2, 10, 4, 5});
    std::vector<double> ref;
    for (int64_t px = 0; px < 40; ++px) {  // NHWC: per pixel, the channels of input 0, then 1, then 2
      for (size_t k = 0; k < ins.size(); ++k) {
        for (int64_t c = 0; c < ins[k].c(); ++c) ref.push_back(rig.x[k][px * ins[k].c() + c]);
      }
    }
    CHECK(max_abs_diff(rig.forward(), ref) == 0.0);
  }
}

TEST_CASE("cpu layers reject bad descriptions with a usage error") {
  CHECK_THROWS_AS(backend().create_layer(make_desc(LayerKind::Input), {Shape{1, 3, 4, 4}}, {}), UsageError);
  CHECK_THROWS_AS(backend().create_layer(make_desc(LayerKind::LRN), {Shape{1, 3, 4, 4}}, {}), UsageError);
  CHECK_THROWS_AS(backend().create_layer(conv_layer("conv", 4, 3, 1, 1, 2, false), {Shape{1, 3, 4, 4}}, {}), UsageError);
  CHECK_THROWS_AS(backend().create_layer(conv_layer("conv", 4, 7, 1, 0, 1, false), {Shape{1, 3, 4, 4}}, {}), UsageError);
  CHECK_THROWS_AS(backend().create_layer(make_desc(LayerKind::Add), {Shape{1, 3, 4, 4}, Shape{1, 3, 4, 5}}, {}),
                  UsageError);
  CHECK_THROWS_AS(backend().create_layer(make_desc(LayerKind::Add), {Shape{1, 3, 4, 4}}, {}), UsageError);
  LayerDesc drop = make_desc(LayerKind::Dropout);
  drop.dropout.p = 1.f;
  CHECK_THROWS_AS(backend().create_layer(drop, {Shape{1, 3, 4, 4}}, {}), UsageError);
  LayerOptions fp16;
  fp16.precision = Precision::FP16;
  CHECK_THROWS_AS(backend().create_layer(make_desc(LayerKind::Relu), {Shape{1, 3, 4, 4}}, fp16), UsageError);
  // One value per channel: checked in LayerBase, so CUDA's batch norm (which would divide by zero) refuses it too.
  CHECK_THROWS_WITH(backend().create_layer(make_desc(LayerKind::BatchNorm, "bn1"), {Shape{1, 8, 1, 1}}, {}),
                    Catch::Contains("bn1") && Catch::Contains("more than one value per channel"));
  CHECK_NOTHROW(backend().create_layer(make_desc(LayerKind::BatchNorm, "bn2"), {Shape{2, 8, 1, 1}}, {}));
  LayerOptions inference;  // --forward-only: running statistics, any batch
  inference.backward = false;
  CHECK_NOTHROW(backend().create_layer(make_desc(LayerKind::BatchNorm, "bn3"), {Shape{1, 8, 1, 1}}, inference));
}
