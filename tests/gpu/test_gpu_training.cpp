// End to end on the GPU: the tiny network trains (loss falls) at every precision, and in fp32 its first
// steps follow the CPU backend's loss from the same initialisation and data.
#include <string>

#include "backend/device_buffer.h"
#include "check/system_check.h"
#include "gpu_test_util.h"
#include "models/registry.h"
#include "train/network.h"
#include "train/param_store.h"

using namespace gputest;

namespace {

std::vector<float> train_losses(Backend& be, Precision p, int steps) {
  be.attach_thread();
  const ModelDesc m = build_model("tiny", 10);
  const int64_t batch = 16, image = m.default_image_size;
  Network net(be, m, batch, image, p, 1, true);
  ParamStore store(be, net.param_shapes());
  store.initialize(3);
  net.bind(store);
  DeviceBuffer images(be, static_cast<size_t>(batch * 3 * image * image) * sizeof(float));
  DeviceBuffer labels(be, static_cast<size_t>(batch) * sizeof(int32_t));
  const Tensor img = images.tensor(Shape{batch, 3, image, image}, DType::F32);
  const Tensor lab = labels.tensor(Shape{batch}, DType::I32);
  be.fill_uniform(img, -1.f, 1.f, 11);
  be.fill_uniform(lab, 0.f, 10.f, 12);
  std::vector<float> losses;
  for (int s = 0; s < steps; ++s) {
    net.forward(img, true);
    net.loss(lab, 1.0f);
    net.backward(false, {});
    be.sgd_update(store.params(), store.grads(), store.momentum(), store.size(), 0.05f, 0.9f, 0.f, 1.f);
    float loss = 0;
    be.copy_d2h(&loss, net.loss_tensor().data, sizeof(float), StreamKind::Compute);
    be.synchronize(StreamKind::Compute);
    losses.push_back(loss);
  }
  return losses;
}

}  // namespace

TEST_CASE("training loss falls on the GPU at every precision", "[gpu][training]") {
  for (Precision p : gpu_precisions()) {
    const CheckRow row = check::check_training(gpu(), p);  // what `mgbench check` runs
    INFO(precision_name(p) << ": " << row.detail);
    CHECK(row.passed);
  }
}

TEST_CASE("collectives over every visible GPU have no wrong elements", "[gpu][nccl]") {
  for (const CheckRow& row : check::check_collectives(DeviceKind::Cuda, cuda_device_count())) {
    INFO(row.name << " " << row.precision << ": " << row.detail);
    CHECK(row.passed);
  }
}

TEST_CASE("the Copy stream overlaps compute", "[gpu][staging]") {
  const CheckRow row = check::check_staging_overlap(gpu());
  INFO(row.detail);
  CHECK(row.passed);
}

TEST_CASE("GPU fp32 training follows the CPU backend step by step", "[gpu][training]") {
  const std::vector<float> g = train_losses(gpu(), Precision::FP32, 4);
  const std::vector<float> c = train_losses(cpu(), Precision::FP32, 4);
  for (size_t i = 0; i < g.size(); ++i) {
    INFO("step " << i << ": GPU " << g[i] << ", CPU " << c[i]);
    CHECK(std::abs(g[i] - c[i]) <= 2e-3 * std::abs(c[i]));
  }
}
