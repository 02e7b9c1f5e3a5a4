#include "train/wire_cast_clock.h"

#include <algorithm>

#include "backend/device_buffer.h"
#include "core/error.h"
#include "stats/step_stats.h"

namespace mg {

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return quantile_sorted(v, 0.5);
}

}  // namespace

std::vector<WireCastCost> measure_wire_casts(Backend& be, float* grads, size_t n, size_t chunk, int repetitions) {
  MG_ENSURE(repetitions >= 1, "measure_wire_casts: repetitions must be at least 1");
  MG_ENSURE(chunk >= 1, "measure_wire_casts: chunk must be at least 1 element");
  std::vector<WireCastCost> out;
  if (n == 0) return out;
  chunk = std::min(chunk, n);
  DeviceBuffer wire;
  try {
    wire = DeviceBuffer(be, chunk * 2);
  } catch (const OutOfMemory&) {
    return out;  // the run itself succeeded; only the profile's cast figure is missing (predict says so)
  }
  auto a = be.create_event(), b = be.create_event(), c = be.create_event();
  for (DType dt : {DType::F16, DType::BF16}) {
    std::vector<double> to, from;
    for (int r = -1; r < repetitions; ++r) {  // r = -1: first touch of the buffer, kernels' first launch
      double t = 0, f = 0;
      for (size_t at = 0; at < n; at += chunk) {  // one bucket at a time, as GradSync casts them
        const Shape shape{static_cast<int64_t>(std::min(chunk, n - at))};
        const Tensor fp32{grads + at, shape, DType::F32};
        const Tensor w = wire.tensor(shape, dt);
        be.record(*a, StreamKind::Compute);
        be.cast(w, fp32);
        be.record(*b, StreamKind::Compute);
        be.cast(fp32, w);
        be.record(*c, StreamKind::Compute);
        be.synchronize(*c);
        t += be.elapsed_seconds(*a, *b);
        f += be.elapsed_seconds(*b, *c);
      }
      if (r < 0) continue;
      to.push_back(t);
      from.push_back(f);
    }
    const double elems = static_cast<double>(n);
    out.push_back({dtype_name(dt), median(to) / elems, median(from) / elems, n, repetitions});
  }
  return out;
}

}  // namespace mg
