// The transformer layer kinds on the CPU backend against the naive fp64 reference (check/reference_layers.h):
// forward, input gradients, parameter gradients overwritten and then accumulated; against finite differences
// too, so a misreading shared by the reference and the layer still shows; and the properties a model relies on.
#include <cstring>

#include "check/reference_layers.h"
#include "layer_test_util.h"

using namespace mgtest;

namespace {

LayerDesc attention(int64_t heads, bool causal) {
  LayerDesc d = make_desc(LayerKind::Attention);
  d.attention = {heads, causal};
  return d;
}

LayerDesc linear(int64_t out) {
  LayerDesc d = make_desc(LayerKind::Linear);
  d.linear.out_features = out;
  return d;
}

LayerDesc gelu_erf() {
  LayerDesc d = make_desc(LayerKind::Gelu);
  d.gelu.tanh = false;
  return d;
}

LayerDesc patch_tokens(int64_t patches) {
  LayerDesc d = make_desc(LayerKind::PatchTokens);
  d.patch_tokens.patches = patches;
  return d;
}

LayerDesc embedding(int64_t vocab, int64_t dim, int64_t positions) {
  LayerDesc d = make_desc(LayerKind::Embedding);
  d.embedding = {vocab, dim, positions};
  return d;
}

// One layer at a precision against the reference; tol is the norm-wise relative error allowed.
void matches_reference(const LayerDesc& d, const Shape& in, Precision p, double tol, float input_range = 1.f) {
  INFO(layer_kind_name(d.kind) << " " << in.str() << " " << precision_name(p));
  LayerRig rig(d, {in}, p);
  for (float& v : rig.x[0]) v = check::rounded({v * input_range}, rig.dt)[0];
  const std::vector<float> dy = check::rounded(random_vec(rig.y.size(), 5), rig.dt);
  const check::ReferenceRun want = check::reference_layer(d, {in}, rig.x, rig.p, dy, 1);
  CHECK(rel_err(rig.forward(), want.out) < tol);
  rig.backward(dy);
  CHECK(rel_err(rig.dx[0], want.din[0]) < tol);
  REQUIRE(rig.g.size() == want.dparams.size());
  for (size_t j = 0; j < rig.g.size(); ++j) CHECK(rel_err(rig.g[j], want.dparams[j]) < tol);
  rig.backward(dy, true);
  for (size_t j = 0; j < rig.g.size(); ++j) {
    std::vector<float> twice = want.dparams[j];
    for (float& v : twice) v *= 2.f;
    CHECK(rel_err(rig.g[j], twice) < tol);
  }
}

template <typename Body>
void at_each_precision(Body body) {
  body(Precision::FP32, 1e-5);
  if (backend().supports(Precision::BF16)) body(Precision::BF16, 2e-2);
}

// Embedding runs on int32 ids, which LayerRig does not hold: its own storage.
struct EmbeddingRun {
  std::vector<int32_t> ids;
  std::vector<float> wte, wpe, dwte, dwpe, y;
  std::unique_ptr<LayerOp> op;
  EmbeddingRun(const LayerDesc& d, const Shape& in, std::vector<int32_t> token_ids)
      : ids(std::move(token_ids)),
        wte(random_vec(static_cast<size_t>(d.embedding.vocab * d.embedding.dim), 3)),
        wpe(random_vec(static_cast<size_t>(d.embedding.max_positions * d.embedding.dim), 4)),
        dwte(wte.size()),
        dwpe(wpe.size()),
        y(static_cast<size_t>(in.numel() * d.embedding.dim)) {
    op = backend().create_layer(d, {in}, LayerOptions{});
    op->bind({wte.data(), wpe.data()}, {dwte.data(), dwpe.data()});
  }
  Tensor x() { return Tensor{ids.data(), Shape{static_cast<int64_t>(ids.size())}, DType::I32}; }
  Tensor out() { return Tensor{y.data(), op->output_shape(), DType::F32}; }
};

}  // namespace

TEST_CASE("cpu transformer layers match the naive reference: forward, input and parameter gradients") {
  at_each_precision([](Precision p, double tol) {
    matches_reference(make_desc(LayerKind::LayerNorm), Shape{3, 4, 40}, p, tol, 3.f);
    matches_reference(make_desc(LayerKind::LayerNorm), Shape{5, 24}, p, tol);
    matches_reference(make_desc(LayerKind::Gelu), Shape{2, 3, 50}, p, tol, 4.f);
    matches_reference(attention(3, true), Shape{2, 9, 72}, p, tol, 2.f);
    matches_reference(attention(2, false), Shape{3, 5, 24}, p, tol, 2.f);
    matches_reference(attention(1, true), Shape{1, 1, 6}, p, tol);  // one token sees only itself
    matches_reference(linear(7), Shape{2, 4, 20}, p, tol);
    matches_reference(make_desc(LayerKind::TokenFlatten), Shape{2, 3, 11}, p, tol);
    matches_reference(gelu_erf(), Shape{2, 3, 50}, p, tol, 4.f);
    matches_reference(patch_tokens(6), Shape{3, 10, 2, 3}, p, tol);
    matches_reference(make_desc(LayerKind::ClassToken), Shape{3, 7, 10}, p, tol);
  });
}

TEST_CASE("cpu layer norm, GELU, attention and the class-token layers backward match finite differences") {
  // Finite differences in fp32 (h = 1e-2), as the other layers' backward tests.
  for (const auto& [d, s] : std::vector<std::pair<LayerDesc, Shape>>{{make_desc(LayerKind::LayerNorm), {2, 3, 10}},
                                                                     {make_desc(LayerKind::Gelu), {2, 3, 10}},
                                                                     {gelu_erf(), {2, 3, 10}},
                                                                     {patch_tokens(4), {2, 6, 2, 2}},
                                                                     {make_desc(LayerKind::ClassToken), {2, 4, 6}},
                                                                     {attention(2, true), {2, 5, 24}},
                                                                     {attention(2, false), {1, 4, 12}}}) {
    INFO(layer_kind_name(d.kind) << " " << s.str());
    LayerRig rig(d, {s});
    check_gradients(rig, 1e-2f, 2e-3, 1e-2);
  }
}

TEST_CASE("cpu attention keeps one float per score row from forward to backward and recomputes P in backward") {
  for (const bool causal : {true, false}) {
    INFO((causal ? "causal" : "full"));
    const LayerDesc d = attention(3, causal);
    const Shape in{2, 9, 72};
    CpuBackend be(0, BackendOptions{});
    be.reset_peak_memory();
    const size_t base = be.peak_memory_bytes();
    LayerRig rig(d, {in}, Precision::FP32, 1, &be), other(d, {in}, Precision::FP32, 2, &be);
    // Both layers' own allocations: the rows' log-sum-exp, 2*3*9 floats each (rounded to 64 bytes), not P.
    CHECK(be.peak_memory_bytes() - base <= 2 * size_t{64} * ((2 * 3 * 9 * sizeof(float) + 63) / 64));
    const std::vector<float> dy = random_vec(rig.y.size(), 5);
    const check::ReferenceRun want = check::reference_layer(d, {in}, rig.x, rig.p, dy, 1);
    rig.forward();
    other.forward();  // another layer's P overwrites the shared staging between this one's forward and backward
    rig.backward(dy);
    CHECK(rel_err(rig.dx[0], want.din[0]) < 1e-5);
  }
}

TEST_CASE("cpu causal attention: a token's output does not depend on later tokens, under full attention it does") {
  for (const bool causal : {true, false}) {
    LayerRig rig(attention(2, causal), {Shape{1, 6, 24}});
    const std::vector<float> before = rig.forward();
    for (size_t i = 5 * 24; i < 6 * 24; ++i) rig.x[0][i] += 1.f;  // the last token's q, k and v
    const std::vector<float> after = rig.forward();
    const std::vector<float> first(before.begin(), before.begin() + 5 * 8), moved(after.begin(), after.begin() + 5 * 8);
    if (causal) {
      CHECK(first == moved);
    } else {
      CHECK(rel_err(moved, first) > 1e-3);
    }
  }
}

TEST_CASE("cpu embedding: token and position rows, scattered gradients overwritten then accumulated") {
  const LayerDesc d = embedding(11, 6, 8);
  const Shape in{3, 5};
  std::vector<int32_t> ids(15);
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int32_t>((i * 7) % 4);  // ids repeat
  EmbeddingRun run(d, in, ids);
  REQUIRE(run.op->output_shape() == Shape({3, 5, 6}));
  run.op->forward({run.x()}, run.out(), true);
  const std::vector<float> dy = random_vec(run.y.size(), 9);
  const Tensor dout{const_cast<float*>(dy.data()), run.op->output_shape(), DType::F32};
  run.op->backward({run.x()}, run.out(), dout, {Tensor{nullptr, in, DType::F32}}, false);
  const std::vector<float> ids_f(ids.begin(), ids.end());
  const check::ReferenceRun want = check::reference_layer(d, {in}, {ids_f}, {run.wte, run.wpe}, dy, 0);
  CHECK(rel_err(run.y, want.out) < 1e-6);
  CHECK(rel_err(run.dwte, want.dparams[0]) < 1e-6);
  CHECK(rel_err(run.dwpe, want.dparams[1]) < 1e-6);
  CHECK(run.dwte[10 * 6] == 0.f);  // an id that never occurs gets no gradient
  run.op->backward({run.x()}, run.out(), dout, {Tensor{nullptr, in, DType::F32}}, true);
  for (size_t i = 0; i < run.dwte.size(); ++i) CHECK(run.dwte[i] == Approx(2 * want.dparams[0][i]).margin(1e-6));
  // The ids are the network input: asking for their gradient, or an id outside the table, is a bug named.
  std::vector<float> junk(15);
  CHECK_THROWS_WITH(run.op->backward({run.x()}, run.out(), dout, {Tensor{junk.data(), in, DType::F32}}, false),
                    Catch::Contains("token ids have no gradient"));
  run.ids[4] = 11;
  CHECK_THROWS_WITH(run.op->forward({run.x()}, run.out(), true), Catch::Contains("token id 11 outside"));
}

TEST_CASE("cpu transformer layers refuse shapes that make no layer, naming it") {
  CHECK_THROWS_AS(LayerRig(attention(5, true), {Shape{2, 4, 24}}), UsageError);  // C = 8 is not 5 heads
  CHECK_THROWS_AS(LayerRig(attention(2, true), {Shape{2, 4, 16}}), UsageError);  // 16 is not 3C
  CHECK_THROWS_AS(LayerRig(make_desc(LayerKind::LayerNorm), {Shape{2, 4, 3, 3}}), UsageError);
  CHECK_THROWS_WITH(backend().create_layer(embedding(10, 4, 8), {Shape{2, 9}}, LayerOptions{}),
                    Catch::Contains("sequence length 9 exceeds the 8 positions"));
}
