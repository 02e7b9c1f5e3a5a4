#include "result/bucket_plan.h"

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

}  // namespace mg
