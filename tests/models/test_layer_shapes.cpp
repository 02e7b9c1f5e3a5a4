// layer_shapes: the one definition of a layer's output and parameter shapes that infer_shapes and both backends
// use, and the faults it reports for inputs or parameters that make no layer.
#include <catch2/catch.hpp>

#include "core/error.h"
#include "models/layer_desc.h"
#include "support/layer_of.h"

using namespace mg;

namespace {
using mg::test::layer_of;
}  // namespace

TEST_CASE("layer_shapes: conv and pooling output sizes follow torch, parameters the canonical layouts") {
  const LayerShapes c = layer_shapes(conv_layer("c", 8, 3, 2, 1, 2, true), {Shape{2, 4, 7, 7}});
  REQUIRE(c.fault == LayerFault::None);
  CHECK(c.out == Shape{2, 8, 4, 4});
  REQUIRE(c.params.size() == 2);
  CHECK(c.params[0].shape == Shape{8, 3, 3, 2});  // OHWI, I per group
  CHECK(c.params[1].shape == Shape{8});

  LayerDesc p = layer_of(LayerKind::MaxPool);
  p.pool.kh = p.pool.kw = 2;
  p.pool.stride_h = p.pool.stride_w = 2;
  p.pool.ceil_mode = true;
  CHECK(layer_shapes(p, {Shape{1, 3, 7, 7}}).out == Shape{1, 3, 4, 4});
  CHECK(layer_shapes(layer_of(LayerKind::GlobalAvgPool), {Shape{2, 5, 3, 3}}).out == Shape{2, 5});
  CHECK(layer_shapes(layer_of(LayerKind::Flatten), {Shape{2, 5, 3, 3}}).out == Shape{2, 45});
}

TEST_CASE("layer_shapes: a Linear reads a 4-D input flattened, concat adds channels") {
  LayerDesc fc = layer_of(LayerKind::Linear);
  fc.linear.out_features = 6;
  const LayerShapes l = layer_shapes(fc, {Shape{2, 3, 2, 2}});
  CHECK(l.out == Shape{2, 6});
  CHECK(l.params[0].shape == Shape{6, 12});
  CHECK(layer_shapes(layer_of(LayerKind::Concat), {Shape{2, 3, 4, 4}, Shape{2, 5, 4, 4}}).out == Shape{2, 8, 4, 4});
  CHECK(layer_shapes(layer_of(LayerKind::Concat), {Shape{2, 3}, Shape{2, 5}}).out == Shape{2, 8});
}

TEST_CASE("layer_shapes: faults name the layer and say what is wrong") {
  const LayerShapes small = layer_shapes(conv_layer("c", 4, 7, 1, 0), {Shape{1, 3, 4, 4}});
  CHECK(small.fault == LayerFault::TooSmall);
  CHECK(small.why == "conv layer c: input [1,3,4,4] is smaller than the 7x7 kernel");
  CHECK(layer_shapes(conv_layer("c", 4, 3, 1, 1, 2), {Shape{1, 3, 4, 4}}).fault == LayerFault::Invalid);
  CHECK(layer_shapes(layer_of(LayerKind::Add), {Shape{1, 3, 4, 4}, Shape{1, 3, 4, 5}}).fault == LayerFault::Invalid);
  CHECK(layer_shapes(layer_of(LayerKind::Relu), {Shape{1, 3, 0, 4}}).fault == LayerFault::Invalid);
  CHECK(layer_shapes(layer_of(LayerKind::Relu), {}).fault == LayerFault::Invalid);
  CHECK(layer_shapes(layer_of(LayerKind::Input), {}).fault == LayerFault::Invalid);
  LayerDesc fc = layer_of(LayerKind::Linear);
  fc.linear.out_features = 6;
  fc.linear.in_features = 10;
  const LayerShapes m = layer_shapes(fc, {Shape{2, 12}});
  CHECK(m.fault == LayerFault::Mismatch);
  CHECK(m.why == "linear layer l: expects 10 input features, got 12 from input [2,12]");
  CHECK_THROWS_AS(layer_params(fc, {Shape{2, 12}}), UsageError);
}
