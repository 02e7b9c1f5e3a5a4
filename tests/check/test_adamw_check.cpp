// The AdamW row of mgbench check: its fp64 reference against a step by hand, the CPU backend passing it, and a row
// that fails when the update uses another eps, couples its weight decay into the gradient, or drops it.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "backend/backend.h"
#include "check/adamw_check.h"
#include "check/reference_layers.h"
#include "support/cpu_backend_one_thread.h"
#include "support/delegating_backend.h"

using namespace mg;
using namespace mg::check;

namespace {

// The update with its eps multiplied by `factor`: a kernel handed the wrong hyperparameter.
class ScaledEps final : public test::DelegatingBackend {
 public:
  ScaledEps(Backend& b, float factor) : DelegatingBackend(b), factor_(factor) {}
  void adamw_update(float* p, const float* g, float* m, float* v, size_t n, int64_t step, float lr, float b1, float b2,
                    float eps, float wd, float gs) override {
    b_.adamw_update(p, g, m, v, n, step, lr, b1, b2, eps * factor_, wd, gs);
  }

 private:
  float factor_;
};

// Adam with L2 regularisation (torch.optim.Adam's weight_decay): wd * p added to the gradient, not decoupled. The
// CPU backend's buffers are host memory, so the gradient can be changed here.
class CoupledDecay final : public test::DelegatingBackend {
 public:
  using DelegatingBackend::DelegatingBackend;
  void adamw_update(float* p, const float* g, float* m, float* v, size_t n, int64_t step, float lr, float b1, float b2,
                    float eps, float wd, float gs) override {
    std::vector<float> l2(g, g + n);
    for (size_t i = 0; i < n; ++i) l2[i] += wd * p[i] / gs;
    b_.adamw_update(p, l2.data(), m, v, n, step, lr, b1, b2, eps, 0.f, gs);
  }
};

class NoDecay final : public test::DelegatingBackend {
 public:
  using DelegatingBackend::DelegatingBackend;
  void adamw_update(float* p, const float* g, float* m, float* v, size_t n, int64_t step, float lr, float b1, float b2,
                    float eps, float, float gs) override {
    b_.adamw_update(p, g, m, v, n, step, lr, b1, b2, eps, 0.f, gs);
  }
};

}  // namespace

TEST_CASE("reference: a first AdamW step by hand", "[check][reference][adamw]") {
  // Step 1 from zero moments: m = 0.1 g, v = 0.001 g^2, both bias-corrected back to g and g^2, so the step is
  // lr * g / (|g| + eps) after p shrinks by lr * wd.
  AdamWStep s;
  s.lr = 0.1f;
  s.weight_decay = 0.5f;
  s.eps = 0.f;
  s.grad_scale = 2.f;
  const ReferenceAdamW r = reference_adamw({1.f, -2.f}, {0.5f, -0.25f}, {0.f, 0.f}, {0.f, 0.f}, s);
  CHECK(r.m[0] == Approx(0.1));   // 0.1 * (0.5 * 2)
  CHECK(r.v[1] == Approx((1 - static_cast<double>(0.999f)) * 0.25));  // (1 - beta2) * (-0.5)^2
  CHECK(r.params[0] == Approx(1.0 * 0.95 - 0.1));
  CHECK(r.params[1] == Approx(-2.0 * 0.95 + 0.1));
  CHECK(r.delta[1] == Approx(0.1 + 0.1));  // decay moves -2 up by 0.1, the step another 0.1
  CHECK_THROWS(reference_adamw({1.f}, {1.f}, {0.f}, {0.f}, AdamWStep{0}));
}

TEST_CASE("check: the AdamW row passes on the CPU backend", "[check][adamw]") {
  auto be = test::cpu_one_thread();
  const CheckRow row = check_adamw(*be);
  INFO(row.error << " vs " << row.tolerance << " (" << row.detail << ")");
  CHECK(row.passed);
  CHECK(row.group == "optimizer");
  CHECK(row.name == "adamw_step (AdamW)");
  CHECK(row.precision == "fp32");
  CHECK(row.metric == "rel_err");
  CHECK(row.error <= row.tolerance);
  CHECK(row.detail.find("(decoupled)") != std::string::npos);
  CHECK(row.detail.find("reference: naive fp64") != std::string::npos);
}

TEST_CASE("check: an AdamW step with another eps, with L2 weight decay, or with none fails", "[check][adamw]") {
  auto real = test::cpu_one_thread();
  ScaledEps eps_x100(*real, 100.f), eps_x2(*real, 2.f);
  CoupledDecay coupled(*real);
  NoDecay none(*real);
  for (Backend* be : std::vector<Backend*>{&eps_x100, &eps_x2, &coupled, &none}) {
    const CheckRow bad = check_adamw(*be);
    INFO(bad.error << " (" << bad.detail << ")");
    CHECK_FALSE(bad.passed);
    CHECK(bad.error > 10 * bad.tolerance);
  }
}
