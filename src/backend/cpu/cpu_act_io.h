// Element access for the layers that compute in fp32 with loops of their own (the transformer kinds): an
// activation is fp32 or bf16 in memory, read and written through these so one templated loop serves both.
#pragma once
#include <cstdint>

#include "core/dtype.h"
#include "core/error.h"
#include "core/half.h"

namespace mg::cpu {

inline float to_f32(float v) { return v; }
inline float to_f32(uint16_t v) { return bf16_to_float(v); }
inline void from_f32(float v, float& dst) { dst = v; }
inline void from_f32(float v, uint16_t& dst) { dst = float_to_bf16(v); }

// Calls body(T{}) with T the element type of dt: float for fp32, uint16_t (bf16 bits) for bf16.
template <typename Body>
void with_act_type(DType dt, Body body) {
  if (dt == DType::F32) {
    body(float{});
  } else {
    MG_ENSURE(dt == DType::BF16, std::string("no fp32 loop for activations of type ") + dtype_name(dt));
    body(uint16_t{});
  }
}

}  // namespace mg::cpu
