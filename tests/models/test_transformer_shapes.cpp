// layer_shapes of the transformer kinds: token embedding, layer norm, GELU, attention, a Linear on {N,T,C} and
// token flatten, with their parameters and the faults that make no layer.
#include <catch2/catch.hpp>

#include "models/layer_desc.h"
#include "support/layer_of.h"

using namespace mg;

namespace {
using mg::test::layer_of;
}  // namespace

TEST_CASE("layer_shapes: embedding, layer norm, GELU, attention, token Linear and token flatten") {
  LayerDesc e = layer_of(LayerKind::Embedding);
  e.embedding = {100, 16, 32};
  const LayerShapes es = layer_shapes(e, {Shape{2, 10}});
  REQUIRE(es.fault == LayerFault::None);
  CHECK(es.out == Shape{2, 10, 16});
  REQUIRE(es.params.size() == 2);
  CHECK(es.params[0].shape == Shape{100, 16});  // token table
  CHECK(es.params[1].shape == Shape{32, 16});   // position table, all Tmax rows
  const LayerShapes ln = layer_shapes(layer_of(LayerKind::LayerNorm), {Shape{2, 10, 16}});
  CHECK(ln.out == Shape{2, 10, 16});
  REQUIRE(ln.params.size() == 2);
  CHECK(ln.params[0].shape == Shape{16});
  CHECK(layer_shapes(layer_of(LayerKind::Gelu), {Shape{2, 10, 64}}).out == Shape{2, 10, 64});
  LayerDesc a = layer_of(LayerKind::Attention);
  a.attention.heads = 4;
  const LayerShapes as = layer_shapes(a, {Shape{2, 10, 48}});
  CHECK(as.out == Shape{2, 10, 16});
  CHECK(as.params.empty());
  LayerDesc fc = layer_of(LayerKind::Linear);
  fc.linear.out_features = 48;
  const LayerShapes fs = layer_shapes(fc, {Shape{2, 10, 16}});
  CHECK(fs.out == Shape{2, 10, 48});
  CHECK(fs.params[0].shape == Shape{48, 16});  // per token: C in, not T*C
  CHECK(layer_shapes(layer_of(LayerKind::TokenFlatten), {Shape{2, 10, 7}}).out == Shape{20, 7});
}

TEST_CASE("layer_shapes: transformer kinds refuse inputs that make no layer") {
  LayerDesc e = layer_of(LayerKind::Embedding);
  e.embedding = {100, 16, 8};
  CHECK(layer_shapes(e, {Shape{2, 9}}).fault == LayerFault::Invalid);  // longer than the position table
  CHECK(layer_shapes(e, {Shape{2, 8}}).fault == LayerFault::None);
  CHECK(layer_shapes(e, {Shape{2, 8, 3}}).fault == LayerFault::Invalid);
  LayerDesc a = layer_of(LayerKind::Attention);
  a.attention.heads = 3;
  CHECK(layer_shapes(a, {Shape{2, 4, 24}}).fault == LayerFault::Invalid);  // C = 8, not a multiple of 3 heads
  CHECK(layer_shapes(a, {Shape{2, 4, 20}}).fault == LayerFault::Invalid);  // not 3C
  CHECK(layer_shapes(a, {Shape{2, 24}}).fault == LayerFault::Invalid);
  CHECK(layer_shapes(layer_of(LayerKind::LayerNorm), {Shape{2, 3, 4, 4}}).fault == LayerFault::Invalid);
  CHECK(layer_shapes(layer_of(LayerKind::TokenFlatten), {Shape{2, 3}}).fault == LayerFault::Invalid);
}
