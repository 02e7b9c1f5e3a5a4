#include "check/xent_check.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "backend/device_buffer.h"
#include "check/failed_row.h"
#include "check/host_values.h"
#include "check/layer_check.h"
#include "check/reference_layers.h"

namespace mg::check {

namespace {

constexpr int64_t kTokens = 24;
constexpr int64_t kVocab = 301;  // more than two of the CUDA kernel's 128-thread strides, and not a multiple of one
constexpr float kGradScale = 8.f;  // a loss scale: a power of two, so exact in every dtype

}  // namespace

CheckRow check_softmax_xent(Backend& dut, Precision p) {
  CheckRow row = rel_err_row("loss", "token_xent (softmax cross-entropy)", p);
  try {
    dut.attach_thread();
    const DType dt = activation_dtype(p);
    const size_t n = static_cast<size_t>(kTokens * kVocab);
    Vec logits = random_vec(n, 21, -4.f, 4.f);
    // Token 1 sits 100 higher: exp of its logits overflows fp32 unless the row maximum is subtracted first.
    for (int64_t j = 0; j < kVocab; ++j) logits[static_cast<size_t>(kVocab + j)] += 100.f;
    logits = rounded(logits, dt);
    std::vector<int32_t> targets(static_cast<size_t>(kTokens));
    const Vec draw = random_vec(targets.size(), 22, 0.f, static_cast<float>(kVocab));
    for (size_t i = 0; i < targets.size(); ++i)
      targets[i] = std::min(static_cast<int32_t>(draw[i]), static_cast<int32_t>(kVocab - 1));
    targets.front() = 0;  // both ends of the vocabulary
    targets.back() = static_cast<int32_t>(kVocab - 1);
    const ReferenceXent want = reference_softmax_xent(logits, targets, kVocab, kGradScale);

    const Shape shape{kTokens, kVocab};
    const DeviceBuffer x = to_device(dut, logits, dt);
    const DeviceBuffer y = to_device(dut, Vec(targets.begin(), targets.end()), DType::I32);
    const DeviceBuffer loss(dut, sizeof(float)), dlogits(dut, n * dtype_size(dt));
    const Tensor xt = x.tensor(shape, dt), yt = y.tensor(Shape{kTokens}, DType::I32);
    const Tensor lt = loss.tensor(Shape{1}, DType::F32);
    dut.softmax_xent(xt, yt, lt, dlogits.tensor(shape, dt), kGradScale);
    const Vec got_loss = from_device(dut, loss.get(), 1, DType::F32);
    const Vec got_dlogits = from_device(dut, dlogits.get(), n, dt);
    dut.fill(lt, -1.f);  // so a call that writes no loss shows
    dut.softmax_xent(xt, yt, lt, Tensor{}, kGradScale);
    const Vec got_loss_only = from_device(dut, loss.get(), 1, DType::F32);

    take_worst(row, "loss", got_loss, {want.loss});
    take_worst(row, "d(logits)", got_dlogits, want.dlogits);
    take_worst(row, "loss without gradient", got_loss_only, {want.loss});
    row.passed = row.error <= row.tolerance;
    row.detail = fmt::format("worst: {}; {} tokens x {} vocab, grad scale {}; reference: naive fp64", row.detail,
                             kTokens, kVocab, kGradScale);
  } catch (const std::exception& e) {
    mark_failed(row, INFINITY, "failed to run: ", e);
  }
  return row;
}

}  // namespace mg::check
