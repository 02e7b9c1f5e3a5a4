// The peak rate a device's maker publishes for dense math at each precision (no structured sparsity): the
// denominator of model FLOPs utilisation on a GPU, matched by the name CUDA reports. Pure data, no CUDA, so the
// table is tested where no GPU is.
#pragma once
#include <string>

#include "core/dtype.h"

namespace mg {

// A peak multiply-add rate (a multiply-add counts 2 FLOPs) and where it comes from; 0 when unknown (source says why).
struct PeakRate {
  double flops_per_s = 0;
  std::string source;
};

PeakRate published_gpu_peak(const std::string& device_name, Precision p);

}  // namespace mg
