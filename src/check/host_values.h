// Host-side values for device checks: deterministic inputs, rounding to what an element type can hold, and the
// byte encodings uploaded to and downloaded from a backend. Shared by src/check, tests/gpu and tests/backend.
#pragma once
#include <cstdint>
#include <vector>

#include "backend/device_buffer.h"
#include "core/dtype.h"

namespace mg::check {

// Uniform [lo, hi) from the counter RNG, the same on every machine.
std::vector<float> random_vec(size_t n, uint64_t seed, float lo = -1.f, float hi = 1.f);
// Each value rounded to the nearest dtype value (fp32 unchanged), so both sides of a comparison see the same input.
std::vector<float> rounded(std::vector<float> v, DType dt);
// fp32 values <-> the bytes of a dtype buffer (F32, F16, BF16).
std::vector<uint8_t> encode(const std::vector<float>& v, DType dt);
std::vector<float> decode(const std::vector<uint8_t>& b, DType dt);
// v as a dtype buffer on be (I32: v holds integers, e.g. token ids), and n dtype elements back as fp32 values; both
// synchronise the Compute stream.
DeviceBuffer to_device(Backend& be, const std::vector<float>& v, DType dt);
std::vector<float> from_device(Backend& be, const void* p, size_t n, DType dt);

}  // namespace mg::check
