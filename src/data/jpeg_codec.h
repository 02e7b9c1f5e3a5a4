// JPEG decode and encode through the TurboJPEG API (libjpeg-turbo's SIMD codec). One codec object per thread:
// TurboJPEG handles are not thread-safe, and creating one per image would cost more than small decodes.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mg {

// An 8-bit RGB image, interleaved (HWC).
struct RgbImage {
  int width = 0;
  int height = 0;
  std::vector<uint8_t> pixels;  // height * width * 3
};

// Larger images are refused (a corrupt or hostile header must not make a decode pool allocate gigabytes).
inline constexpr uint64_t kMaxJpegPixels = 100'000'000;

// A TurboJPEG handle, destroyed with the codec that owns it.
struct TjDestroy {
  void operator()(void* handle) const;
};
using TjHandle = std::unique_ptr<void, TjDestroy>;

class JpegDecoder {
 public:
  JpegDecoder();

  // Decodes to RGB into out (its buffer is reused between calls). `name` is the file (or record) the bytes
  // came from and is named in the Error thrown for a corrupt or truncated image or one above kMaxJpegPixels. Warnings such as premature
  // end of data are errors here: a silently grey half-image would train on garbage.
  void decode(const uint8_t* data, size_t size, const std::string& name, RgbImage& out);

 private:
  [[noreturn]] void fail(const std::string& name, const std::string& why);
  TjHandle handle_;
  std::vector<uint8_t> cmyk_;  // scratch for CMYK/YCCK images
};

class JpegEncoder {
 public:
  JpegEncoder();

  // quality 1..100; subsample444 keeps full chroma resolution (exact colours in tests).
  std::vector<uint8_t> encode(const RgbImage& img, int quality, bool subsample444);
  // A 4-channel CMYK image (width*height*4 bytes, stored as given, i.e. Adobe-inverted) to a YCCK JPEG.
  std::vector<uint8_t> encode_cmyk(const uint8_t* cmyk, int width, int height, int quality);

 private:
  TjHandle handle_;
};

}  // namespace mg
