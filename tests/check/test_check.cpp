// mgbench check on the CPU: the naive reference against hand-computed values (so it is not merely
// self-consistent), the CPU backend against the reference for every layer case, the collectives' #wrong
// count, the training check, the loss and AdamW rows in the report, and a check that bites when a layer is wrong.
#include <catch2/catch.hpp>

#include <algorithm>

#include <cmath>

#include "backend/backend.h"
#include "check/check.h"
#include "check/layer_check.h"
#include "check/reference_layers.h"
#include "check/system_check.h"
#include "core/error.h"
#include "models/registry.h"
#include "support/delegating_backend.h"
#include "support/cpu_backend_one_thread.h"

using namespace mg;
using namespace mg::check;

namespace {

using mg::test::cpu_one_thread;

LayerDesc kind(LayerKind k) {
  LayerDesc d;
  d.kind = k;
  d.name = "t";
  return d;
}

// A backend whose layers' forward outputs are 1% too large: what a wrong kernel looks like to the check.
class OffLayer final : public LayerOp {
 public:
  OffLayer(std::unique_ptr<LayerOp> op, Backend& be) : op_(std::move(op)), be_(be) {}
  Shape output_shape() const override { return op_->output_shape(); }
  std::vector<ParamShape> params() const override { return op_->params(); }
  void bind(const std::vector<float*>& p, const std::vector<float*>& g) override { op_->bind(p, g); }
  void forward(const std::vector<Tensor>& in, const Tensor& out, bool training) override {
    op_->forward(in, out, training);
    be_.scale(out, 1.01f);
  }
  void backward(const std::vector<Tensor>& in, const Tensor& out, const Tensor& dout, const std::vector<Tensor>& din,
                bool acc) override {
    op_->backward(in, out, dout, din, acc);
  }

 private:
  std::unique_ptr<LayerOp> op_;
  Backend& be_;
};

class OffBackend final : public test::DelegatingBackend {
 public:
  using DelegatingBackend::DelegatingBackend;
  std::unique_ptr<LayerOp> create_layer(const LayerDesc& d, const std::vector<Shape>& in,
                                        const LayerOptions& o) override {
    return std::make_unique<OffLayer>(b_.create_layer(d, in, o), b_);
  }
};

// A fused BatchNorm/Add+ReLU whose forward is right but whose backward forgets the ReLU mask (the unfused
// layer's backward on the unmasked dout): the mistake a fused kernel is most likely to make.
class MasklessLayer final : public LayerOp {
 public:
  MasklessLayer(std::unique_ptr<LayerOp> fused, std::unique_ptr<LayerOp> plain)
      : fused_(std::move(fused)), plain_(std::move(plain)) {}
  Shape output_shape() const override { return fused_->output_shape(); }
  std::vector<ParamShape> params() const override { return fused_->params(); }
  void bind(const std::vector<float*>& p, const std::vector<float*>& g) override {
    fused_->bind(p, g);
    plain_->bind(p, g);
  }
  void forward(const std::vector<Tensor>& in, const Tensor& out, bool training) override {
    plain_->forward(in, out, training);  // so its backward has the batch statistics
    fused_->forward(in, out, training);
  }
  void backward(const std::vector<Tensor>& in, const Tensor& out, const Tensor& dout, const std::vector<Tensor>& din,
                bool acc) override {
    plain_->backward(in, out, dout, din, acc);
  }

 private:
  std::unique_ptr<LayerOp> fused_, plain_;
};

class MasklessBackend final : public test::DelegatingBackend {
 public:
  using DelegatingBackend::DelegatingBackend;
  std::unique_ptr<LayerOp> create_layer(const LayerDesc& d, const std::vector<Shape>& in,
                                        const LayerOptions& o) override {
    if (!o.relu) return b_.create_layer(d, in, o);
    LayerOptions plain = o;
    plain.relu = false;
    return std::make_unique<MasklessLayer>(b_.create_layer(d, in, o), b_.create_layer(d, in, plain));
  }
};

}  // namespace

TEST_CASE("reference: average pooling divides ceil-mode edge windows as torch does", "[check][reference]") {
  // 1x1x3x3 input of ones, 2x2 windows, stride 2, ceil mode: torch gives 1, 0.5 / 0.5, 0.25 (the last windows
  // hang over the input without padding, and count_include_pad counts only what lies in the padded input).
  LayerDesc d = kind(LayerKind::AvgPool);
  d.inputs = {0};
  d.pool.kh = d.pool.kw = 2;
  d.pool.stride_h = d.pool.stride_w = 2;
  d.pool.ceil_mode = true;
  const ReferenceRun r = reference_layer(d, {Shape{1, 1, 3, 3}}, {Vec(9, 1.0f)}, {}, Vec(4, 1.0f), 0);
  REQUIRE(r.out.size() == 4);
  CHECK(r.out[0] == Approx(1.0));
  CHECK(r.out[1] == Approx(1.0));  // window [2,4) x [0,2): 2 of 4 cells exist, divisor is 2 (no padding)
  CHECK(r.out[3] == Approx(1.0));
}

TEST_CASE("reference: a 2x2 convolution and a linear layer by hand", "[check][reference]") {
  LayerDesc c = conv_layer("t", 1, 2, 1, 0, 1, true);
  c.inputs = {0};
  // x = [[1,2],[3,4]] (one channel), w = [[1,0],[0,1]], b = 0.5: y = 1 + 4 + 0.5.
  ReferenceRun r = reference_layer(c, {Shape{1, 1, 2, 2}}, {{1, 2, 3, 4}}, {{1, 0, 0, 1}, {0.5f}}, {2.0f}, 0);
  REQUIRE(r.out.size() == 1);
  CHECK(r.out[0] == Approx(5.5));
  CHECK(r.din[0] == Vec{2, 0, 0, 2});       // dy * w
  CHECK(r.dparams[0] == Vec{2, 4, 6, 8});   // dy * x
  CHECK(r.dparams[1] == Vec{2});
  LayerDesc l = kind(LayerKind::Linear);
  l.inputs = {0};
  l.linear.out_features = 2;
  l.linear.bias = false;
  r = reference_layer(l, {Shape{1, 3}}, {{1, 2, 3}}, {{1, 1, 1, 0, 1, 0}}, {1, -1}, 0);
  CHECK(r.out == Vec{6, 2});
  CHECK(r.din[0] == Vec{1, 0, 1});  // dy W = [1,1,1] - [0,1,0]
}

TEST_CASE("reference: batch norm normalises with the biased batch variance", "[check][reference]") {
  LayerDesc d = kind(LayerKind::BatchNorm);
  d.inputs = {0};
  // One channel, values 0 and 2: mean 1, variance 1, so the outputs are -1 and 1 (eps aside).
  const ReferenceRun r = reference_layer(d, {Shape{2, 1, 1, 1}}, {{0, 2}}, {{1}, {0}}, {1, 1}, 0);
  CHECK(r.out[0] == Approx(-1.0).epsilon(1e-4));
  CHECK(r.out[1] == Approx(1.0).epsilon(1e-4));
  CHECK(r.dparams[1] == Vec{2});  // beta gradient = sum of dy
}

TEST_CASE("check: every layer case on the CPU backend matches the naive reference", "[check][layers]") {
  auto be = cpu_one_thread();
  std::vector<Precision> precisions{Precision::FP32};
  if (be->supports(Precision::BF16)) precisions.push_back(Precision::BF16);
  for (Precision p : precisions) {
    for (const LayerCase& c : all_layer_cases()) {
      const CheckRow row = check_layer(*be, nullptr, c, p);
      INFO(row.name << " " << row.precision << ": " << row.error << " vs " << row.tolerance << " (" << row.detail << ")");
      CHECK(row.passed);
      CHECK(row.error <= row.tolerance);
    }
  }
}

TEST_CASE("check: a layer that computes something else fails with its error and tolerance", "[check][layers]") {
  auto real = cpu_one_thread();
  OffBackend off(*real);
  const LayerCase c = all_layer_cases().front();  // a convolution
  const CheckRow ok = check_layer(*real, nullptr, c, Precision::FP32);
  CHECK(ok.passed);
  const CheckRow bad = check_layer(off, nullptr, c, Precision::FP32);
  INFO(bad.detail);
  CHECK_FALSE(bad.passed);
  CHECK(bad.error == Approx(0.01).epsilon(0.05));  // the 1% the backend adds
  CHECK(bad.detail.find("forward") != std::string::npos);
  // The same backend held against the CPU backend as reference (the CUDA path) fails the same way.
  CHECK_FALSE(check_layer(off, real.get(), c, Precision::FP32).passed);
  // A layer the backend refuses is a failed row naming why, not an exception.
  LayerCase refused = c;
  refused.desc.conv.groups = 3;  // does not divide 8 input channels
  const CheckRow failed = check_layer(*real, nullptr, refused, Precision::FP32);
  CHECK_FALSE(failed.passed);
  CHECK(std::isinf(failed.error));
  CHECK(failed.detail.find("failed to run") != std::string::npos);
  CHECK(rel_err(std::vector<float>(10, 1.0f), std::vector<float>(10, 2.0f)) == Approx(0.5));
}

TEST_CASE("check: collectives over two CPU replicas have no wrong elements", "[check][collectives]") {
  const std::vector<CheckRow> rows = check_collectives(DeviceKind::Cpu, 2);
  REQUIRE(rows.size() == 6);  // all-reduce and broadcast in fp32, fp16, bf16
  for (const CheckRow& r : rows) {
    INFO(r.name << " " << r.precision << ": " << r.detail);
    CHECK(r.passed);
    CHECK(r.error == 0);
    CHECK(r.metric == "wrong");
  }
}

TEST_CASE("check: the model check covers the model's layer kinds and a falling training loss", "[check]") {
  const CheckReport rep = model_check(DeviceKind::Cpu, 0, "tiny", Precision::FP32);
  REQUIRE(rep.ran);
  INFO(format_check_table(rep));
  CHECK(rep.passed());
  bool conv = false, bn = false, lrn = false, training = false, xent = false, adamw = false;
  for (const CheckRow& r : rep.rows) {
    conv |= r.name.find("(conv)") != std::string::npos;
    bn |= r.name.find("(batchnorm)") != std::string::npos;
    lrn |= r.name.find("(concat)") != std::string::npos;  // tiny has no concat
    training |= r.group == "training";
    xent |= r.group == "loss";
    adamw |= r.group == "optimizer";
  }
  CHECK(conv);
  CHECK(bn);
  CHECK_FALSE(lrn);
  CHECK(training);
  CHECK(xent);
  CHECK_FALSE(adamw);  // an SGD run's check has no AdamW row
  const CheckReport with_adamw = model_check(DeviceKind::Cpu, 0, "tiny", Precision::FP32, true);
  CHECK(std::count_if(with_adamw.rows.begin(), with_adamw.rows.end(),
                      [](const CheckRow& r) { return r.group == "optimizer" && r.passed; }) == 1);
  CHECK_FALSE(model_check(DeviceKind::Cpu, 0, "tiny", Precision::FP16).ran);  // the trainer refuses fp16 on CPU
  const std::string table = format_check_table(rep);
  CHECK(table.find("tolerance") != std::string::npos);
  CHECK(table.find("checks passed") != std::string::npos);
}

TEST_CASE("check: the fused batch-norm and add ReLUs are checked, and a backward without the mask fails",
          "[check][layers][fusion]") {
  auto real = cpu_one_thread();
  MasklessBackend maskless(*real);
  int fused = 0;
  for (const LayerCase& c : all_layer_cases()) {
    if (!c.relu) continue;
    ++fused;
    INFO(c.name);
    const CheckRow ok = check_layer(*real, nullptr, c, Precision::FP32);
    INFO(ok.detail);
    CHECK(ok.passed);
    CHECK(ok.name.find("+ReLU") != std::string::npos);
    const CheckRow bad = check_layer(maskless, nullptr, c, Precision::FP32);
    INFO(bad.detail);
    CHECK_FALSE(bad.passed);
    CHECK(bad.detail.find("gradient") != std::string::npos);
  }
  CHECK(fused == 2);  // batch norm and add
  // The model check of a network with both fusions covers them.
  int covered = 0;
  for (const LayerCase& c : kind_cases_for(build_model("resnet18", 10))) covered += c.relu;
  CHECK(covered == 2);
}

TEST_CASE("check: mgbench check has a cross-entropy row per precision and one AdamW row", "[check]") {
  CheckRequest req;
  req.collectives = req.staging = req.training = false;
  const CheckReport rep = run_check(req);
  INFO(format_check_table(rep));
  CHECK(rep.passed());
  auto be = cpu_one_thread();
  std::vector<Precision> precisions;
  for (Precision p : {Precision::FP32, Precision::TF32, Precision::FP16, Precision::BF16})
    if (be->supports(p)) precisions.push_back(p);
  size_t xent = 0, adamw = 0;
  for (const CheckRow& r : rep.rows) {
    xent += r.group == "loss" && r.name == "token_xent (softmax cross-entropy)";
    adamw += r.group == "optimizer" && r.name == "adamw_step (AdamW)" && r.precision == "fp32";
  }
  CHECK(xent == precisions.size());
  CHECK(adamw == 1);
  const std::string table = format_check_table(rep);
  CHECK(table.find("token_xent (softmax cross-entropy)") != std::string::npos);
  CHECK(table.find("adamw_step (AdamW)") != std::string::npos);
}
