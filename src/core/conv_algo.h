// The CPU backend's convolution algorithm choice (--cpu-conv-algo), named once. Lives in core so the run
// description (src/result) can hold it without depending on backend/, which applies it.
#pragma once
#include "core/name_table.h"

namespace mg {

// Where oneDNN offers the CPU backend an algorithm besides direct convolution (Winograd F(4x4,3x3) for fp32 3x3
// stride-1 layers): Fastest times both once per shape at set-up and runs the faster, as the CUDA backend lets
// cudnnFind choose. The others pin one (Winograd: on every such layer, an error where oneDNN cannot; direct
// elsewhere), for the check and for comparisons that want the same kernels on both sides.
enum class CpuConvAlgo { Fastest, Direct, Winograd };
inline constexpr NameTable<CpuConvAlgo, 3> kCpuConvAlgoNames{
    {{{"fastest", CpuConvAlgo::Fastest}, {"direct", CpuConvAlgo::Direct}, {"winograd", CpuConvAlgo::Winograd}}}};

}  // namespace mg
