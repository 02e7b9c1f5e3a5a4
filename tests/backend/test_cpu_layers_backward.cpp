// CPU layer backward passes against central finite differences of loss = sum(out * r), r random.
//
// oneDNN computes in fp32 only, so the differences use h = 1e-2 and the loss is summed in double; the error
// budget is fp32 rounding of the outputs (~1e-6 relative, divided by 2h) plus the O(h^2) truncation of the
// central difference, hence atol 2e-3 and rtol 1e-2. Inputs of ReLU and max pooling are kept at least 2h away
// from their kinks (zero, and ties between window elements) so the function is smooth over the difference.
#include <algorithm>
#include <numeric>

#include "layer_test_util.h"
#include "support/skip.h"

using namespace mgtest;

namespace {
constexpr float kH = 1e-2f;
constexpr double kAtol = 2e-3, kRtol = 1e-2;

// Distinct values spaced 0.05 apart in a shuffled order: no two window elements are within 2h of each other.
void distinct_values(std::vector<float>& v, uint64_t seed) {
  std::vector<size_t> idx(v.size());
  std::iota(idx.begin(), idx.end(), 0);
  for (size_t i = idx.size(); i > 1; --i) {
    std::swap(idx[i - 1], idx[static_cast<size_t>(counter_uniform(seed, i) * static_cast<float>(i))]);
  }
  for (size_t i = 0; i < v.size(); ++i) v[idx[i]] = -1.f + 0.05f * static_cast<float>(i);
}

// Two rigs of one layer (on different backends) agree to rounding on the forward and on a first overwriting
// backward (input and parameter gradients); returns a second output gradient for the caller's accumulated pass.
std::vector<float> agree_forward_backward(LayerRig& a, LayerRig& b) {
  CHECK(rel_err(b.forward(), a.forward()) < 1e-5);
  const std::vector<float> dy1 = random_vec(a.y.size(), 21);
  a.backward(dy1);
  b.backward(dy1);
  CHECK(rel_err(b.dx[0], a.dx[0]) < 1e-5);
  for (size_t i = 0; i < a.g.size(); ++i) CHECK(rel_err(b.g[i], a.g[i]) < 1e-5);
  return random_vec(a.y.size(), 22);
}
}  // namespace

TEST_CASE("cpu conv backward matches finite differences") {
  const ConvCase cases[] = {
      {{2, 3, 6, 6}, 4, 3, 1, 1, 1, true},
      {{2, 4, 7, 7}, 6, 3, 2, 1, 2, false},
      {{1, 6, 5, 5}, 6, 3, 1, 1, 6, true},  // depthwise
      {{2, 8, 4, 4}, 5, 1, 1, 0, 1, false},
  };
  for (const ConvCase& c : cases) {
    INFO(c.label());
    LayerRig rig(c.desc(), {c.in});
    check_gradients(rig, kH, kAtol, kRtol);
  }
}

TEST_CASE("cpu linear backward matches finite differences") {
  LayerDesc d = make_desc(LayerKind::Linear, "fc");
  d.linear.out_features = 5;
  LayerRig rig(d, {Shape{3, 2, 2, 3}});
  check_gradients(rig, kH, kAtol, kRtol);
}

TEST_CASE("cpu batch norm backward matches finite differences (training mode, batch statistics)") {
  LayerRig rig(make_desc(LayerKind::BatchNorm, "bn"), {Shape{2, 3, 3, 4}});
  check_gradients(rig, kH, kAtol, kRtol);
}

TEST_CASE("cpu batch norm with its ReLU fused is batch norm then ReLU, forward and backward, bit for bit") {
  // 20 channels: not a multiple of any vector width; 4x24x24 rows: large enough to run on the whole team.
  for_each_bn_isa([&](const std::string& isa) {
    for (const Shape& s : {Shape{2, 3, 3, 4}, Shape{4, 20, 24, 24}}) {
      for (const Precision prec : {Precision::FP32, Precision::BF16}) {
        if (prec == Precision::BF16 && (!cpu_has_bf16() || isa != cpu::bn::runnable_isas().front())) continue;
        INFO("shape " << s.str() << (prec == Precision::BF16 ? " bf16" : " fp32"));
        LayerRig plain(make_desc(LayerKind::BatchNorm, "bn"), {s}, prec);
        LayerRig fused(make_desc(LayerKind::BatchNorm, "bn"), {s}, prec, 1, nullptr, true);
        REQUIRE(plain.x == fused.x);
        REQUIRE(plain.p == fused.p);
        const std::vector<float> y = plain.forward();
        const std::vector<float>& yr = fused.forward();
        size_t zeroed = 0;
        for (size_t i = 0; i < y.size(); ++i) {
          CHECK(yr[i] == std::max(y[i], 0.f));
          zeroed += y[i] <= 0.f;
        }
        CHECK(zeroed > y.size() / 4);  // the gate is exercised
        std::vector<float> dy = random_vec(y.size(), 21), gated = dy;
        for (size_t i = 0; i < y.size(); ++i) gated[i] = y[i] > 0.f ? dy[i] : 0.f;
        plain.backward(gated);
        fused.backward(dy);
        if (prec == Precision::FP32) {
          CHECK(fused.dx == plain.dx);
          CHECK(fused.g == plain.g);
        } else {  // oneDNN's own bf16 kernels: same gate, its own summation order
          for (size_t i = 0; i < dy.size(); ++i) CHECK(fused.dx[0][i] == Approx(plain.dx[0][i]).margin(2e-2));
        }
      }
    }
  });
}

TEST_CASE("cpu batch norm's normalise with a residual is normalise, add, ReLU, bit for bit, also in place") {
  // 20 channels: not a multiple of any vector width; 4x24x24 rows: large enough to run on the whole team.
  const int64_t rows = 4 * 24 * 24, c = 20;
  const size_t n = static_cast<size_t>(rows * c);
  const std::vector<float> x = random_vec(n, 31), res = random_vec(n, 32), mean = random_vec(c, 33),
                           scale = random_vec(c, 34, 0.5f, 2.f), shift = random_vec(c, 35);
  for_each_bn_isa([&](const std::string&) {
    for (bool relu : {false, true}) {
      INFO((relu ? "relu" : "no relu"));
      std::vector<float> want(n);
      cpu::bn::normalize(x.data(), want.data(), rows, c, mean.data(), scale.data(), shift.data(), false);
      size_t zeroed = 0;
      for (size_t i = 0; i < n; ++i) {
        want[i] += res[i];
        if (relu) {
          zeroed += want[i] <= 0.f;
          want[i] = std::max(want[i], 0.f);
        }
      }
      CHECK((!relu || zeroed > n / 4));
      std::vector<float> y(n), over_x = x, over_res = res;
      cpu::bn::normalize(x.data(), y.data(), rows, c, mean.data(), scale.data(), shift.data(), relu, res.data());
      CHECK(y == want);
      cpu::bn::normalize(over_x.data(), over_x.data(), rows, c, mean.data(), scale.data(), shift.data(), relu,
                         res.data());
      CHECK(over_x == want);
      cpu::bn::normalize(x.data(), over_res.data(), rows, c, mean.data(), scale.data(), shift.data(), relu,
                         over_res.data());
      CHECK(over_res == want);
    }
  });
}

TEST_CASE("cpu batch norm keeps its precision on values far from zero") {
  // Values 1000 +- 0.01: the variance is 1e-10 of the mean squared, which E[x^2] - E[x]^2 in fp32 loses.
  for (const Shape& s : {Shape{2, 5, 3, 3}, Shape{4, 20, 24, 24}}) {
    INFO("shape " << s.str());
    LayerRig rig(make_desc(LayerKind::BatchNorm, "bn"), {s});
    rig.x[0] = random_vec(rig.x[0].size(), 9, 999.99f, 1000.01f);
    const auto& y = rig.forward(true);
    const int64_t m = s.n() * s.h() * s.w(), c = s.c();
    std::vector<double> ref(y.size());
    for (int64_t ch = 0; ch < c; ++ch) {
      double mean = 0, var = 0;
      for (int64_t i = 0; i < m; ++i) mean += rig.x[0][i * c + ch];
      mean /= m;
      for (int64_t i = 0; i < m; ++i) var += std::pow(rig.x[0][i * c + ch] - mean, 2);
      var /= m;
      for (int64_t i = 0; i < m; ++i) {
        ref[i * c + ch] = (rig.x[0][i * c + ch] - mean) / std::sqrt(var + 1e-5) * rig.p[0][ch] + rig.p[1][ch];
      }
    }
    CHECK(max_abs_diff(y, ref) < 2e-3);
  }
}

TEST_CASE("cpu batch norm backward matches finite differences on the whole team") {
  for_each_bn_isa([&](const std::string&) {
      LayerRig rig(make_desc(LayerKind::BatchNorm, "bn"), {Shape{4, 20, 24, 24}});
      check_gradients(rig, kH, kAtol, kRtol, 30);
  });
}

TEST_CASE("cpu relu backward matches finite differences away from zero") {
  LayerRig rig(make_desc(LayerKind::Relu), {Shape{2, 3, 4, 4}});
  for (float& v : rig.x[0]) v = v >= 0 ? v + 3 * kH : v - 3 * kH;
  check_gradients(rig, kH, kAtol, kRtol);
}

TEST_CASE("cpu pooling backward matches finite differences") {
  struct Case {
    LayerKind kind;
    int64_t k, s, p;
    bool ceil;
  };
  const Case cases[] = {{LayerKind::MaxPool, 3, 2, 1, false}, {LayerKind::MaxPool, 3, 2, 0, true},
                        {LayerKind::AvgPool, 3, 2, 1, true},  {LayerKind::AvgPool, 2, 2, 0, false},
                        {LayerKind::AvgPool, 3, 1, 1, false}};
  for (const Case& c : cases) {
    INFO((c.kind == LayerKind::MaxPool ? "max" : "avg") << " k" << c.k << " s" << c.s << " p" << c.p
                                                         << (c.ceil ? " ceil" : ""));
    LayerDesc d = make_desc(c.kind, "pool");
    d.pool.kh = d.pool.kw = c.k;
    d.pool.stride_h = d.pool.stride_w = c.s;
    d.pool.pad_h = d.pool.pad_w = c.p;
    d.pool.ceil_mode = c.ceil;
    LayerRig rig(d, {Shape{2, 2, 6, 6}});
    if (c.kind == LayerKind::MaxPool) distinct_values(rig.x[0], 5);
    check_gradients(rig, kH, kAtol, kRtol, 200);
  }
  LayerRig gap(make_desc(LayerKind::GlobalAvgPool), {Shape{2, 3, 3, 4}});
  check_gradients(gap, kH, kAtol, kRtol);
}

TEST_CASE("cpu add, concat and flatten backward match finite differences") {
  LayerRig add(make_desc(LayerKind::Add), {Shape{2, 3, 2, 2}, Shape{2, 3, 2, 2}});
  check_gradients(add, kH, kAtol, kRtol);
  LayerRig cat(make_desc(LayerKind::Concat), {Shape{2, 2, 3, 3}, Shape{2, 3, 3, 3}, Shape{2, 1, 3, 3}});
  check_gradients(cat, kH, kAtol, kRtol, 200);
  LayerRig flat(make_desc(LayerKind::Flatten), {Shape{2, 3, 2, 2}});
  check_gradients(flat, kH, kAtol, kRtol);
}

TEST_CASE("cpu backward skips inputs whose din is null") {
  const Shape s{2, 3, 4, 4};
  LayerRig cat(make_desc(LayerKind::Concat), {s, s});
  cat.forward();
  std::vector<float> dy = random_vec(cat.y.size(), 3);
  cat.dx[0].assign(cat.dx[0].size(), 42.f);
  cat.backward(dy, false, {false, true});
  CHECK(std::all_of(cat.dx[0].begin(), cat.dx[0].end(), [](float v) { return v == 42.f; }));
  CHECK(std::any_of(cat.dx[1].begin(), cat.dx[1].end(), [](float v) { return v != 0.f; }));

  // A conv on the network input still produces its weight gradient.
  LayerRig conv(conv_layer("conv", 4, 3, 1, 1, 1, true), {s});
  conv.forward();
  conv.dx[0].assign(conv.dx[0].size(), 42.f);
  conv.backward(random_vec(conv.y.size(), 4), false, {false});
  CHECK(std::all_of(conv.dx[0].begin(), conv.dx[0].end(), [](float v) { return v == 42.f; }));
  CHECK(std::any_of(conv.g[0].begin(), conv.g[0].end(), [](float v) { return v != 0.f; }));

  // So does batch norm (its backward always computes diff_src, into a private buffer here).
  LayerRig bn(make_desc(LayerKind::BatchNorm, "bn"), {s});
  bn.forward();
  const std::vector<float> bdy = random_vec(bn.y.size(), 5);
  bn.backward(bdy);
  const auto g0 = bn.g;
  bn.backward(bdy, false, {false});
  CHECK(bn.g == g0);
}

TEST_CASE("cpu parameter gradients overwrite, or add with accumulate_param_grads") {
  LayerDesc fc = make_desc(LayerKind::Linear, "fc");
  fc.linear.out_features = 6;
  const std::vector<std::pair<LayerDesc, Shape>> layers{{conv_layer("conv", 8, 3, 1, 1, 1, true), Shape{2, 4, 5, 5}},
                                                        {conv_layer("conv", 8, 3, 2, 1, 4, false), Shape{2, 8, 5, 5}},
                                                        {fc, Shape{3, 9}},
                                                        {make_desc(LayerKind::BatchNorm, "bn"), Shape{2, 4, 3, 3}}};
  for (const auto& [d, s] : layers) {
    INFO("layer kind " << static_cast<int>(d.kind));
    LayerRig rig(d, {s});
    rig.forward();
    const std::vector<float> dy1 = random_vec(rig.y.size(), 11), dy2 = random_vec(rig.y.size(), 12);
    for (auto& g : rig.g) g.assign(g.size(), 1000.f);  // overwritten, not added to
    rig.backward(dy1);
    const auto g1 = rig.g;
    rig.backward(dy2);
    const auto g2 = rig.g;
    rig.backward(dy1);
    rig.backward(dy2, true);
    for (size_t i = 0; i < g1.size(); ++i) {
      for (size_t j = 0; j < g1[i].size(); ++j) {
        CHECK(std::abs(g1[i][j]) < 100.f);
        CHECK(rig.g[i][j] == Approx(g1[i][j] + g2[i][j]).margin(1e-4));
      }
    }
  }
}

TEST_CASE("cpu Winograd convolution gives direct convolution's outputs and gradients") {
  if (!cpu_has_winograd()) {
    MG_SKIP("oneDNN has no Winograd convolution on this CPU");
  }
  CpuBackend direct = conv_backend(CpuConvAlgo::Direct), wino = conv_backend(CpuConvAlgo::Winograd);
  const std::vector<std::pair<LayerDesc, Shape>> layers{{conv_layer("conv", 64, 3, 1, 1, 1, true), Shape{2, 64, 14, 14}},
                                                        {conv_layer("conv", 16, 3, 1, 1), Shape{3, 3, 11, 9}}};
  for (const auto& [d, s] : layers) {
    INFO("input " << s.str());
    const int direct_before = direct.conv_algorithm_counts()["direct"], wino_before = wino.conv_algorithm_counts()["winograd"];
    LayerRig a(d, {s}, Precision::FP32, 7, &direct), b(d, {s}, Precision::FP32, 7, &wino);
    // Each backend says what it ran: these layers, pinned, the one algorithm each.
    CHECK(direct.conv_algorithm_counts().count("winograd") == 0);
    CHECK(wino.conv_algorithm_counts().count("direct") == 0);
    CHECK(direct.conv_algorithm_counts()["direct"] == direct_before + 1);
    CHECK(wino.conv_algorithm_counts()["winograd"] == wino_before + 1);
    const std::vector<float> dy2 = agree_forward_backward(a, b);
    // Accumulated, without the input gradient (the network's first layer): the input gradient is untouched.
    b.dx[0].assign(b.dx[0].size(), 42.f);
    a.backward(dy2, true, {false});
    b.backward(dy2, true, {false});
    CHECK(std::all_of(b.dx[0].begin(), b.dx[0].end(), [](float v) { return v == 42.f; }));
    for (size_t i = 0; i < a.g.size(); ++i) CHECK(rel_err(b.g[i], a.g[i]) < 1e-5);
  }
}

TEST_CASE("cpu convolution on its timed implementations gives the pinned one's outputs and gradients") {
  // Shapes of ResNet-50's 56x56 pointwise layers at batch 8, long enough at set-up for the timed choice to take
  // another of oneDNN's implementations of a pass (gemm was faster for them on the development VM) where the
  // pinned backend keeps oneDNN's first; whichever ran, the results agree to rounding.
  CpuBackend pinned = conv_backend(CpuConvAlgo::Direct), timed = conv_backend(CpuConvAlgo::Fastest);
  const std::vector<std::pair<LayerDesc, Shape>> layers{{conv_layer("conv", 256, 1, 1, 0, 1, false), Shape{8, 64, 56, 56}},
                                                        {conv_layer("conv", 64, 1, 1, 0, 1, true), Shape{8, 256, 56, 56}}};
  for (const auto& [d, s] : layers) {
    INFO("input " << s.str() << " out " << d.conv.out_channels);
    LayerRig a(d, {s}, Precision::FP32, 7, &pinned), b(d, {s}, Precision::FP32, 7, &timed);
    const std::vector<float> dy2 = agree_forward_backward(a, b);
    a.backward(dy2, true);
    b.backward(dy2, true);
    for (size_t i = 0; i < a.g.size(); ++i) CHECK(rel_err(b.g[i], a.g[i]) < 1e-5);
  }
}

TEST_CASE("cpu dropout: inverted scaling, mask statistics, determinism, backward uses the forward mask") {
  const Shape s{4, 8, 16, 16};
  const int64_t n = s.numel();
  LayerDesc d = make_desc(LayerKind::Dropout, "drop");
  d.dropout.p = 0.3f;
  LayerRig a(d, {s}, Precision::FP32, 7), b(d, {s}, Precision::FP32, 7), other(d, {s}, Precision::FP32, 8);
  for (LayerRig* r : {&a, &b, &other}) {
    for (float& v : r->x[0]) v = v >= 0 ? v + 0.1f : v - 0.1f;  // never zero, so zero output means dropped
  }
  b.x = a.x;
  other.x = a.x;
  const std::vector<float> y1 = a.forward();
  int64_t kept = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (y1[i] != 0.f) {
      ++kept;
      CHECK(y1[i] == Approx(a.x[0][i] / 0.7f).epsilon(1e-6));
    }
  }
  // Binomial(n, 0.7): within 5 standard deviations.
  const double sd = std::sqrt(n * 0.7 * 0.3);
  CHECK(std::abs(static_cast<double>(kept) - 0.7 * n) < 5 * sd);
  CHECK(b.forward() == y1);            // same seed, same call: same mask
  CHECK(other.forward() != y1);        // another seed: another mask
  const std::vector<float> y2 = a.forward();
  CHECK(y2 != y1);                     // the next call draws a fresh mask
  // The documented formula reproduces the mask of call 1.
  const uint64_t stream = splitmix64(7) + 1;
  for (int64_t i = 0; i < n; i += 97) CHECK((y2[i] != 0.f) == (counter_uniform(stream, i) >= 0.3f));

  const std::vector<float> dy = random_vec(a.y.size(), 21);
  a.backward(dy);
  for (int64_t i = 0; i < n; ++i) {
    const float want = y2[i] != 0.f ? dy[i] / 0.7f : 0.f;
    if (a.dx[0][i] != Approx(want).epsilon(1e-6)) FAIL("dropout gradient at " << i);
  }
  CHECK(a.forward(false) == a.x[0]);  // inference: identity
}

TEST_CASE("cpu dropout: a backward before any training forward is an error naming the layer") {
  LayerDesc d = make_desc(LayerKind::Dropout, "drop");
  d.dropout.p = 0.3f;
  LayerRig r(d, {Shape{2, 4, 3, 3}}, Precision::FP32, 7);
  r.forward(false);  // inference draws no mask
  CHECK_THROWS_WITH(r.backward(random_vec(r.y.size(), 5)),
                    Catch::Contains("dropout layer drop: backward before a training forward"));
}

TEST_CASE("cpu batch norm's loop variants: the best this CPU runs first, the baseline always, others refused") {
  const std::vector<std::string> isas = cpu::bn::runnable_isas();
  REQUIRE_FALSE(isas.empty());
  CHECK(isas.back() == "baseline");
  CHECK_THROWS_AS(cpu::bn::use_isa("sse9"), std::invalid_argument);
  // The layers' variant is the best one again after a test picked others.
  for_each_bn_isa([](const std::string&) {});
  CHECK(cpu::bn::current_isa() == isas.front());
  LayerRig rig(make_desc(LayerKind::BatchNorm, "bn"), {Shape{2, 20, 8, 8}});
  const std::vector<float> best = rig.forward();
  cpu::bn::use_isa(isas.back());
  CHECK(cpu::bn::current_isa() == "baseline");
  const std::vector<float> base = rig.forward();
  cpu::bn::use_isa(isas.front());
  CHECK(rel_err(base, best) < 1e-6);
}
