#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "core/half.h"

using namespace mg;

namespace {

float from_bits(uint32_t x) {
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

}  // namespace

TEST_CASE("every finite fp16 and bf16 value survives a round trip through fp32") {
  struct Format {
    const char* name;
    float (*widen)(uint16_t);
    uint16_t (*narrow)(float);
  };
  for (const Format& f : {Format{"fp16", fp16_to_float, float_to_fp16}, Format{"bf16", bf16_to_float, float_to_bf16}}) {
    for (uint32_t h = 0; h <= 0xffff; ++h) {
      const auto v = static_cast<uint16_t>(h);
      const float wide = f.widen(v);
      INFO(f.name << " bits " << h);
      if (std::isnan(wide)) {
        CHECK(std::isnan(f.widen(f.narrow(wide))));
      } else {
        CHECK(f.narrow(wide) == v);
      }
    }
  }
}

TEST_CASE("fp32 to fp16 rounds to nearest, ties to even, with IEEE overflow and subnormals") {
  CHECK(float_to_fp16(1.0f) == 0x3c00);
  CHECK(float_to_fp16(1.0f + std::ldexp(1.0f, -11)) == 0x3c00);       // half an ulp above 1: tie -> even (1.0)
  CHECK(float_to_fp16(1.0f + 3 * std::ldexp(1.0f, -11)) == 0x3c02);   // 1.5 ulp: tie -> even mantissa 2
  CHECK(float_to_fp16(1.0f + std::ldexp(1.1f, -11)) == 0x3c01);       // just above the tie rounds up
  CHECK(float_to_fp16(65504.0f) == 0x7bff);                           // largest finite
  CHECK(float_to_fp16(65519.0f) == 0x7bff);                           // below the midpoint to 65536
  CHECK(float_to_fp16(65520.0f) == 0x7c00);                           // the midpoint rounds to infinity
  CHECK(float_to_fp16(-1e6f) == 0xfc00);
  CHECK(float_to_fp16(std::numeric_limits<float>::infinity()) == 0x7c00);
  CHECK(std::isnan(fp16_to_float(float_to_fp16(std::numeric_limits<float>::quiet_NaN()))));
  CHECK(float_to_fp16(std::ldexp(1.0f, -24)) == 0x0001);              // smallest subnormal
  CHECK(float_to_fp16(std::ldexp(1.0f, -25)) == 0x0000);              // half of it: tie -> even (zero)
  CHECK(float_to_fp16(std::ldexp(1.5f, -25)) == 0x0001);
  CHECK(float_to_fp16(std::ldexp(3.0f, -25)) == 0x0002);              // 1.5 subnormal ulps: tie -> even
  CHECK(float_to_fp16(std::ldexp(1.0f, -14)) == 0x0400);              // smallest normal
  CHECK(float_to_fp16(-0.0f) == 0x8000);
  CHECK(fp16_to_float(0x0001) == std::ldexp(1.0f, -24));
  CHECK(fp16_to_float(0x03ff) == std::ldexp(1023.0f, -24));           // largest subnormal
}

TEST_CASE("fp32 to bf16 rounds to nearest, ties to even, and keeps NaN a NaN") {
  CHECK(float_to_bf16(1.0f) == 0x3f80);
  CHECK(float_to_bf16(1.0f + std::ldexp(1.0f, -8)) == 0x3f80);       // tie -> even
  CHECK(float_to_bf16(1.0f + 3 * std::ldexp(1.0f, -8)) == 0x3f82);   // tie -> even
  CHECK(float_to_bf16(1.0f + std::ldexp(1.1f, -8)) == 0x3f81);
  CHECK(float_to_bf16(from_bits(0x7f7fffffu)) == 0x7f80);            // FLT_MAX rounds to infinity
  CHECK(float_to_bf16(-std::numeric_limits<float>::infinity()) == 0xff80);
  // A NaN whose payload lies only in the low 16 bits would truncate to infinity; it must stay a NaN.
  CHECK(std::isnan(bf16_to_float(float_to_bf16(from_bits(0x7f800001u)))));
  CHECK(bf16_to_float(0x3f80) == 1.0f);
}
