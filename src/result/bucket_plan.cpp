#include "result/bucket_plan.h"

#include <algorithm>

namespace mg {

std::vector<BucketRange> plan_bucket_ranges(size_t total_elements, size_t bucket_bytes) {
  std::vector<BucketRange> out;
  if (total_elements == 0) return out;
  size_t per = bucket_bytes / sizeof(float);
  if (per == 0 || per > total_elements) per = total_elements;
  for (size_t end = total_elements; end > 0;) {
    const size_t begin = end > per ? end - per : 0;
    out.push_back({begin, end});
    end = begin;
  }
  return out;
}

std::vector<LayerBucket> plan_layer_buckets(const std::vector<size_t>& layer_elements, size_t bucket_bytes) {
  std::vector<size_t> first(layer_elements.size() + 1, 0);  // flat offset of each layer, then the total
  for (size_t i = 0; i < layer_elements.size(); ++i) first[i + 1] = first[i] + layer_elements[i];
  std::vector<LayerBucket> out;
  for (const BucketRange& r : plan_bucket_ranges(first.back(), bucket_bytes)) {
    // The last layer starting at or before the bucket's first element (empty layers own nothing).
    const auto it = std::upper_bound(first.begin(), first.end() - 1, r.begin);
    out.push_back({r.begin, r.end, static_cast<size_t>(it - first.begin()) - 1});
  }
  return out;
}

}  // namespace mg
