// bf16 CPU layers (bf16 activations, fp32 master weights and gradients) against the fp32 layers on the same
// inputs. bf16 keeps 8 significand bits (relative rounding 2^-9), and the inputs, weights and outputs are each
// rounded once while oneDNN accumulates in fp32, so results agree to a few parts in a hundred of the tensor's
// scale: |bf16 - fp32| <= 3e-2 * max|fp32| + 1e-3.
#include "layer_test_util.h"
#include "support/skip.h"

using namespace mgtest;

namespace {

double scale_of(const std::vector<float>& v) {
  double m = 0;
  for (float x : v) m = std::max(m, static_cast<double>(std::abs(x)));
  return m;
}

void expect_close(const std::vector<float>& got, const std::vector<float>& want, const std::string& what) {
  REQUIRE(got.size() == want.size());
  const double tol = 3e-2 * scale_of(want) + 1e-3;
  double worst = 0;
  for (size_t i = 0; i < got.size(); ++i) worst = std::max(worst, std::abs(static_cast<double>(got[i]) - want[i]));
  INFO(what << ": max |bf16 - fp32| " << worst << ", tolerance " << tol);
  CHECK(worst <= tol);
}

void compare(const LayerDesc& d, const std::vector<Shape>& shapes) {
  LayerRig f32(d, shapes, Precision::FP32, 3), b16(d, shapes, Precision::BF16, 3);
  // The fp32 run sees the bf16-rounded inputs, so the comparison measures the layer, not the input rounding.
  for (auto& x : f32.x)
    for (float& v : x) v = bf16_to_float(float_to_bf16(v));
  b16.x = f32.x;
  b16.p = f32.p;
  expect_close(b16.forward(), f32.forward(), "forward");
  std::vector<float> dy = random_vec(f32.y.size(), 9);
  for (float& v : dy) v = bf16_to_float(float_to_bf16(v));
  f32.backward(dy);
  b16.backward(dy);
  for (size_t i = 0; i < f32.dx.size(); ++i) expect_close(b16.dx[i], f32.dx[i], "input gradient " + std::to_string(i));
  for (size_t i = 0; i < f32.g.size(); ++i) expect_close(b16.g[i], f32.g[i], "param gradient " + std::to_string(i));
}

}  // namespace

TEST_CASE("cpu bf16 layers agree with fp32 within bf16 tolerance") {
  if (!cpu_has_bf16()) {
    CHECK_THROWS_AS(LayerRig(make_desc(LayerKind::Relu), {Shape{1, 2, 2, 2}}, Precision::BF16), UsageError);
    MG_SKIP("this CPU has no native bf16 (AVX-512 BF16 / AMX), so the CPU backend offers fp32 only");
  }
  const Shape s{2, 16, 6, 6};
  const LayerDesc conv = conv_layer("conv", 32, 3, 1, 1, 1, true);
  LayerDesc dw = conv;
  dw.conv.out_channels = 16;
  dw.conv.groups = 16;
  dw.conv.stride_h = dw.conv.stride_w = 2;
  LayerDesc fc = make_desc(LayerKind::Linear, "fc");
  fc.linear.out_features = 10;
  LayerDesc maxp = make_desc(LayerKind::MaxPool, "maxpool");
  maxp.pool.kh = maxp.pool.kw = 3;
  maxp.pool.stride_h = maxp.pool.stride_w = 2;
  maxp.pool.pad_h = maxp.pool.pad_w = 1;
  LayerDesc avgp = maxp;
  avgp.kind = LayerKind::AvgPool;
  avgp.pool.ceil_mode = true;
  LayerDesc drop = make_desc(LayerKind::Dropout, "drop");
  drop.dropout.p = 0.2f;

  SECTION("conv") { compare(conv, {s}); }
  SECTION("depthwise conv") { compare(dw, {s}); }
  SECTION("linear") { compare(fc, {Shape{4, 16, 2, 2}}); }
  SECTION("batch norm") { compare(make_desc(LayerKind::BatchNorm, "bn"), {s}); }
  SECTION("relu") { compare(make_desc(LayerKind::Relu), {s}); }
  SECTION("max pool") { compare(maxp, {s}); }
  SECTION("avg pool, ceil mode") { compare(avgp, {s}); }
  SECTION("global avg pool") { compare(make_desc(LayerKind::GlobalAvgPool), {s}); }
  SECTION("add") { compare(make_desc(LayerKind::Add), {s, s}); }
  SECTION("concat") { compare(make_desc(LayerKind::Concat), {s, Shape{2, 8, 6, 6}}); }
  SECTION("flatten") { compare(make_desc(LayerKind::Flatten), {s}); }
  SECTION("dropout (same seed, same mask)") { compare(drop, {s}); }
}
