// Element types that cross module boundaries (tensors, gradients, all-reduce buffers).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/name_table.h"

namespace mg {

enum class DType { F32, F16, BF16, I32 };

inline size_t dtype_size(DType t) {
  switch (t) {
    case DType::F32: return 4;
    case DType::F16: return 2;
    case DType::BF16: return 2;
    case DType::I32: return 4;
  }
  return 0;
}

inline const char* dtype_name(DType t) {
  switch (t) {
    case DType::F32: return "fp32";
    case DType::F16: return "fp16";
    case DType::BF16: return "bf16";
    case DType::I32: return "int32";
  }
  return "?";
}

// Training precision as the user chooses it. TF32 keeps fp32 storage but lets tensor cores round inputs.
enum class Precision { FP32, TF32, FP16, BF16 };

inline constexpr NameTable<Precision, 4> kPrecisionNames{{{
    {"fp32", Precision::FP32}, {"tf32", Precision::TF32}, {"fp16", Precision::FP16}, {"bf16", Precision::BF16}}}};
inline const char* precision_name(Precision p) { return kPrecisionNames.name(p); }

// Storage type of activations for a precision; master weights and their gradients stay fp32.
inline DType activation_dtype(Precision p) {
  switch (p) {
    case Precision::FP16: return DType::F16;
    case Precision::BF16: return DType::BF16;
    default: return DType::F32;
  }
}

}  // namespace mg
