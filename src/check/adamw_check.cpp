#include "check/adamw_check.h"

#include <cmath>
#include <exception>

#include <fmt/format.h>

#include "backend/device_buffer.h"
#include "check/failed_row.h"
#include "check/host_values.h"
#include "check/layer_check.h"
#include "check/reference_layers.h"

namespace mg::check {

namespace {

constexpr size_t kElements = 1031;  // odd: the vectorised loop's tail and a partial last GPU block

// Not the first step, so the bias corrections differ from the moments' decays; no neutral weight decay or scale.
AdamWStep check_step() {
  AdamWStep s;
  s.step = 5;
  s.lr = 1e-2f;
  s.weight_decay = 0.1f;
  s.grad_scale = 0.5f;
  return s;
}

}  // namespace

CheckRow check_adamw(Backend& dut) {
  CheckRow row = rel_err_row("optimizer", "adamw_step (AdamW)", Precision::FP32);
  try {
    dut.attach_thread();
    const AdamWStep s = check_step();
    const Vec params = random_vec(kElements, 31, -0.1f, 0.1f), exponent = random_vec(kElements, 32, -9.f, 0.f);
    const Vec gu = random_vec(kElements, 33, -1.f, 1.f), mu = random_vec(kElements, 34, -1.f, 1.f),
              vu = random_vec(kElements, 35, 0.f, 1.f);
    Vec grads(kElements), m(kElements), v(kElements);
    for (size_t i = 0; i < kElements; ++i) {
      // Magnitudes over nine decades: eps decides some elements' steps and not others'.
      const float scale = std::pow(10.f, exponent[i]);
      grads[i] = scale * gu[i];
      m[i] = 0.5f * scale * mu[i];
      v[i] = scale * scale * (0.25f + 0.75f * vu[i]);  // >= m^2, as earlier steps of such gradients leave it
    }
    const ReferenceAdamW want = reference_adamw(params, grads, m, v, s);

    const DeviceBuffer p_dev = to_device(dut, params, DType::F32), g_dev = to_device(dut, grads, DType::F32);
    const DeviceBuffer m_dev = to_device(dut, m, DType::F32), v_dev = to_device(dut, v, DType::F32);
    dut.adamw_update(p_dev.as<float>(), g_dev.as<float>(), m_dev.as<float>(), v_dev.as<float>(), kElements, s.step,
                     s.lr, s.beta1, s.beta2, s.eps, s.weight_decay, s.grad_scale);
    const Vec got_params = from_device(dut, p_dev.get(), kElements, DType::F32);
    Vec got_delta(kElements);
    for (size_t i = 0; i < kElements; ++i)
      got_delta[i] = static_cast<float>(static_cast<double>(got_params[i]) - params[i]);

    // The change itself: a wrong update is lr times smaller than the parameters it moves.
    take_worst(row, "parameter change", got_delta, want.delta);
    take_worst(row, "parameters", got_params, want.params);
    take_worst(row, "first moment", from_device(dut, m_dev.get(), kElements, DType::F32), want.m);
    take_worst(row, "second moment", from_device(dut, v_dev.get(), kElements, DType::F32), want.v);
    row.passed = row.error <= row.tolerance;
    row.detail = fmt::format(
        "worst: {}; {} elements, step {}, lr {}, betas {}/{}, eps {}, weight decay {} (decoupled), grad scale {}; "
        "reference: naive fp64",
        row.detail, kElements, s.step, s.lr, s.beta1, s.beta2, s.eps, s.weight_decay, s.grad_scale);
  } catch (const std::exception& e) {
    mark_failed(row, INFINITY, "failed to run: ", e);
  }
  return row;
}

}  // namespace mg::check
