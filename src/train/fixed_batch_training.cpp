#include "train/fixed_batch_training.h"

namespace mg {

UniformImageBatch uniform_image_batch(Backend& be, int64_t batch, int64_t image, int64_t classes) {
  UniformImageBatch b;
  b.images = DeviceBuffer(be, static_cast<size_t>(batch * 3 * image * image) * sizeof(float));
  b.labels = DeviceBuffer(be, static_cast<size_t>(batch) * sizeof(int32_t));
  b.x = b.images.tensor(Shape{batch, 3, image, image}, DType::F32);
  b.y = b.labels.tensor(Shape{batch}, DType::I32);
  be.fill_uniform(b.x, -1.f, 1.f, 11);
  be.fill_uniform(b.y, 0.f, static_cast<float>(classes), 12);
  return b;
}

std::vector<float> fixed_batch_losses(Backend& be, ModelGraph& net, const Tensor& x, const Tensor& y, int steps,
                                      const std::function<float()>& loss_scale,
                                      const std::function<void(float)>& update) {
  std::vector<float> losses;
  for (int s = 0; s < steps; ++s) {
    const float scale = loss_scale();
    net.forward(x, true);
    net.loss(y, scale);
    net.backward(false, {});
    update(scale);
    float loss = 0;
    be.copy_d2h(&loss, net.loss_tensor().data, sizeof(float), StreamKind::Compute);
    be.synchronize(StreamKind::Compute);
    losses.push_back(loss);
  }
  return losses;
}

std::vector<float> fixed_batch_sgd_losses(Backend& be, ModelGraph& net, const ParamStore& store, const Tensor& x,
                                          const Tensor& y, int steps, float lr) {
  return fixed_batch_losses(be, net, x, y, steps, [] { return 1.0f; }, [&](float) {
    be.sgd_update(store.params(), store.grads(), store.momentum(), store.size(), lr, 0.9f, 0.f, 1.f);
  });
}

}  // namespace mg
