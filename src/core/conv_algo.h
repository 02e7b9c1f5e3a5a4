// The CPU backend's convolution algorithm choice (--cpu-conv-algo), named once. Lives in core so the run
// description (src/result) can hold it without depending on backend/, which applies it.
#pragma once
#include "core/name_table.h"

namespace mg {

// Where the CPU backend has an algorithm besides direct convolution (Winograd F(4x4,3x3) for fp32 3x3 stride-1
// layers; a matrix product for fp32 pointwise layers, 1x1 stride 1 without padding or bias): Fastest times both
// once per shape at set-up and runs the faster, as the CUDA backend lets cudnnFind choose. The others pin one
// (Winograd or Gemm: on every layer of its shape, an error where oneDNN cannot; direct elsewhere), for the check
// and for comparisons that want the same kernels on both sides.
enum class CpuConvAlgo { Fastest, Direct, Winograd, Gemm };
inline constexpr NameTable<CpuConvAlgo, 4> kCpuConvAlgoNames{{{{"fastest", CpuConvAlgo::Fastest},
                                                               {"direct", CpuConvAlgo::Direct},
                                                               {"winograd", CpuConvAlgo::Winograd},
                                                               {"gemm", CpuConvAlgo::Gemm}}}};

}  // namespace mg
