// How a flat fp32 gradient is cut into all-reduce buckets. The trainer exchanges buckets of this layout and
// `mgbench predict` simulates the same layout from a profile, so a bucket-size question answered without
// hardware is answered for the buckets a real run would use. Results record the layout (allreduce.per_bucket).
#pragma once
#include <cstddef>
#include <vector>

namespace mg {

struct BucketRange {
  size_t begin = 0, end = 0;  // flat gradient elements [begin, end)
};

// Buckets of at most bucket_bytes of fp32 gradient, taken from the end of the flat buffer backwards (backward
// produces the last layers' gradients first), so bucket 0 is the first to become ready; a bucket may split a
// layer's tensor. bucket_bytes == 0 or at least the whole gradient gives one bucket; no elements, no buckets.
std::vector<BucketRange> plan_bucket_ranges(size_t total_elements, size_t bucket_bytes);

// The same layout over a gradient made of layers (element counts in flat order), each bucket with the index of
// the layer owning its first element: backward completes the bucket when it completes that layer. The trainer
// (from its parameter store) and predict (from a profile's gradient_layers) both plan through this.
struct LayerBucket {
  size_t begin = 0, end = 0;  // flat gradient elements [begin, end)
  size_t owner = 0;           // index into layer_elements
};
std::vector<LayerBucket> plan_layer_buckets(const std::vector<size_t>& layer_elements, size_t bucket_bytes);

}  // namespace mg
