#include "backend/published_peak.h"

#include <array>

#include <fmt/format.h>

namespace mg {

namespace {

struct GpuPeaks {
  const char* match;  // a part of the name CUDA reports; the first row that matches wins
  const char* label;
  double fp32, tf32, fp16, bf16;  // TFLOP/s, dense; 0: the part has no such math
  const char* cited;
};

// NVIDIA's datasheets; their tensor-core rows are quoted "with sparsity" and the dense rate is half of that.
// "GH200" matches the H200 rows by name; its Hopper GPU has the H200 SXM's rates.
constexpr std::array<GpuPeaks, 9> kPeaks{{
    {"H200 NVL", "H200 NVL", 60, 417.5, 835.5, 835.5, "NVIDIA H200 datasheet (2024): NVL column"},
    {"H200", "H200 SXM", 67, 494.5, 989.5, 989.5, "NVIDIA H200 datasheet (2024): SXM column"},
    {"H100 NVL", "H100 NVL", 60, 417.5, 835.5, 835.5, "NVIDIA H100 datasheet (2023): NVL column"},
    {"H100 PCIe", "H100 PCIe", 51, 378, 756.5, 756.5, "NVIDIA H100 datasheet (2023): PCIe column"},
    {"H100", "H100 SXM5", 67, 494.5, 989.5, 989.5, "NVIDIA H100 datasheet (2023): SXM column"},
    {"A100", "A100", 19.5, 156, 312, 312, "NVIDIA A100 datasheet (2021)"},
    {"V100S", "V100S PCIe", 16.4, 0, 130, 0, "NVIDIA V100S datasheet (2020); fp16 tensor cores, no bf16"},
    {"V100-PCIE", "V100 PCIe", 14, 0, 112, 0, "NVIDIA V100 datasheet (2020): PCIe column; fp16 tensor cores, no bf16"},
    {"V100", "V100 SXM2", 15.7, 0, 125, 0, "NVIDIA V100 datasheet (2020): SXM2 column; fp16 tensor cores, no bf16"},
}};

}  // namespace

PeakRate published_gpu_peak(const std::string& device_name, Precision p) {
  for (const GpuPeaks& g : kPeaks) {
    if (device_name.find(g.match) == std::string::npos) continue;
    const double tflops = p == Precision::FP32   ? g.fp32
                          : p == Precision::TF32 ? g.tf32
                          : p == Precision::FP16 ? g.fp16
                                                 : g.bf16;
    if (tflops <= 0) return {0, std::string(g.label) + " has no published dense " + precision_name(p) + " rate"};
    return {tflops * 1e12, fmt::format("published dense {} peak of the {}, {:g} TFLOP/s ({})", precision_name(p),
                                       g.label, tflops, g.cited)};
  }
  return {0, "no published peak for " + device_name + " in mgbench's table (src/backend/published_peak.cpp)"};
}

}  // namespace mg
