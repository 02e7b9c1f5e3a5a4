// Ring reduce-scatter over Gloo's unbound buffers. Gloo 0.5 offers reduce-scatter only as the older
// halving-doubling Algorithm class (int counts, buffers allocated per call, a different result layout), so
// this is the bandwidth-optimal ring with NCCL's layout: send holds size*count elements, recv gets block
// `rank` of the sum. n-1 steps; in step s rank r passes its partial sum of block (r-s-1) to r+1 and adds
// r-1's partial of block (r-s-2) to its own, so block r completes at rank r after the last step.
#pragma once
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <vector>

#include <gloo/context.h>

#include "comm/reduce_sum.h"

namespace mg {

// Peer failures throw (Gloo's exception) from inside; scratch is reused across calls to avoid allocation.
void ring_reduce_scatter(gloo::Context& ctx, const void* send, void* recv, size_t count, size_t elem_size,
                         ReduceFn sum, uint32_t tag, std::chrono::milliseconds timeout,
                         std::vector<uint8_t>& scratch);

}  // namespace mg
