// The update a replica asks its backend for: the optimizer the run names, and AdamW's step count (its bias
// correction) one per optimizer step from 1, however many micro-batches a step accumulates.
#include <catch2/catch.hpp>

#include <vector>

#include "models/registry.h"
#include "support/delegating_backend.h"
#include "train/replica.h"

using namespace mg;

namespace {

class UpdateRecordingBackend final : public test::DelegatingBackend {
 public:
  using DelegatingBackend::DelegatingBackend;
  void adamw_update(float* p, const float* g, float* m, float* v, size_t n, int64_t step, float lr, float b1, float b2,
                    float eps, float wd, float gs) override {
    adamw_steps.push_back(step);
    DelegatingBackend::adamw_update(p, g, m, v, n, step, lr, b1, b2, eps, wd, gs);
  }
  void sgd_update(float* p, const float* g, float* m, size_t n, float lr, float mom, float wd, float gs) override {
    ++sgd_updates;
    DelegatingBackend::sgd_update(p, g, m, n, lr, mom, wd, gs);
  }
  std::vector<int64_t> adamw_steps;
  int sgd_updates = 0;
};

struct Updates {
  std::vector<int64_t> adamw_steps;
  int sgd_updates = 0;
};

Updates run_steps(Optimizer optimizer, int accum_steps, int steps) {
  RunConfig c;
  c.model = "tiny";
  c.num_classes = 4;
  c.device = DeviceKind::Cpu;
  c.optimizer = optimizer;
  c.accum_steps = accum_steps;
  const ModelDesc model = build_model(c.model, c.num_classes);
  auto cpu = make_backend(DeviceKind::Cpu, 0, BackendOptions{1});
  UpdateRecordingBackend be(*cpu);
  be.attach_thread();
  Replica rep(c, model, be, nullptr, ReplicaPlacement{0, 1}, 2, model.min_image_size);
  for (int i = 0; i < steps; ++i) rep.step(i);
  return {be.adamw_steps, be.sgd_updates};
}

}  // namespace

TEST_CASE("AdamW's step count is one per optimizer step from 1, whatever the accumulation", "[train][optimizer]") {
  const int accum = GENERATE(1, 3);
  INFO("accum_steps " << accum);
  const Updates u = run_steps(Optimizer::AdamW, accum, 4);
  CHECK(u.adamw_steps == std::vector<int64_t>{1, 2, 3, 4});
  CHECK(u.sgd_updates == 0);
}

TEST_CASE("SGD runs make SGD updates only", "[train][optimizer]") {
  const Updates u = run_steps(Optimizer::Sgd, 2, 3);
  CHECK(u.sgd_updates == 3);
  CHECK(u.adamw_steps.empty());
}
