// AdamW on the CPU backend against torch.optim.AdamW's update written out in double, over several steps with
// weight decay and a gradient scale, and a first step worked by hand.
#include <cmath>
#include <vector>

#include "layer_test_util.h"

using namespace mgtest;

namespace {
// torch.optim.AdamW (amsgrad=False, maximize=False) for one element, in double.
struct TorchAdamW {
  double p, m = 0, v = 0;
  void step(double g, int64_t t, double lr, double b1, double b2, double eps, double wd) {
    p *= 1 - lr * wd;
    m = b1 * m + (1 - b1) * g;
    v = b2 * v + (1 - b2) * g * g;
    const double mhat = m / (1 - std::pow(b1, static_cast<double>(t))), vhat = v / (1 - std::pow(b2, static_cast<double>(t)));
    p -= lr * mhat / (std::sqrt(vhat) + eps);
  }
};
}  // namespace

TEST_CASE("cpu adamw_update follows torch's AdamW: decoupled weight decay, bias-corrected moments") {
  const size_t n = 1000;
  std::vector<float> p = random_vec(n, 1), m(n, 0.f), v(n, 0.f);
  std::vector<TorchAdamW> want;
  for (float x : p) want.push_back({x});
  const double lr = 1e-2, b1 = 0.9, b2 = 0.95, eps = 1e-8, wd = 0.1, scale = 0.5;
  for (int64_t t = 1; t <= 4; ++t) {
    const std::vector<float> g = random_vec(n, 10 + static_cast<uint64_t>(t), -2.f, 2.f);
    backend().adamw_update(p.data(), g.data(), m.data(), v.data(), n, t, static_cast<float>(lr), static_cast<float>(b1),
                           static_cast<float>(b2), static_cast<float>(eps), static_cast<float>(wd),
                           static_cast<float>(scale));
    for (size_t i = 0; i < n; ++i) want[i].step(g[i] * scale, t, lr, b1, b2, eps, wd);
  }
  for (size_t i = 0; i < n; ++i) {
    INFO("element " << i);
    CHECK(p[i] == Approx(want[i].p).margin(1e-6));
    CHECK(m[i] == Approx(want[i].m).margin(1e-6));
    CHECK(v[i] == Approx(want[i].v).margin(1e-6));
  }
}

TEST_CASE("cpu adamw_update: the first step moves each parameter by lr against its gradient's sign, after decay") {
  std::vector<float> p{1.f, -2.f}, g{0.5f, -3.f}, m(2, 0.f), v(2, 0.f);
  backend().adamw_update(p.data(), g.data(), m.data(), v.data(), 2, 1, 0.1f, 0.9f, 0.999f, 1e-8f, 0.01f, 1.f);
  CHECK(p[0] == Approx(1.0 * (1 - 0.001) - 0.1).margin(1e-6));
  CHECK(p[1] == Approx(-2.0 * (1 - 0.001) + 0.1).margin(1e-6));
  CHECK_THROWS_WITH(backend().adamw_update(p.data(), g.data(), m.data(), v.data(), 2, 0, 0.1f, 0.9f, 0.999f, 1e-8f,
                                           0.f, 1.f),
                    Catch::Contains("step counts from 1"));
}
