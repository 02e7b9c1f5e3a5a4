// End to end on the GPU: the tiny network trains (loss falls) at every precision, and in fp32 its first
// steps follow the CPU backend's loss from the same initialisation and data.
#include <string>

#include "backend/device_buffer.h"
#include "check/system_check.h"
#include "gpu_test_util.h"
#include "check/layer_check.h"
#include "models/registry.h"
#include "support/graph_pass.h"
#include "train/model_graph.h"
#include "train/param_store.h"

using namespace gputest;

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
  const std::vector<float> g = check::train_tiny(gpu(), Precision::FP32, 4);
  const std::vector<float> c = check::train_tiny(cpu(), Precision::FP32, 4);
  for (size_t i = 0; i < g.size(); ++i) {
    INFO("step " << i << ": GPU " << g[i] << ", CPU " << c[i]);
    CHECK(std::abs(g[i] - c[i]) <= 2e-3 * std::abs(c[i]));
  }
}

TEST_CASE("resnet18 on the GPU: shared buffers, in-place adds and fused ReLUs compute what a buffer per tensor does",
          "[gpu][training]") {
  // The memory plan's in-place ReLUs and adds and its shared gradient buffers, on CUDA's kernels; cuDNN may pick
  // other algorithms for the second graph, hence a tolerance rather than bitwise (the CPU tests are bitwise).
  const ModelDesc m = build_model("resnet18", 10);
  for (bool training : {true, false}) {
    INFO((training ? "training" : "inference"));
    const auto own = mg::test::run_graph(gpu(), m, training, /*reuse=*/false, /*fuse=*/false);
    const auto shared = mg::test::run_graph(gpu(), m, training, /*reuse=*/true, /*fuse=*/true);
    CHECK(check::rel_err(shared.logits, own.logits) < 1e-4);
    if (training) CHECK(check::rel_err(shared.grads, own.grads) < 1e-4);
    CHECK(shared.buffer_bytes < own.buffer_bytes);
  }
}
