#include "comm/reduce_sum.h"

#include <cstdint>

#include "core/error.h"
#include "core/half.h"

namespace mg {
namespace {

void sum_f32(void* out, const void* a, const void* b, size_t n) {
  float* o = static_cast<float*>(out);
  const float* x = static_cast<const float*>(a);
  const float* y = static_cast<const float*>(b);
  for (size_t i = 0; i < n; ++i) o[i] = x[i] + y[i];
}

void sum_f16(void* out, const void* a, const void* b, size_t n) {
  uint16_t* o = static_cast<uint16_t*>(out);
  const uint16_t* x = static_cast<const uint16_t*>(a);
  const uint16_t* y = static_cast<const uint16_t*>(b);
  for (size_t i = 0; i < n; ++i) o[i] = float_to_fp16(fp16_to_float(x[i]) + fp16_to_float(y[i]));
}

void sum_bf16(void* out, const void* a, const void* b, size_t n) {
  uint16_t* o = static_cast<uint16_t*>(out);
  const uint16_t* x = static_cast<const uint16_t*>(a);
  const uint16_t* y = static_cast<const uint16_t*>(b);
  for (size_t i = 0; i < n; ++i) o[i] = float_to_bf16(bf16_to_float(x[i]) + bf16_to_float(y[i]));
}

}  // namespace

ReduceFn reduce_sum_fn(DType dt) {
  switch (dt) {
    case DType::F32: return sum_f32;
    case DType::F16: return sum_f16;
    case DType::BF16: return sum_bf16;
    default: break;
  }
  throw UsageError(std::string("collectives reduce fp32, fp16 or bf16, not ") + dtype_name(dt));
}

}  // namespace mg
