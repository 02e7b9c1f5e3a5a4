#include "data/jpeg_codec.h"

#include <turbojpeg.h>

#include "core/error.h"

namespace mg {

namespace {

std::string tj_error(void* handle) { return tjGetErrorStr2(static_cast<tjhandle>(handle)); }

}  // namespace

// tjDestroy only fails for an invalid handle, which the codecs' constructors rule out; a destructor cannot throw.
void TjDestroy::operator()(void* handle) const { (void)tjDestroy(static_cast<tjhandle>(handle)); }

JpegDecoder::JpegDecoder() : handle_(tjInitDecompress()) {
  if (!handle_) check_failed("TurboJPEG", "tjInitDecompress()", __FILE__, __LINE__, tjGetErrorStr2(nullptr));
}


void JpegDecoder::fail(const std::string& name, const std::string& why) {
  // libjpeg-turbo 2.1 leaves a handle that failed mid-header in a state where the next header read reports
  // success with zero dimensions: start the next image on a fresh handle.
  handle_.reset();
  handle_.reset(tjInitDecompress());
  if (!handle_) check_failed("TurboJPEG", "tjInitDecompress()", __FILE__, __LINE__, tjGetErrorStr2(nullptr));
  throw Error("cannot decode JPEG " + name + ": " + why);
}

void JpegDecoder::decode(const uint8_t* data, size_t size, const std::string& name, RgbImage& out) {
  tjhandle h = static_cast<tjhandle>(handle_.get());
  int w = 0, hgt = 0, subsamp = 0, colorspace = 0;
  if (size == 0) throw Error("cannot decode JPEG " + name + ": file is empty");
  if (tjDecompressHeader3(h, data, static_cast<unsigned long>(size), &w, &hgt, &subsamp, &colorspace) != 0) {
    fail(name, tj_error(h));
  }
  if (w <= 0 || hgt <= 0) fail(name, "invalid dimensions");
  // A header is a few bytes that can claim 65535 x 65535 pixels (12 GB of RGB) before any data is checked; no
  // training photo is near the cap, so a larger claim is refused before anything is allocated.
  if (static_cast<uint64_t>(w) * static_cast<uint64_t>(hgt) > kMaxJpegPixels) {
    fail(name, std::to_string(w) + " x " + std::to_string(hgt) + " pixels is above the " +
                   std::to_string(kMaxJpegPixels / 1000000) + " megapixel limit");
  }
  out.width = w;
  out.height = hgt;
  const size_t pixels = static_cast<size_t>(w) * static_cast<size_t>(hgt);
  out.pixels.resize(pixels * 3);
  if (colorspace == TJCS_CMYK || colorspace == TJCS_YCCK) {
    // TurboJPEG cannot convert CMYK to RGB itself; a few ImageNet photos are Adobe CMYK JPEGs, which store
    // inverted CMYK, so each channel is the ink's complement times the black's complement: R = C' * K' / 255.
    cmyk_.resize(pixels * 4);
    if (tjDecompress2(h, data, static_cast<unsigned long>(size), cmyk_.data(), w, 0, hgt, TJPF_CMYK,
                      TJFLAG_STOPONWARNING) != 0) {
      fail(name, tj_error(h));
    }
    for (size_t p = 0; p < pixels; ++p) {
      const unsigned k = cmyk_[p * 4 + 3];
      for (int c = 0; c < 3; ++c) out.pixels[p * 3 + c] = static_cast<uint8_t>((cmyk_[p * 4 + c] * k + 127) / 255);
    }
    return;
  }
  if (tjDecompress2(h, data, static_cast<unsigned long>(size), out.pixels.data(), w, 0, hgt, TJPF_RGB,
                    TJFLAG_STOPONWARNING) != 0) {
    fail(name, tj_error(h));
  }
}

JpegEncoder::JpegEncoder() : handle_(tjInitCompress()) {
  if (!handle_) check_failed("TurboJPEG", "tjInitCompress()", __FILE__, __LINE__, tjGetErrorStr2(nullptr));
}

namespace {

// The JPEG of `pixels` (format TJPF_*, chroma TJSAMP_*); a failure names `call`, the call as the caller made it.
std::vector<uint8_t> compress_jpeg(tjhandle h, const uint8_t* pixels, int width, int height, int format,
                                   int chroma, int quality, const char* call) {
  unsigned char* buf = nullptr;
  unsigned long size = 0;
  if (tjCompress2(h, pixels, width, 0, height, format, &buf, &size, chroma, quality, 0) != 0) {
    const std::string msg = tj_error(h);
    tjFree(buf);
    check_failed("TurboJPEG", call, __FILE__, __LINE__, msg);
  }
  std::vector<uint8_t> bytes(buf, buf + size);
  tjFree(buf);
  return bytes;
}

}  // namespace

std::vector<uint8_t> JpegEncoder::encode(const RgbImage& img, int quality, bool subsample444) {
  return compress_jpeg(static_cast<tjhandle>(handle_.get()), img.pixels.data(), img.width, img.height, TJPF_RGB,
                       subsample444 ? TJSAMP_444 : TJSAMP_420, quality, "tjCompress2(...)");
}

std::vector<uint8_t> JpegEncoder::encode_cmyk(const uint8_t* cmyk, int width, int height, int quality) {
  return compress_jpeg(static_cast<tjhandle>(handle_.get()), cmyk, width, height, TJPF_CMYK, TJSAMP_444, quality,
                       "tjCompress2(CMYK)");
}

}  // namespace mg
