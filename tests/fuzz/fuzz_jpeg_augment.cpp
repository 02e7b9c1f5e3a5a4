// JPEG decoding and the training augmentation (random resized crop, resize, normalize) on arbitrary bytes.
#include <vector>

#include "data/augment.h"
#include "data/jpeg_codec.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static mg::JpegDecoder dec;  // reused across inputs, as the decode pool reuses one per thread
  mg::RgbImage img;
  mg::fuzz::expect_only_mg_errors([&] {
    dec.decode(data, size, "fuzz input", img);
    // Decoding large images is the slow part; the crop must work on any size the decoder accepts.
    const uint64_t key = size ? data[size - 1] : 0;
    const mg::CropBox box = mg::random_resized_crop(img.width, img.height, key);
    std::vector<float> out(3 * 32 * 32);
    mg::crop_resize_normalize(img, box, 32, out.data());
  });
  return 0;
}
