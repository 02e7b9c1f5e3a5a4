#include "check/host_values.h"

#include <algorithm>
#include <cstring>

#include "core/counter_rng.h"
#include "core/half.h"

namespace mg::check {

std::vector<float> random_vec(size_t n, uint64_t seed, float lo, float hi) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = lo + (hi - lo) * counter_uniform(seed, i);
  return v;
}

std::vector<float> rounded(std::vector<float> v, DType dt) {
  for (float& x : v) {
    if (dt == DType::BF16) x = bf16_to_float(float_to_bf16(x));
    if (dt == DType::F16) x = fp16_to_float(float_to_fp16(x));
  }
  return v;
}

std::vector<uint8_t> encode(const std::vector<float>& v, DType dt) {
  std::vector<uint8_t> out(v.size() * dtype_size(dt));
  for (size_t i = 0; i < v.size(); ++i) {
    if (dt == DType::F32) {
      std::memcpy(out.data() + 4 * i, &v[i], 4);
    } else {
      const uint16_t h = dt == DType::BF16 ? float_to_bf16(v[i]) : float_to_fp16(v[i]);
      std::memcpy(out.data() + 2 * i, &h, 2);
    }
  }
  return out;
}

std::vector<float> decode(const std::vector<uint8_t>& b, DType dt) {
  std::vector<float> v(b.size() / dtype_size(dt));
  for (size_t i = 0; i < v.size(); ++i) {
    if (dt == DType::F32) {
      std::memcpy(&v[i], b.data() + 4 * i, 4);
    } else {
      uint16_t h;
      std::memcpy(&h, b.data() + 2 * i, 2);
      v[i] = dt == DType::BF16 ? bf16_to_float(h) : fp16_to_float(h);
    }
  }
  return v;
}

DeviceBuffer to_device(Backend& be, const std::vector<float>& v, DType dt) {
  std::vector<uint8_t> b;
  if (dt == DType::I32) {
    const std::vector<int32_t> ids(v.begin(), v.end());
    b.resize(ids.size() * sizeof(int32_t));
    std::memcpy(b.data(), ids.data(), b.size());
  } else {
    b = encode(v, dt);
  }
  DeviceBuffer d(be, std::max<size_t>(b.size(), 4));
  be.copy_h2d(d.get(), b.data(), b.size(), StreamKind::Compute);
  be.synchronize(StreamKind::Compute);
  return d;
}

std::vector<float> from_device(Backend& be, const void* p, size_t n, DType dt) {
  std::vector<uint8_t> b(n * dtype_size(dt));
  be.copy_d2h(b.data(), p, b.size(), StreamKind::Compute);
  be.synchronize(StreamKind::Compute);
  return decode(b, dt);
}

}  // namespace mg::check
