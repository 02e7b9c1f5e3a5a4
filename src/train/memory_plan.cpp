#include "train/memory_plan.h"

#include <algorithm>
#include <numeric>

#include "core/error.h"

namespace mg {

size_t MemoryPlan::total_bytes() const { return std::accumulate(buffer_bytes.begin(), buffer_bytes.end(), size_t{0}); }

MemoryPlan plan_memory(const std::vector<Lifetime>& tensors, bool reuse) {
  MemoryPlan p;
  p.buffer_of.assign(tensors.size(), -1);
  if (!reuse) {
    for (size_t t = 0; t < tensors.size(); ++t) {
      p.buffer_of[t] = static_cast<int>(t);
      p.buffer_bytes.push_back(tensors[t].bytes);
    }
    return p;
  }
  for (const Lifetime& l : tensors) MG_ENSURE(l.first <= l.last, "memory plan: a lifetime ends before it starts");
  // Tensors in order of birth; a buffer returns to the pool once its tensor's last step is over.
  std::vector<size_t> order(tensors.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return tensors[a].first < tensors[b].first; });
  std::vector<int> busy_until;  // per buffer: last step of its current tensor
  for (size_t t : order) {
    const Lifetime& l = tensors[t];
    // Best fit among the free buffers; if none is large enough, grow the largest free one (buffers are
    // allocated after planning, so growing costs nothing but its size); a new buffer only when none is free.
    int best = -1, largest = -1;
    for (size_t b = 0; b < p.buffer_bytes.size(); ++b) {
      if (busy_until[b] >= l.first) continue;
      const int bi = static_cast<int>(b);
      if (p.buffer_bytes[b] >= l.bytes && (best < 0 || p.buffer_bytes[b] < p.buffer_bytes[best])) best = bi;
      if (largest < 0 || p.buffer_bytes[b] > p.buffer_bytes[largest]) largest = bi;
    }
    int b = best >= 0 ? best : largest;
    if (b < 0) {
      b = static_cast<int>(p.buffer_bytes.size());
      p.buffer_bytes.push_back(0);
      busy_until.push_back(0);
    }
    p.buffer_bytes[b] = std::max(p.buffer_bytes[b], l.bytes);
    busy_until[b] = l.last;
    p.buffer_of[t] = b;
  }
  return p;
}

}  // namespace mg
