// Synthetic JPEG folders for benchmarks and smoke tests (`mgbench prepare-data --generate-test-images`): an
// ImageNet-style tree whose images have natural-image-like content (smooth shading plus fine texture), so the
// JPEGs compress and decode at realistic cost, unlike flat colours.
#pragma once
#include <cstdint>
#include <string>

#include "data/jpeg_codec.h"

namespace mg {

// A size x size textured image; the mean colour depends on label, the texture on (label, index).
RgbImage make_textured_image(int size, int label, int64_t index);

// Writes count images round-robin over `classes` sub-folders DIR/class_NNNN/img_NNNNNNN.jpg (quality 90, 4:2:0,
// as typical camera JPEGs). Creates dir; UsageError if it exists and is not empty, or on bad arguments.
void generate_image_folder(const std::string& dir, int64_t count, int size, int classes, int threads);

}  // namespace mg
