#include "data/augment.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/counter_rng.h"
#include "core/error.h"

namespace mg {

namespace {

constexpr float kMean[3] = {0.485f, 0.456f, 0.406f};
constexpr float kStd[3] = {0.229f, 0.224f, 0.225f};

class Draws {
 public:
  explicit Draws(uint64_t key) : key_(key) {}
  float uniform(float lo, float hi) { return lo + (hi - lo) * counter_uniform(key_, i_++); }
  // Uniform integer in [lo, hi].
  int integer(int lo, int hi) {
    const int v = lo + static_cast<int>(counter_uniform(key_, i_++) * static_cast<float>(hi - lo + 1));
    return std::min(v, hi);
  }

 private:
  uint64_t key_;
  uint64_t i_ = 0;
};

// Source sample positions for one output axis: index pair and weight of the second, with half-pixel centres.
struct Taps {
  std::vector<int> i0, i1;
  std::vector<float> f;
};

Taps make_taps(int out_size, int origin, int extent, bool flip) {
  Taps t;
  t.i0.resize(out_size);
  t.i1.resize(out_size);
  t.f.resize(out_size);
  const float scale = static_cast<float>(extent) / static_cast<float>(out_size);
  for (int o = 0; o < out_size; ++o) {
    const int q = flip ? out_size - 1 - o : o;
    float src = (static_cast<float>(q) + 0.5f) * scale - 0.5f;
    src = std::max(src, 0.0f);
    int i0 = std::min(static_cast<int>(src), extent - 1);
    const int i1 = std::min(i0 + 1, extent - 1);
    t.i0[o] = origin + i0;
    t.i1[o] = origin + i1;
    t.f[o] = std::min(src - static_cast<float>(i0), 1.0f);
  }
  return t;
}

}  // namespace

float normalize_channel(int ch, float c) { return (c / 255.0f - kMean[ch]) / kStd[ch]; }

CropBox random_resized_crop(int width, int height, uint64_t key) {
  Draws r(key);
  CropBox b;
  const double area = static_cast<double>(width) * height;
  const double log_lo = std::log(3.0 / 4.0), log_hi = std::log(4.0 / 3.0);
  bool found = false;
  for (int attempt = 0; attempt < 10 && !found; ++attempt) {
    const double target = area * r.uniform(0.08f, 1.0f);
    const double aspect = std::exp(log_lo + (log_hi - log_lo) * r.uniform(0.0f, 1.0f));
    const int w = static_cast<int>(std::lround(std::sqrt(target * aspect)));
    const int h = static_cast<int>(std::lround(std::sqrt(target / aspect)));
    if (w > 0 && h > 0 && w <= width && h <= height) {
      b.w = w;
      b.h = h;
      b.y = r.integer(0, height - h);
      b.x = r.integer(0, width - w);
      found = true;
    }
  }
  if (!found) {  // torchvision's fallback: the largest centred crop within the ratio range
    const double in_ratio = static_cast<double>(width) / height;
    if (in_ratio < 3.0 / 4.0) {
      b.w = width;
      b.h = std::min(height, static_cast<int>(std::lround(width / (3.0 / 4.0))));
    } else if (in_ratio > 4.0 / 3.0) {
      b.h = height;
      b.w = std::min(width, static_cast<int>(std::lround(height * (4.0 / 3.0))));
    } else {
      b.w = width;
      b.h = height;
    }
    b.y = (height - b.h) / 2;
    b.x = (width - b.w) / 2;
  }
  b.flip = r.uniform(0.0f, 1.0f) < 0.5f;
  return b;
}

void crop_resize_normalize(const RgbImage& img, const CropBox& box, int out_size, float* out) {
  MG_ENSURE(box.w > 0 && box.h > 0 && box.x >= 0 && box.y >= 0 && box.x + box.w <= img.width &&
                box.y + box.h <= img.height,
            "crop box outside the image");
  const Taps xs = make_taps(out_size, box.x, box.w, box.flip);
  const Taps ys = make_taps(out_size, box.y, box.h, false);
  const int row_elems = out_size * 3;
  // Separable: each source row needed is resampled horizontally once into a float row (two cached rows, as
  // consecutive output rows mostly share source rows), then every output row is one contiguous vertical
  // blend + normalise that the compiler vectorises. Folding /255, mean and std into one multiply-add.
  float mul[3], add[3];
  for (int c = 0; c < 3; ++c) {
    mul[c] = 1.0f / (255.0f * kStd[c]);
    add[c] = -kMean[c] / kStd[c];
  }
  std::vector<float> rows(static_cast<size_t>(row_elems) * 2);
  std::vector<float> scale(static_cast<size_t>(row_elems)), shift(static_cast<size_t>(row_elems));
  for (int i = 0; i < row_elems; ++i) {
    scale[static_cast<size_t>(i)] = mul[i % 3];
    shift[static_cast<size_t>(i)] = add[i % 3];
  }
  int cached[2] = {-1, -1};  // source row held by rows[0] / rows[1]
  const size_t stride = static_cast<size_t>(img.width) * 3;
  auto resample_row = [&](int src_row, float* dst) {
    const uint8_t* r = img.pixels.data() + static_cast<size_t>(src_row) * stride;
    for (int ox = 0; ox < out_size; ++ox) {
      const uint8_t* a = r + xs.i0[static_cast<size_t>(ox)] * 3;
      const uint8_t* b = r + xs.i1[static_cast<size_t>(ox)] * 3;
      const float fx = xs.f[static_cast<size_t>(ox)];
      for (int c = 0; c < 3; ++c) dst[ox * 3 + c] = a[c] + fx * (static_cast<float>(b[c]) - a[c]);
    }
  };
  auto row_for = [&](int src_row, int avoid) -> const float* {
    for (int s = 0; s < 2; ++s) {
      if (cached[s] == src_row) return rows.data() + s * row_elems;
    }
    const int s = avoid == 0 ? 1 : 0;
    resample_row(src_row, rows.data() + s * row_elems);
    cached[s] = src_row;
    return rows.data() + s * row_elems;
  };
  for (int oy = 0; oy < out_size; ++oy) {
    const float* top = row_for(ys.i0[static_cast<size_t>(oy)], -1);
    const int top_slot = top == rows.data() ? 0 : 1;
    const float* bot = row_for(ys.i1[static_cast<size_t>(oy)], top_slot);
    const float fy = ys.f[static_cast<size_t>(oy)];
    float* o = out + static_cast<size_t>(oy) * row_elems;
    const float* sc = scale.data();
    const float* sh = shift.data();
    for (int i = 0; i < row_elems; ++i) o[i] = (top[i] + fy * (bot[i] - top[i])) * sc[i] + sh[i];
  }
}

}  // namespace mg
