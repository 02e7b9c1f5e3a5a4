#include "comm/local/local_communicator.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <thread>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "comm/local/local_barrier.h"
#include "comm/peer_monitor.h"
#include "comm/reduce_sum.h"
#include "core/error.h"

namespace mg {

// What a rank publishes for the operation it is in: its buffers, and the call itself so ranks that disagree
// (a programming error that would otherwise read past a buffer) fail instead. Outside the anonymous namespace:
// LocalWorld, declared in the header, holds them.
struct alignas(64) LocalSlot {
  CollectiveOp op = CollectiveOp::AllReduce;
  size_t count = 0;
  DType dt = DType::F32;
  int root = 0;
  const void* send = nullptr;
  void* recv = nullptr;
};

namespace {

// Slices start on cache lines, so two ranks never write one line.
constexpr size_t kSliceAlign = 64;
// fp16/bf16 (and fp32 off x86-64): the sum is produced a block at a time and copied to every rank's output
// while it is still in L1.
constexpr size_t kBlockBytes = 16 << 10;
// From this slice size on, an output that is not also an input is written with non-temporal stores. A normal
// store first reads the line it writes (write-allocate), so out of place would move 1.5 times the bytes of
// in place; streamed stores skip that read but send the line to memory, which only pays once the outputs are
// too large to stay in cache anyway (measured on the 2-core development VM, one rank's pass over its slice:
// 128 KiB 7 us normal / 33 us streamed, 2 MiB about 430 / 350, 32 MiB about 8500 / 4600). An in-place output
// was just read, so its lines are in cache and normal stores are cheaper at every size.
constexpr size_t kStreamBytes = 1 << 20;

// memcpy that bypasses the cache for the destination (x86-64; elsewhere plain memcpy). Callers fence with
// stream_fence() before another thread may read the destination.
void stream_copy(char* dst, const char* src, size_t bytes) {
#if defined(__x86_64__)
  const size_t head = std::min(bytes, (16 - reinterpret_cast<uintptr_t>(dst) % 16) % 16);
  std::memcpy(dst, src, head);
  size_t i = head;
  for (; i + 64 <= bytes; i += 64) {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + 16));
    const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + 32));
    const __m128i d = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + 48));
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i), a);
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i + 16), b);
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i + 32), c);
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i + 48), d);
  }
  std::memcpy(dst + i, src + i, bytes - i);
#else
  std::memcpy(dst, src, bytes);
#endif
}

void stream_fence() {
#if defined(__x86_64__)
  _mm_sfence();  // non-temporal stores are weakly ordered: complete them before the barrier publishes them
#endif
}

#if defined(__x86_64__)
// fp32 in one pass: 16 elements (one cache line) of every input are loaded and summed in rank order in
// registers, then stored to every output, with non-temporal stores where stream[k] (which needs out[k] 16-byte
// aligned). The block scheme below instead alternates a phase that reads inputs with one that writes outputs,
// so the memory system never overlaps the two; with streamed stores it was 1.3 to 1.6 times slower from 2 MiB
// slices on. Each output line is written by four consecutive stores, which the core can merge into one line
// write. Any output may alias any input at the same elements: a line is loaded from every input before it is
// stored anywhere. Sums are plain single-precision adds in rank order, the same as the scalar tail and
// reduce_sum.cpp, so every rank's output is bitwise the same.
void reduce_lines_f32(float* const* out, const char* stream, int n_out, const float* const* in, int n,
                      size_t count) {
  size_t i = 0;
  for (; i + 16 <= count; i += 16) {
    __m128 v0 = _mm_loadu_ps(in[0] + i), v1 = _mm_loadu_ps(in[0] + i + 4);
    __m128 v2 = _mm_loadu_ps(in[0] + i + 8), v3 = _mm_loadu_ps(in[0] + i + 12);
    for (int r = 1; r < n; ++r) {
      v0 = _mm_add_ps(v0, _mm_loadu_ps(in[r] + i));
      v1 = _mm_add_ps(v1, _mm_loadu_ps(in[r] + i + 4));
      v2 = _mm_add_ps(v2, _mm_loadu_ps(in[r] + i + 8));
      v3 = _mm_add_ps(v3, _mm_loadu_ps(in[r] + i + 12));
    }
    for (int k = 0; k < n_out; ++k) {
      float* o = out[k] + i;
      if (stream[k]) {
        _mm_stream_ps(o, v0), _mm_stream_ps(o + 4, v1), _mm_stream_ps(o + 8, v2), _mm_stream_ps(o + 12, v3);
      } else {
        _mm_storeu_ps(o, v0), _mm_storeu_ps(o + 4, v1), _mm_storeu_ps(o + 8, v2), _mm_storeu_ps(o + 12, v3);
      }
    }
  }
  for (; i < count; ++i) {
    float v = in[0][i];
    for (int r = 1; r < n; ++r) v += in[r][i];
    for (int k = 0; k < n_out; ++k) out[k][i] = v;
  }
}
#endif

// out[0][i] = out[1][i] = ... = in[0][i] + in[1][i] + ... in rank order. Any out may alias any in (at the
// same elements).
void reduce_to_all(void* const* out, int n_out, const void* const* in, int n, size_t count, DType dt,
                   std::vector<uint8_t>& block) {
  const size_t es = dtype_size(dt);
  const bool large = count * es >= kStreamBytes;
  std::vector<char> stream(n_out, 0);
  for (int k = 0; k < n_out && large; ++k) {
    stream[k] = std::find(in, in + n, out[k]) == in + n;
#if defined(__x86_64__)
    // An fp32 output off a 16-byte boundary (not what allocators return) keeps normal stores.
    if (dt == DType::F32) stream[k] = stream[k] && reinterpret_cast<uintptr_t>(out[k]) % 16 == 0;
#endif
  }
  const bool any_stream = std::find(stream.begin(), stream.end(), 1) != stream.end();
#if defined(__x86_64__)
  if (dt == DType::F32) {
    reduce_lines_f32(reinterpret_cast<float* const*>(out), stream.data(), n_out,
                     reinterpret_cast<const float* const*>(in), n, count);
    if (any_stream) stream_fence();
    return;
  }
#endif
  // The sum goes into a block first: a running sum in an output could overwrite an input aliasing it before
  // that input was read. fp16/bf16 sums convert every element, so this extra pass through L1 costs little.
  const ReduceFn sum = reduce_sum_fn(dt);
  const size_t step = kBlockBytes / es;
  block.resize(step * es);
  for (size_t b = 0; b < count; b += step) {
    const size_t m = std::min(step, count - b);
    const size_t off = b * es;
    auto at = [off](const void* p) { return static_cast<const char*>(p) + off; };
    const char* acc = at(in[0]);
    if (n > 1) {
      sum(block.data(), at(in[0]), at(in[1]), m);
      for (int k = 2; k < n; ++k) sum(block.data(), block.data(), at(in[k]), m);
      acc = reinterpret_cast<const char*>(block.data());
    }
    for (int k = 0; k < n_out; ++k) {
      char* dst = static_cast<char*>(out[k]) + off;
      if (dst == acc) continue;
      if (stream[k]) {
        stream_copy(dst, acc, m * es);
      } else {
        std::memcpy(dst, acc, m * es);
      }
    }
  }
  if (any_stream) stream_fence();
}

}  // namespace

struct LocalWorld {
  LocalWorld(int n, double timeout) : size(n), timeout_s(timeout), barrier(n), slots(n),
        monitor(std::make_shared<PeerMonitor>(0, n, nullptr)) {}
  const int size;
  const double timeout_s;
  LocalBarrier barrier;
  std::vector<LocalSlot> slots;  // slot r is written by rank r before a rendezvous, read by all after it
  std::shared_ptr<PeerMonitor> monitor;
  // Ranks read and write each other's buffers between the two rendezvous of an operation. Once the world breaks
  // (abort, failure, a destroyed peer) no rank enters that phase again, and breaking it waits until none is in
  // it: the caller may free its buffers as soon as quiesce() returns (a replica unwinding after an abort or a
  // Ctrl-C), and no peer still writes into them.
  std::atomic<int> working{0};
  std::atomic<bool> broken{false};
  void quiesce() {
    broken.store(true);
    barrier.break_all();
    while (working.load() > 0) std::this_thread::yield();
  }
};

namespace {

// Marks the calling rank as inside the data phase; refuses entry once the world is broken. seq_cst on both
// sides: either quiesce() sees this rank working and waits, or this rank sees the world broken and stays out.
class DataPhase {
 public:
  explicit DataPhase(LocalWorld& w) : w_(w) { w_.working.fetch_add(1); }
  ~DataPhase() { w_.working.fetch_sub(1); }
  bool admitted() const { return !w_.broken.load(); }

 private:
  LocalWorld& w_;
};

}  // namespace

LocalCommunicator::LocalCommunicator(Backend& be, std::shared_ptr<LocalWorld> world, int rank)
    : HostCommunicator(be), world_(std::move(world)), rank_(rank) {}

LocalCommunicator::~LocalCommunicator() {
  world_->monitor->left(rank_);
  world_->quiesce();
}

int LocalCommunicator::size() const { return world_->size; }

void LocalCommunicator::begin(std::string what) {
  if (!failure_.empty()) throw Error(failure_);
  if (aborted_.load()) throw Error("rank " + std::to_string(rank_) + ": communicator was aborted");
  world_->monitor->entered(rank_, ++seq_);
  what_ = std::move(what);
  deadline_ = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                     std::chrono::duration<double>(world_->timeout_s));
}

void LocalCommunicator::run(CollectiveOp op, const void* send, void* recv, size_t count, DType dt, int root) {
  std::lock_guard<std::mutex> lk(mu_);
  begin(std::string(collective_name(op)) + " #" + std::to_string(seq_ + 1));
  dispatch(op, send, recv, count, dt, root);
}

void LocalCommunicator::barrier() {
  std::lock_guard<std::mutex> lk(mu_);
  begin("barrier");
  sync();
}

void LocalCommunicator::abort() {
  if (!aborted_.exchange(true)) world_->monitor->left(rank_);
  // Every peer waiting for us (and any operation of ours in flight) fails now rather than at the timeout. A
  // second caller waits too: it returns only when no rank touches any buffer of this world any more.
  world_->quiesce();
}

void LocalCommunicator::sync() {
  const LocalBarrier::Outcome o = world_->barrier.arrive_and_wait(rounds_++, deadline_);
  if (o == LocalBarrier::Outcome::Passed) return;
  if (aborted_.load()) fail("communicator was aborted");
  fail(o == LocalBarrier::Outcome::TimedOut
           ? "timed out after " + std::to_string(world_->timeout_s) + " s waiting for the other ranks"
           : "a peer left the in-process world");
}

void LocalCommunicator::fail(const std::string& reason) {
  const std::vector<int> lost = world_->monitor->lost(rank_, seq_, 0);
  const std::string what = what_ + " on rank " + std::to_string(rank_) + " failed: " + reason;
  failure_ = lost.empty() ? what : describe_lost(lost) + ": " + what;
  // The ranks still waiting cannot complete this operation either.
  world_->quiesce();
  throw Error(failure_);
}

void LocalCommunicator::check_same_call() {
  const LocalSlot& me = world_->slots[rank_];
  for (int r = 0; r < world_->size; ++r) {
    const LocalSlot& o = world_->slots[r];
    if (o.op == me.op && o.count == me.count && o.dt == me.dt && o.root == me.root) continue;
    fail(std::string("ranks disagree on the call: rank ") + std::to_string(rank_) + " " + collective_name(me.op) +
         " of " + std::to_string(me.count) + " " + dtype_name(me.dt) + " (root " + std::to_string(me.root) +
         "), rank " + std::to_string(r) + " " + collective_name(o.op) + " of " + std::to_string(o.count) + " " +
         dtype_name(o.dt) + " (root " + std::to_string(o.root) + ")");
  }
}

void LocalCommunicator::dispatch(CollectiveOp op, const void* send, void* recv, size_t count, DType dt, int root) {
  LocalSlot& mine = world_->slots[rank_];
  mine.op = op;
  mine.count = count;
  mine.dt = dt;
  mine.root = op == CollectiveOp::Broadcast || op == CollectiveOp::Reduce ? root : 0;
  mine.send = send;
  mine.recv = recv;
  if (op == CollectiveOp::AllGather) {
    // In place either as NCCL defines it (send is this rank's block of recv) or as send == recv: the block
    // moves to its place before any peer can read it.
    char* block = static_cast<char*>(recv) + static_cast<size_t>(rank_) * count * dtype_size(dt);
    if (send == recv && count > 0) std::memmove(block, recv, count * dtype_size(dt));
    if (send == recv) mine.send = block;
  }
  sync();  // every slot is published
  check_same_call();
  if (count == 0) {
    sync();
    return;
  }
  bool admitted = false;
  {
    DataPhase phase(*world_);
    admitted = phase.admitted();
    if (admitted) {
      switch (op) {
        case CollectiveOp::AllReduce: all_reduce(count, dt, -1); break;
        case CollectiveOp::Reduce: all_reduce(count, dt, root); break;
        case CollectiveOp::ReduceScatter: reduce_scatter(recv, count, dt); break;
        case CollectiveOp::AllGather: all_gather(mine.send, recv, count, dt); break;
        case CollectiveOp::Broadcast: broadcast(send, recv, count, dt, root); break;
      }
    }
  }
  // Outside the phase: fail() waits for every rank to leave it, this one included.
  if (!admitted) fail(aborted_.load() ? "communicator was aborted" : "a peer left the in-process world");
  sync();  // no peer reads our buffers any more: the stream may go on and change them
}

void LocalCommunicator::all_reduce(size_t count, DType dt, int only_to) {
  // Rank r sums slice r of every input and writes it to slice r of every output. Only rank r touches slice r
  // of any buffer, so in place is safe and one rendezvous (before) plus one (after, in dispatch) suffice:
  // every input byte is read once and every output byte written once, over all ranks together.
  const int n = world_->size;
  const size_t es = dtype_size(dt);
  const size_t align = std::max<size_t>(1, kSliceAlign / es);
  const size_t per_rank = (count + n - 1) / n;
  const size_t slice = (per_rank + align - 1) / align * align;
  const size_t b = std::min(count, slice * static_cast<size_t>(rank_));
  const size_t e = std::min(count, b + slice);
  if (e == b) return;
  std::vector<const void*> in(n);
  std::vector<void*> out(n);
  for (int k = 0; k < n; ++k) {
    // Our own output first, so with two ranks the sum lands there and is copied once to the peer.
    const LocalSlot& s = world_->slots[(rank_ + k) % n];
    out[k] = static_cast<char*>(s.recv) + b * es;
  }
  // Reduce: the root's output only (ncclReduce leaves the others' as they were).
  if (only_to >= 0) out = {static_cast<char*>(world_->slots[only_to].recv) + b * es};
  for (int r = 0; r < n; ++r) in[r] = static_cast<const char*>(world_->slots[r].send) + b * es;
  reduce_to_all(out.data(), static_cast<int>(out.size()), in.data(), n, e - b, dt, block_);
}

void LocalCommunicator::reduce_scatter(void* recv, size_t count, DType dt) {
  // Only this rank reads block rank_ of any input, so writing it in place (recv inside send) is safe.
  const int n = world_->size;
  const size_t es = dtype_size(dt);
  std::vector<const void*> in(n);
  for (int r = 0; r < n; ++r) {
    in[r] = static_cast<const char*>(world_->slots[r].send) + static_cast<size_t>(rank_) * count * es;
  }
  void* out[1] = {recv};
  reduce_to_all(out, 1, in.data(), n, count, dt, block_);
}

void LocalCommunicator::all_gather(const void* send, void* recv, size_t count, DType dt) {
  const int n = world_->size;
  const size_t bytes = count * dtype_size(dt);
  for (int k = 0; k < n; ++k) {
    const int r = (rank_ + k) % n;
    const void* src = r == rank_ ? send : world_->slots[r].send;
    char* dst = static_cast<char*>(recv) + static_cast<size_t>(r) * bytes;
    if (src != dst) std::memcpy(dst, src, bytes);
  }
}

void LocalCommunicator::broadcast(const void* send, void* recv, size_t count, DType dt, int root) {
  const void* src = rank_ == root ? send : world_->slots[root].send;
  if (src != recv) std::memcpy(recv, src, count * dtype_size(dt));
}

std::vector<std::unique_ptr<Communicator>> create_local_communicators(const std::vector<Backend*>& local,
                                                                      double timeout_s) {
  if (local.empty()) throw Error("an in-process world needs at least one rank");
  for (Backend* be : local) {
    if (!be || be->kind() != DeviceKind::Cpu) {
      throw UsageError("--comm gloo works on --device cpu; --device cuda uses NCCL");
    }
  }
  const int n = static_cast<int>(local.size());
  auto world = std::make_shared<LocalWorld>(n, timeout_s);
  std::vector<std::unique_ptr<Communicator>> out;
  for (int r = 0; r < n; ++r) out.push_back(std::make_unique<LocalCommunicator>(*local[r], world, r));
  return out;
}

}  // namespace mg
