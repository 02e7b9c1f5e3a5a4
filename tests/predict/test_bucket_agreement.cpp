// Predict plans the buckets a real run exchanges: the trainer's plan over its parameter store and predict's
// plan over the profile the trainer records (GradReadyClock's layers) agree, bucket for bucket, on real models.
#include <catch2/catch.hpp>

#include "backend/backend.h"
#include "models/registry.h"
#include "predict/schedule.h"
#include "train/grad_ready_clock.h"
#include "train/grad_sync.h"
#include "train/param_store.h"

namespace mg {

namespace {

// Per layer, its parameter tensors as the backends build them (layer_params of the model description).
std::vector<std::vector<ParamShape>> model_params(const ModelDesc& m) {
  const std::vector<Shape> shapes = infer_shapes(m, 1, m.default_image_size);
  std::vector<std::vector<ParamShape>> per_layer(m.layers.size());
  for (size_t i = 1; i < m.layers.size(); ++i) {
    std::vector<Shape> in;
    for (int j : m.layers[i].inputs) in.push_back(shapes[static_cast<size_t>(j)]);
    per_layer[i] = layer_params(m.layers[i], in);
  }
  return per_layer;
}

}  // namespace

TEST_CASE("predict's buckets are the trainer's for resnet50 and tiny at several --bucket-mb", "[predict][buckets]") {
  const auto be = make_backend(DeviceKind::Cpu, 0, BackendOptions{1});
  for (const char* name : {"resnet50", "tiny"}) {
    const ParamStore store(*be, model_params(build_model(name)));
    GradReadyClock clock(*be, store);
    // The profile's layers with ready_s set to each layer's model index, so predict's ready time names the layer.
    std::vector<GradientLayer> layers = clock.layers();
    for (GradientLayer& g : layers) g.ready_s = g.layer;
    for (double mb : {0.0, 0.01, 0.5, 1.0, 5.0, 25.0, 100.0}) {
      INFO(name << " --bucket-mb " << mb);
      const auto bytes = static_cast<size_t>(mb * 1048576.0);
      const std::vector<Bucket> trainer = plan_buckets(store, bytes);
      const std::vector<PlannedBucket> predicted = plan_buckets(layers, bytes);
      REQUIRE(trainer.size() == predicted.size());
      REQUIRE(!trainer.empty());
      for (size_t b = 0; b < trainer.size(); ++b) {
        INFO("bucket " << b);
        CHECK(trainer[b].end - trainer[b].begin == predicted[b].elements);
        CHECK(static_cast<double>(trainer[b].ready_layer) == predicted[b].ready_s);
      }
    }
    if (std::string(name) == "resnet50") {  // 25 MiB: ResNet-50's 25.6 M gradients in four buckets
      CHECK(plan_buckets(store, 25 * 1048576).size() == 4);
      CHECK(plan_buckets(store, 1048576).size() > 90);  // and 1 MiB buckets split layers
    }
  }
}

}  // namespace mg
