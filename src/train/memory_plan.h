// Buffers shared by tensors whose lifetimes never overlap (the network's activation gradients, the temporaries
// of gradient sums, and in inference the activations themselves). Lifetimes are inclusive ranges of steps of
// one ordered walk (every operation of the walk runs in stream order on one stream, so a buffer a step no
// longer uses may be handed to a later step without synchronisation); two tensors live at the same step never
// share, so no operation ever reads and writes one buffer through two tensors. The plan is backend-neutral:
// CPU and CUDA networks allocate the same buffers.
#pragma once
#include <cstddef>
#include <vector>

namespace mg {

struct Lifetime {
  size_t bytes = 0;
  int first = 0, last = 0;  // steps, inclusive
};

struct MemoryPlan {
  std::vector<size_t> buffer_bytes;  // buffers to allocate
  std::vector<int> buffer_of;        // tensor -> buffer
  size_t total_bytes() const;
};

// reuse=false gives every tensor its own buffer (the reference the shared plan is tested against).
MemoryPlan plan_memory(const std::vector<Lifetime>& tensors, bool reuse);

}  // namespace mg
