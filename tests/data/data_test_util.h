// Helpers for the data tests: temporary folders and generated JPEGs whose flat colour encodes a sample id, so
// the id (and with it the label) can be read back after decode, crop, flip, resize and normalisation.
#pragma once
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "data/augment.h"
#include "data/jpeg_codec.h"
#include "support/temp_dir.h"

namespace mg::test {

// Six levels per channel, 40 apart: far more than the few levels JPEG rounding moves a flat colour.
inline int level_value(int l) { return 16 + 40 * l; }
constexpr int kMaxIds = 216;

inline void id_colour(int id, int rgb[3]) {
  rgb[0] = level_value(id % 6);
  rgb[1] = level_value((id / 6) % 6);
  rgb[2] = level_value(id / 36);
}

// Reads the id back from one normalised NHWC pixel; -1 if a channel is not near a level.
inline int id_from_pixel(const float* px) {
  int l[3];
  for (int c = 0; c < 3; ++c) {
    // Invert normalize_channel: it is affine in the 8-bit value.
    const float v0 = mg::normalize_channel(c, 0.0f), v1 = mg::normalize_channel(c, 255.0f);
    const float value = (px[c] - v0) / (v1 - v0) * 255.0f;
    const float lv = (value - 16.0f) / 40.0f;
    l[c] = static_cast<int>(std::lround(lv));
    if (std::fabs(lv - l[c]) > 0.2f || l[c] < 0 || l[c] > 5) return -1;
  }
  return l[0] + 6 * l[1] + 36 * l[2];
}

// The id of a whole image, or -1 unless every pixel agrees.
inline int id_from_image(const float* img, int64_t size) {
  const int id = id_from_pixel(img);
  for (int64_t p = 0; p < size * size; ++p) {
    if (id_from_pixel(img + p * 3) != id) return -1;
  }
  return id;
}

inline std::vector<uint8_t> solid_jpeg(int id, int w, int h) {
  mg::RgbImage img;
  img.width = w;
  img.height = h;
  img.pixels.resize(static_cast<size_t>(w) * h * 3);
  int rgb[3];
  id_colour(id, rgb);
  for (size_t p = 0; p < img.pixels.size(); ++p) img.pixels[p] = static_cast<uint8_t>(rgb[p % 3]);
  mg::JpegEncoder enc;
  return enc.encode(img, 95, true);
}

inline void write_file(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!f) throw std::runtime_error("cannot write " + path);
}

// DIR/class_<c>/img_<id>.jpg for `per_class` images in each of `classes` classes; image id = c*per_class + i, so
// label = id / per_class. Sizes vary so crops differ in shape.
inline void make_id_folder(const std::string& dir, int classes, int per_class) {
  for (int c = 0; c < classes; ++c) {
    for (int i = 0; i < per_class; ++i) {
      const int id = c * per_class + i;
      char name[64];
      std::snprintf(name, sizeof name, "class_%02d/img_%03d.jpg", c, id);
      write_file((std::filesystem::path(dir) / name).string(), solid_jpeg(id, 24 + 8 * (id % 3), 32 - 4 * (id % 2)));
    }
  }
}

}  // namespace mg::test
