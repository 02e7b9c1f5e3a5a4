// Training-time augmentation, as torchvision's ImageNet recipe does it: RandomResizedCrop (scale (0.08, 1),
// ratio (3/4, 4/3)), RandomHorizontalFlip (p = 0.5), then per-channel normalisation with the ImageNet mean/std,
// written straight into the batch as NHWC fp32. Bilinear resampling uses half-pixel centres
// (align_corners=False) without antialiasing, which is what a GPU resize does; the cost is what matters here.
#pragma once
#include <cstdint>

#include "data/jpeg_codec.h"

namespace mg {

// A crop rectangle of the source image (pixels) and whether to mirror it.
struct CropBox {
  int x = 0, y = 0, w = 0, h = 0;
  bool flip = false;
};

// The crop for one sample, drawn from the counter RNG stream `key` (so it depends only on the seed, epoch and
// sample, never on which decode thread ran it).
CropBox random_resized_crop(int width, int height, uint64_t key);

// Resamples box of img to out_size x out_size, flips if asked, normalises; out holds out_size*out_size*3 floats.
void crop_resize_normalize(const RgbImage& img, const CropBox& box, int out_size, float* out);

// Normalised value of an 8-bit channel value c of channel ch (0 = R): (c / 255 - mean) / std.
float normalize_channel(int ch, float c);

}  // namespace mg
