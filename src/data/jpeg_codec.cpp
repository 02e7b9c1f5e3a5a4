#include "data/jpeg_codec.h"

#include <turbojpeg.h>

#include "core/error.h"

namespace mg {

namespace {

std::string tj_error(void* handle) { return tjGetErrorStr2(static_cast<tjhandle>(handle)); }

}  // namespace

JpegDecoder::JpegDecoder() : handle_(tjInitDecompress()) {
  if (!handle_) check_failed("TurboJPEG", "tjInitDecompress()", __FILE__, __LINE__, tjGetErrorStr2(nullptr));
}

JpegDecoder::~JpegDecoder() { tjDestroy(static_cast<tjhandle>(handle_)); }

void JpegDecoder::fail(const std::string& name, const std::string& why) {
  // libjpeg-turbo 2.1 leaves a handle that failed mid-header in a state where the next header read reports
  // success with zero dimensions: start the next image on a fresh handle.
  tjDestroy(static_cast<tjhandle>(handle_));
  handle_ = tjInitDecompress();
  if (!handle_) check_failed("TurboJPEG", "tjInitDecompress()", __FILE__, __LINE__, tjGetErrorStr2(nullptr));
  throw Error("cannot decode JPEG " + name + ": " + why);
}

void JpegDecoder::decode(const uint8_t* data, size_t size, const std::string& name, RgbImage& out) {
  tjhandle h = static_cast<tjhandle>(handle_);
  int w = 0, hgt = 0, subsamp = 0, colorspace = 0;
  if (size == 0) throw Error("cannot decode JPEG " + name + ": file is empty");
  if (tjDecompressHeader3(h, data, static_cast<unsigned long>(size), &w, &hgt, &subsamp, &colorspace) != 0) {
    fail(name, tj_error(h));
  }
  if (w <= 0 || hgt <= 0) fail(name, "invalid dimensions");
  out.width = w;
  out.height = hgt;
  out.pixels.resize(static_cast<size_t>(w) * static_cast<size_t>(hgt) * 3);
  if (tjDecompress2(h, data, static_cast<unsigned long>(size), out.pixels.data(), w, 0, hgt, TJPF_RGB,
                    TJFLAG_STOPONWARNING) != 0) {
    fail(name, tj_error(h));
  }
}

JpegEncoder::JpegEncoder() : handle_(tjInitCompress()) {
  if (!handle_) check_failed("TurboJPEG", "tjInitCompress()", __FILE__, __LINE__, tjGetErrorStr2(nullptr));
}

JpegEncoder::~JpegEncoder() { tjDestroy(static_cast<tjhandle>(handle_)); }

std::vector<uint8_t> JpegEncoder::encode(const RgbImage& img, int quality, bool subsample444) {
  tjhandle h = static_cast<tjhandle>(handle_);
  unsigned char* buf = nullptr;
  unsigned long size = 0;
  if (tjCompress2(h, img.pixels.data(), img.width, 0, img.height, TJPF_RGB, &buf, &size,
                  subsample444 ? TJSAMP_444 : TJSAMP_420, quality, 0) != 0) {
    const std::string msg = tj_error(h);
    tjFree(buf);
    check_failed("TurboJPEG", "tjCompress2(...)", __FILE__, __LINE__, msg);
  }
  std::vector<uint8_t> bytes(buf, buf + size);
  tjFree(buf);
  return bytes;
}

}  // namespace mg
