// The token cross-entropy row of mgbench check: its fp64 reference against values by hand, the CPU backend
// passing it at every precision it has, and a row that fails when the gradient or the loss is wrong.
#include <catch2/catch.hpp>

#include <cmath>

#include "backend/backend.h"
#include "check/reference_layers.h"
#include "check/xent_check.h"
#include "support/cpu_backend_one_thread.h"
#include "support/delegating_backend.h"

using namespace mg;
using namespace mg::check;

namespace {

// A loss kernel whose d(logits) lacks the 1/N mean: the gradient of the summed loss.
class UnmeanedGradient final : public test::DelegatingBackend {
 public:
  using DelegatingBackend::DelegatingBackend;
  void softmax_xent(const Tensor& l, const Tensor& y, const Tensor& loss, const Tensor& dl, float g) override {
    b_.softmax_xent(l, y, loss, dl, g * static_cast<float>(l.shape.n()));
  }
};

// A loss kernel that writes no loss when no gradient is asked for (an evaluation step's call).
class NoLossWithoutGradient final : public test::DelegatingBackend {
 public:
  using DelegatingBackend::DelegatingBackend;
  void softmax_xent(const Tensor& l, const Tensor& y, const Tensor& loss, const Tensor& dl, float g) override {
    if (dl.data) b_.softmax_xent(l, y, loss, dl, g);
  }
};

std::vector<Precision> cpu_precisions(const Backend& be) {
  std::vector<Precision> out;
  for (Precision p : {Precision::FP32, Precision::TF32, Precision::FP16, Precision::BF16})
    if (be.supports(p)) out.push_back(p);
  return out;
}

}  // namespace

TEST_CASE("reference: softmax cross-entropy over two tokens by hand", "[check][reference][xent]") {
  // Equal logits: p = 1/2 each, loss ln 2 per token; d = grad_scale (p - onehot) / 2 tokens.
  const ReferenceXent r = reference_softmax_xent({0, 0, 5, 5}, {1, 0}, 2, 4.0);
  CHECK(r.loss == Approx(std::log(2.0)));
  CHECK(r.dlogits == Vec{1, -1, -1, 1});
  // A token whose target has all the mass costs nothing and gets no gradient, however large its logits.
  const ReferenceXent sure = reference_softmax_xent({1000, -1000}, {0}, 2, 1.0);
  CHECK(sure.loss == Approx(0.0).margin(1e-12));
  CHECK(sure.dlogits[0] == Approx(0.0).margin(1e-12));
  CHECK_THROWS(reference_softmax_xent({0, 0}, {2}, 2, 1.0));
}

TEST_CASE("check: the token cross-entropy row passes on the CPU backend at every precision it has",
          "[check][xent]") {
  auto be = test::cpu_one_thread();
  for (Precision p : cpu_precisions(*be)) {
    const CheckRow row = check_softmax_xent(*be, p);
    INFO(row.name << " " << row.precision << ": " << row.error << " vs " << row.tolerance << " (" << row.detail << ")");
    CHECK(row.passed);
    CHECK(row.group == "loss");
    CHECK(row.name == "token_xent (softmax cross-entropy)");
    CHECK(row.precision == precision_name(p));
    CHECK(row.metric == "rel_err");
    CHECK(row.error <= row.tolerance);
    CHECK(row.detail.find("reference: naive fp64") != std::string::npos);
  }
}

TEST_CASE("check: the cross-entropy row's fp16 and bf16 logits pass within their tolerance", "[check][xent]") {
  // The CPU loss kernel reads and writes every dtype whatever the CPU's oneDNN offers, so the 16-bit rows a GPU
  // runs are exercised here too.
  auto be = test::cpu_one_thread();
  for (Precision p : {Precision::FP16, Precision::BF16}) {
    const CheckRow row = check_softmax_xent(*be, p);
    INFO(row.precision << ": " << row.error << " vs " << row.tolerance << " (" << row.detail << ")");
    CHECK(row.passed);
    CHECK(row.error > 0);  // d(logits) rounded to 16 bits
    CHECK(row.error <= row.tolerance / 4);
  }
}

TEST_CASE("check: a cross-entropy without the mean's 1/N, or without a loss when no gradient is asked, fails",
          "[check][xent]") {
  auto real = test::cpu_one_thread();
  UnmeanedGradient unmeaned(*real);
  const CheckRow bad = check_softmax_xent(unmeaned, Precision::FP32);
  INFO(bad.detail);
  CHECK_FALSE(bad.passed);
  CHECK(bad.error == Approx(23.0));  // 24 tokens: d(logits) 24 times too large
  CHECK(bad.detail.find("worst: d(logits)") != std::string::npos);
  NoLossWithoutGradient lossless(*real);
  const CheckRow silent = check_softmax_xent(lossless, Precision::FP32);
  INFO(silent.detail);
  CHECK_FALSE(silent.passed);
  CHECK(silent.detail.find("worst: loss without gradient") != std::string::npos);
}
