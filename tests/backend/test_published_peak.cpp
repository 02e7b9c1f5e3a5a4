// The published dense peaks MFU divides by on a GPU, matched by the names CUDA reports for each part.
#include <catch2/catch.hpp>

#include "backend/published_peak.h"

using namespace mg;

TEST_CASE("published peak: each part's dense rate per precision, by the name CUDA reports") {
  struct Case {
    const char* name;
    Precision p;
    double tflops;
  };
  for (const Case& c : {Case{"NVIDIA H100 80GB HBM3", Precision::BF16, 989.5}, Case{"NVIDIA H100 80GB HBM3", Precision::FP32, 67},
                        Case{"NVIDIA H100 PCIe", Precision::FP16, 756.5}, Case{"NVIDIA H100 PCIe", Precision::TF32, 378},
                        Case{"NVIDIA H100 NVL", Precision::BF16, 835.5}, Case{"NVIDIA H200", Precision::TF32, 494.5},
                        Case{"NVIDIA H200 NVL", Precision::BF16, 835.5}, Case{"NVIDIA A100-SXM4-80GB", Precision::BF16, 312},
                        Case{"NVIDIA A100 80GB PCIe", Precision::FP32, 19.5}, Case{"Tesla V100-SXM2-16GB", Precision::FP16, 125},
                        Case{"Tesla V100-PCIE-32GB", Precision::FP16, 112}, Case{"Tesla V100S-PCIE-32GB", Precision::FP32, 16.4}}) {
    INFO(c.name << " " << precision_name(c.p));
    const PeakRate r = published_gpu_peak(c.name, c.p);
    CHECK(r.flops_per_s == Approx(c.tflops * 1e12));
    CHECK_THAT(r.source, Catch::Contains(std::string("published dense ") + precision_name(c.p)));
  }
  const PeakRate v100 = published_gpu_peak("Tesla V100-SXM2-16GB", Precision::BF16);
  CHECK(v100.flops_per_s == 0);
  CHECK_THAT(v100.source, Catch::Contains("no published dense bf16 rate"));
  const PeakRate unknown = published_gpu_peak("NVIDIA GeForce RTX 4090", Precision::BF16);
  CHECK(unknown.flops_per_s == 0);
  CHECK_THAT(unknown.source, Catch::Contains("no published peak for NVIDIA GeForce RTX 4090"));
}
