#include "comm/gloo/ring_reduce_scatter.h"

#include <cstring>

#include <gloo/transport/unbound_buffer.h>
#include <gloo/types.h>

#include "core/error.h"

namespace mg {
namespace {
constexpr uint8_t kReduceScatterSlotPrefix = 0x4d;  // beyond the prefixes Gloo's own collectives use
}

void ring_reduce_scatter(gloo::Context& ctx, const void* send, void* recv, size_t count, size_t elem_size,
                         ReduceFn sum, uint32_t tag, std::chrono::milliseconds timeout,
                         std::vector<uint8_t>& scratch) {
  const int n = ctx.size, r = ctx.rank;
  const size_t block = count * elem_size;
  const char* in = static_cast<const char*>(send);
  if (n == 1) {
    if (recv != send) std::memmove(recv, send, block);
    return;
  }
  if (block == 0) return;
  if (scratch.size() < 3 * block) scratch.resize(3 * block);
  uint8_t* tmp = scratch.data();
  uint8_t* acc[2] = {scratch.data() + block, scratch.data() + 2 * block};
  auto offset = [&](int b) { return static_cast<size_t>(((b % n) + n) % n) * block; };
  const int left = (r - 1 + n) % n, right = (r + 1) % n;
  const uint64_t slot = gloo::Slot::build(kReduceScatterSlotPrefix, tag);

  // The send buffer is only read; Gloo's buffer type is not const-qualified.
  auto in_buf = ctx.createUnboundBuffer(const_cast<char*>(in), static_cast<size_t>(n) * block);
  auto tmp_buf = ctx.createUnboundBuffer(tmp, block);
  std::unique_ptr<gloo::transport::UnboundBuffer> acc_buf[2] = {ctx.createUnboundBuffer(acc[0], block),
                                                                ctx.createUnboundBuffer(acc[1], block)};
  for (int s = 0; s < n - 1; ++s) {
    gloo::transport::UnboundBuffer* out = s == 0 ? in_buf.get() : acc_buf[s % 2].get();
    if (s == 0) {
      out->send(right, slot, offset(r - 1), block);
    } else {
      out->send(right, slot, 0, block);
    }
    tmp_buf->recv(left, slot, 0, block);
    if (!tmp_buf->waitRecv(timeout)) throw Error("reduce-scatter receive from rank " + std::to_string(left) + " aborted");
    // The send must finish before the sum is written: with recv == send the last step overwrites memory
    // that step 0 sends from when there are two ranks.
    if (!out->waitSend(timeout)) throw Error("reduce-scatter send to rank " + std::to_string(right) + " aborted");
    void* dst = s == n - 2 ? recv : static_cast<void*>(acc[(s + 1) % 2]);
    sum(dst, in + offset(r - s - 2), tmp, count);
  }
}

}  // namespace mg
