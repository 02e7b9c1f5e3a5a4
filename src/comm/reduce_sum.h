// Element-wise sums for the reduction dtypes, in the signature Gloo's options API takes
// (out, in1, in2, count). 16-bit formats add in fp32 and round once, which is what an fp16/bf16 add is.
#pragma once
#include <cstddef>
#include <functional>

#include "core/dtype.h"

namespace mg {

using ReduceFn = void (*)(void* out, const void* a, const void* b, size_t n);
ReduceFn reduce_sum_fn(DType dt);  // throws UsageError for dtypes the collectives do not reduce

}  // namespace mg
