#include <catch2/catch.hpp>

#include <cmath>
#include <set>

#include "core/error.h"
#include "data/augment.h"
#include "data/jpeg_codec.h"
#include "data/test_images.h"
#include "data_test_util.h"

using namespace mg;

TEST_CASE("jpeg: encode/decode round trip keeps size and colour") {
  const auto bytes = test::solid_jpeg(100, 40, 30);
  JpegDecoder dec;
  RgbImage img;
  dec.decode(bytes.data(), bytes.size(), "mem.jpg", img);
  REQUIRE(img.width == 40);
  REQUIRE(img.height == 30);
  int rgb[3];
  test::id_colour(100, rgb);
  for (size_t p = 0; p < img.pixels.size(); ++p) REQUIRE(std::abs(int(img.pixels[p]) - rgb[p % 3]) <= 3);
}

TEST_CASE("jpeg: corrupt and truncated data raise an Error naming the file") {
  JpegDecoder dec;
  RgbImage img;
  std::vector<uint8_t> garbage(200, 0x42);
  REQUIRE_THROWS_WITH(dec.decode(garbage.data(), garbage.size(), "bad/garbage.jpg", img),
                      Catch::Contains("bad/garbage.jpg"));
  JpegEncoder enc;
  auto bytes = enc.encode(make_textured_image(64, 1, 1), 90, false);
  REQUIRE(bytes.size() > 2000);    // mostly entropy-coded data, so the cut below keeps the header intact
  bytes.resize(bytes.size() * 2 / 3);  // libjpeg only warns about premature end of data; we must fail
  REQUIRE_THROWS_AS(dec.decode(bytes.data(), bytes.size(), "cut.jpg", img), Error);
  REQUIRE_THROWS_WITH(dec.decode(bytes.data(), bytes.size(), "cut.jpg", img), Catch::Contains("cut.jpg"));
  REQUIRE_THROWS_WITH(dec.decode(bytes.data(), 0, "empty.jpg", img), Catch::Contains("empty.jpg"));
  // The same decoder still decodes good images after failures.
  const auto good = test::solid_jpeg(9, 24, 20);
  dec.decode(good.data(), good.size(), "good.jpg", img);
  REQUIRE((img.width == 24 && img.height == 20));
}

TEST_CASE("jpeg: a header claiming more than the pixel limit is refused before decoding") {
  auto bytes = test::solid_jpeg(100, 40, 30);
  // The baseline frame header (SOF0: FF C0, length, precision, height, width) of our own encoder's output.
  size_t sof = 0;
  for (size_t i = 2; i + 8 < bytes.size() && !sof; ++i)
    if (bytes[i] == 0xFF && bytes[i + 1] == 0xC0) sof = i;
  REQUIRE(sof != 0);
  const auto set_size = [&](unsigned w, unsigned h) {
    bytes[sof + 5] = uint8_t(h >> 8), bytes[sof + 6] = uint8_t(h & 0xFF);
    bytes[sof + 7] = uint8_t(w >> 8), bytes[sof + 8] = uint8_t(w & 0xFF);
  };
  JpegDecoder dec;
  RgbImage img;
  set_size(20000, 20000);  // 400 megapixels: 1.2 GB of RGB if it were allocated
  REQUIRE_THROWS_WITH(dec.decode(bytes.data(), bytes.size(), "huge.jpg", img),
                      Catch::Contains("huge.jpg") && Catch::Contains("megapixel limit"));
  REQUIRE(img.pixels.capacity() < 1000000);
  set_size(40, 30);  // the same bytes with their own size decode again, on the same decoder
  dec.decode(bytes.data(), bytes.size(), "small.jpg", img);
  REQUIRE((img.width == 40 && img.height == 30));
}

TEST_CASE("jpeg: Adobe CMYK images decode to RGB") {
  std::vector<uint8_t> cmyk(16 * 16 * 4);
  for (size_t p = 0; p < 16 * 16; ++p) {
    cmyk[p * 4 + 0] = 255;
    cmyk[p * 4 + 1] = 0;
    cmyk[p * 4 + 2] = 128;
    cmyk[p * 4 + 3] = 200;
  }
  JpegEncoder enc;
  const auto bytes = enc.encode_cmyk(cmyk.data(), 16, 16, 95);
  JpegDecoder dec;
  RgbImage img;
  dec.decode(bytes.data(), bytes.size(), "cmyk.jpg", img);
  REQUIRE((img.width == 16 && img.height == 16));
  const int want[3] = {200, 0, 100};  // C' * K' / 255 per channel
  for (size_t p = 0; p < img.pixels.size(); ++p) REQUIRE(std::abs(int(img.pixels[p]) - want[p % 3]) <= 3);
}

namespace {
// A gradient image whose pixel (x, y) is (x, y, 7) so geometry can be checked exactly.
RgbImage gradient(int w, int h) {
  RgbImage img;
  img.width = w;
  img.height = h;
  img.pixels.resize(size_t(w) * h * 3);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      uint8_t* p = &img.pixels[(size_t(y) * w + x) * 3];
      p[0] = uint8_t(x);
      p[1] = uint8_t(y);
      p[2] = 7;
    }
  return img;
}
float denorm(int c, float v) {
  const float v0 = normalize_channel(c, 0), v1 = normalize_channel(c, 255);
  return (v - v0) / (v1 - v0) * 255.0f;
}
}  // namespace

TEST_CASE("augment: same-size crop is the identity, flip mirrors, crops pick their region") {
  const RgbImage img = gradient(16, 12);
  std::vector<float> out(8 * 8 * 3);

  std::vector<float> full(16 * 16 * 3);
  // 12x12 crop at (3, 0) resized to 12x12: identity.
  std::vector<float> same(12 * 12 * 3);
  crop_resize_normalize(img, CropBox{3, 0, 12, 12, false}, 12, same.data());
  for (int y = 0; y < 12; ++y)
    for (int x = 0; x < 12; ++x) {
      const float* p = &same[(size_t(y) * 12 + x) * 3];
      REQUIRE(denorm(0, p[0]) == Approx(3 + x).margin(1e-3));
      REQUIRE(denorm(1, p[1]) == Approx(y).margin(1e-3));
      REQUIRE(denorm(2, p[2]) == Approx(7).margin(1e-3));
    }
  crop_resize_normalize(img, CropBox{3, 0, 12, 12, true}, 12, same.data());
  for (int x = 0; x < 12; ++x) REQUIRE(denorm(0, same[size_t(x) * 3]) == Approx(3 + 11 - x).margin(1e-3));

  // 8x8 crop at (4, 2) downsampled 2x: half-pixel centres average columns 2k and 2k+1 of the crop.
  crop_resize_normalize(img, CropBox{4, 2, 8, 8, false}, 4, out.data());
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 4; ++x) {
      const float* p = &out[(size_t(y) * 4 + x) * 3];
      REQUIRE(denorm(0, p[0]) == Approx(4 + 2 * x + 0.5).margin(1e-3));
      REQUIRE(denorm(1, p[1]) == Approx(2 + 2 * y + 0.5).margin(1e-3));
    }
}

TEST_CASE("augment: random-resized-crop stays inside the image, within scale and ratio, deterministic") {
  int flips = 0;
  std::set<std::pair<int, int>> shapes;
  for (uint64_t key = 0; key < 2000; ++key) {
    const int W = 200 + int(key % 7) * 10, H = 150 + int(key % 5) * 20;
    const CropBox b = random_resized_crop(W, H, key);
    REQUIRE(b.x >= 0);
    REQUIRE(b.y >= 0);
    REQUIRE(b.x + b.w <= W);
    REQUIRE(b.y + b.h <= H);
    const double scale = double(b.w) * b.h / (double(W) * H);
    const double ratio = double(b.w) / b.h;
    REQUIRE(scale >= 0.08 * 0.9);
    REQUIRE(scale <= 1.0);
    REQUIRE(ratio >= 0.75 * 0.95);
    REQUIRE(ratio <= 4.0 / 3.0 * 1.05);
    const CropBox again = random_resized_crop(W, H, key);
    REQUIRE((again.x == b.x && again.y == b.y && again.w == b.w && again.h == b.h && again.flip == b.flip));
    flips += b.flip;
    shapes.insert({b.w, b.h});
  }
  REQUIRE(flips > 900);  // p = 0.5 over 2000 draws
  REQUIRE(flips < 1100);
  REQUIRE(shapes.size() > 500);
}

TEST_CASE("augment: tiny or extreme-aspect images fall back to a centred crop") {
  const CropBox b = random_resized_crop(1000, 10, 5);  // ratio 100: no random attempt can fit
  REQUIRE(b.h == 10);
  REQUIRE(b.w == 13);  // round(10 * 4/3)
  REQUIRE(b.x == (1000 - 13) / 2);
  const CropBox one = random_resized_crop(1, 1, 9);
  REQUIRE((one.w == 1 && one.h == 1 && one.x == 0 && one.y == 0));
}
