#include "comm/bench/comm_bench.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <exception>
#include <mutex>
#include <thread>

#include "core/error.h"
#include "core/stop.h"
#include "core/half.h"

namespace mg {
namespace {

constexpr float kSentinel = -1.0f;  // never an expected value: patterns and their sums are >= 0

float load(const void* p, size_t i, DType dt) {
  switch (dt) {
    case DType::F32: return static_cast<const float*>(p)[i];
    case DType::F16: return fp16_to_float(static_cast<const uint16_t*>(p)[i]);
    case DType::BF16: return bf16_to_float(static_cast<const uint16_t*>(p)[i]);
    default: break;
  }
  throw UsageError(std::string("--dtype ") + dtype_name(dt) + " is not one of: fp32, fp16, bf16");
}

void store(void* p, size_t i, DType dt, float v) {
  switch (dt) {
    case DType::F32: static_cast<float*>(p)[i] = v; return;
    case DType::F16: static_cast<uint16_t*>(p)[i] = float_to_fp16(v); return;
    case DType::BF16: static_cast<uint16_t*>(p)[i] = float_to_bf16(v); return;
    default: break;
  }
  throw UsageError(std::string("--dtype ") + dtype_name(dt) + " is not one of: fp32, fp16, bf16");
}

// Where send and recv sit for one placement. In place follows NCCL: allgather sends from its own block of
// recv, reducescatter receives into its own block of send.
struct Placement {
  size_t send_off = 0, recv_off = 0;  // elements into the buffer they live in
  bool shared = false;                // send and recv are one buffer
};

Placement placement(const CollectiveSpec& spec, bool in_place, size_t count, int rank) {
  Placement p;
  p.shared = in_place;
  if (!in_place) return p;
  if (spec.recv_per_rank) p.send_off = count * static_cast<size_t>(rank);
  if (spec.send_per_rank) p.recv_off = count * static_cast<size_t>(rank);
  return p;
}

}  // namespace

CollectiveOp parse_collective(const std::string& name) {
  std::string names;
  for (const CollectiveSpec& spec : collective_table()) {
    if (name == collective_name(spec.op)) return spec.op;
    names += (names.empty() ? "" : ", ") + std::string(collective_name(spec.op));
  }
  throw UsageError("--op '" + name + "' is not one of: " + names);
}

DType parse_comm_dtype(const std::string& name) {
  if (name == "fp32") return DType::F32;
  if (name == "fp16") return DType::F16;
  if (name == "bf16") return DType::BF16;
  throw UsageError("--dtype '" + name + "' is not one of: fp32, fp16, bf16");
}

std::vector<size_t> size_sweep(size_t min_bytes, size_t max_bytes, double factor) {
  if (min_bytes == 0 || max_bytes == 0) throw UsageError("-b/-e: sizes must be at least 1 byte");
  if (max_bytes < min_bytes) {
    throw UsageError("-b " + std::to_string(min_bytes) + " is larger than -e " + std::to_string(max_bytes) +
                     ": the size range is reversed");
  }
  if (min_bytes < max_bytes && !(factor > 1)) throw UsageError("-f must be greater than 1 when -b < -e");
  std::vector<size_t> out;
  for (double s = static_cast<double>(min_bytes); s <= static_cast<double>(max_bytes) * (1 + 1e-12); s *= factor) {
    out.push_back(static_cast<size_t>(std::llround(s)));
    if (min_bytes == max_bytes) break;
  }
  return out;
}

double bus_factor(CollectiveOp op, int ranks) { return collective_spec(op).bus_factor(ranks); }

size_t count_for_bytes(CollectiveOp op, size_t bytes, int ranks, DType dt) {
  const CollectiveSpec& spec = collective_spec(op);
  const size_t blocks = spec.send_per_rank || spec.recv_per_rank ? static_cast<size_t>(ranks) : 1;
  return std::max<size_t>(1, bytes / (dtype_size(dt) * blocks));
}

size_t bytes_for_count(CollectiveOp op, size_t count, int ranks, DType dt) {
  const CollectiveSpec& spec = collective_spec(op);
  return std::max(spec.send_elems(count, ranks), spec.recv_elems(count, ranks)) * dtype_size(dt);
}

void fill_send(CollectiveOp op, void* host, size_t count, DType dt, int rank, int ranks, int root) {
  const CollectiveSpec& spec = collective_spec(op);
  const size_t base = spec.recv_per_rank ? count * static_cast<size_t>(rank) : 0;  // rank's block of the output
  const int who = spec.root_sends ? root : rank;
  for (size_t i = 0; i < spec.send_elems(count, ranks); ++i) store(host, i, dt, pattern_value(who, base + i, ranks));
}

int64_t count_wrong(CollectiveOp op, const void* host_recv, size_t count, DType dt, int rank, int ranks, int root) {
  const CollectiveSpec& spec = collective_spec(op);
  if (spec.root_receives && rank != root) return 0;
  int64_t wrong = 0;
  for (size_t i = 0; i < spec.recv_elems(count, ranks); ++i)
    if (load(host_recv, i, dt) != spec.expected(i, count, rank, ranks, root)) ++wrong;
  return wrong;
}

namespace {

// One rank's share of the sweep: its buffers, and the rows it measured (time and wrong for itself only).
class RankBench {
 public:
  RankBench(Communicator& comm, Backend& be, const CommBenchOptions& opt, size_t max_count)
      : comm_(comm), be_(be), opt_(opt), spec_(collective_spec(opt.op)), n_(comm.size()), rank_(comm.rank()) {
    const size_t elems = std::max(spec_.send_elems(max_count, n_), spec_.recv_elems(max_count, n_));
    bytes_ = elems * dtype_size(opt.dtype);
    a_ = be.device_alloc(bytes_);
    b_ = be.device_alloc(bytes_);
    stats_ = static_cast<float*>(be.device_alloc(3 * sizeof(float)));
    send_host_.resize(bytes_);
    recv_host_.resize(bytes_);
  }
  ~RankBench() {
    // Collectives still queued after a failure reference these buffers: drain the stream first.
    try {
      be_.synchronize(StreamKind::Comm);
    } catch (const std::exception&) {
    }
    be_.device_free(a_);
    be_.device_free(b_);
    be_.device_free(stats_);
  }

  CommRow measure(size_t count, bool in_place) {
    const Placement p = placement(spec_, in_place, count, rank_);
    const size_t es = dtype_size(opt_.dtype);
    char* send = static_cast<char*>(a_) + p.send_off * es;
    char* recv = static_cast<char*>(p.shared ? a_ : b_) + p.recv_off * es;

    upload(count, in_place);
    for (int i = 0; i < opt_.warmup; ++i) enqueue(send, recv, count);
    be_.synchronize(StreamKind::Comm);
    comm_.barrier();  // all ranks start the timed loop together, so no rank's time includes waiting for a peer
    int iters = opt_.iters;
    double seconds = timed_loop(send, recv, count, iters);
    // Until a loop lasts min_time_s: a first loop slowed by a stall asks for too few iterations, so the count is
    // re-derived from each loop (it only grows, up to kMaxCommIters). The earlier loops were warm-up.
    for (int more; opt_.min_time_s > 0 && (more = iters_for_min_time(seconds, iters)) > iters;) {
      iters = more;
      comm_.barrier();
      seconds = timed_loop(send, recv, count, iters);
    }

    double gap_seconds = 0;
    int gap_iters = 0;
    if (opt_.gap_s > 0) {
      gap_iters = opt_.iters;
      comm_.barrier();
      gap_seconds = gapped_loop(send, recv, count, gap_iters);
      // --min-time counts the gaps too: a loop of gap + collective per iteration lasts at least min_time_s.
      for (int more; opt_.min_time_s > 0 && (more = iters_for_min_time(gap_seconds + opt_.gap_s, gap_iters)) > gap_iters;) {
        gap_iters = more;
        comm_.barrier();
        gap_seconds = gapped_loop(send, recv, count, gap_iters);
      }
    }

    // The timed loop fed results back as inputs; check one fresh run instead.
    upload(count, in_place);
    enqueue(send, recv, count);
    const size_t rbytes = spec_.recv_elems(count, n_) * es;
    be_.copy_d2h(recv_host_.data(), recv, rbytes, StreamKind::Comm);
    be_.synchronize(StreamKind::Comm);
    const int64_t wrong = count_wrong(opt_.op, recv_host_.data(), count, opt_.dtype, rank_, n_, opt_.root);

    // Combine over the world with the communicator under test: mean time, total wrong elements.
    float local[3] = {static_cast<float>(seconds * 1e6), static_cast<float>(wrong),
                      static_cast<float>(gap_seconds * 1e6)};
    be_.copy_h2d(stats_, local, sizeof(local), StreamKind::Comm);
    comm_.collective(CollectiveOp::AllReduce, stats_, stats_, 3, DType::F32, 0, StreamKind::Comm);
    float world[3] = {0, 0, 0};
    be_.copy_d2h(world, stats_, sizeof(world), StreamKind::Comm);
    be_.synchronize(StreamKind::Comm);

    CommRow row;
    row.op = collective_name(opt_.op);
    row.dtype = dtype_name(opt_.dtype);
    row.count = count;
    row.bytes = bytes_for_count(opt_.op, count, n_, opt_.dtype);
    row.in_place = in_place;
    row.time_us = world[0] / n_;
    row.iters = iters;
    row.gap_time_us = world[2] / n_;
    row.gap_iters = gap_iters;
    row.algbw_GBps = row.time_us > 0 ? row.bytes / (row.time_us * 1e3) : 0;
    row.busbw_GBps = row.algbw_GBps * spec_.bus_factor(n_);
    row.wrong = static_cast<int64_t>(std::llround(world[1]));
    row.transport = opt_.transport;
    row.library = comm_.library();
    row.devices = n_;
    return row;
  }

 private:
  void enqueue(const void* send, void* recv, size_t count) {
    throw_if_stopped();  // a long timed loop (--iters) must not outlive a SIGINT
    if (opt_.ps && spec_.ps_form) {
      spec_.ps_form(comm_, send, recv, count, opt_.dtype, StreamKind::Comm);
    } else {
      comm_.collective(opt_.op, send, recv, count, opt_.dtype, opt_.root, StreamKind::Comm);
    }
  }

  // Mean seconds per iteration of `iters` back-to-back collectives, between two Comm-stream events.
  double timed_loop(const void* send, void* recv, size_t count, int iters) {
    auto start = be_.create_event(), end = be_.create_event();
    be_.record(*start, StreamKind::Comm);
    for (int i = 0; i < iters; ++i) enqueue(send, recv, count);
    be_.record(*end, StreamKind::Comm);
    be_.synchronize(*end);
    return iters > 0 ? be_.elapsed_seconds(*start, *end) / iters : 0.0;
  }

  // Mean seconds one collective issued after opt_.gap_s of busy work costs the compute stream, launched and
  // awaited as the trainer launches a gradient bucket (train/grad_sync.cpp): an event on the compute stream, the
  // comm stream waits for it, the collective, the compute stream waits for its end. Each is timed from the
  // compute stream's launch event to its event after the wait, so waking the comm stream's thread (and, on the
  // CPU backend, the issuing thread after the wait) is in the figure, as it is in a training step's wait.
  double gapped_loop(const void* send, void* recv, size_t count, int iters) {
    auto launch = be_.create_event(), end = be_.create_event(), resumed = be_.create_event();
    const auto gap = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
        std::chrono::duration<double>(opt_.gap_s));
    double total = 0;
    for (int i = 0; i < iters; ++i) {
      const auto until = std::chrono::steady_clock::now() + gap;
      // Spinning, not sleeping: the compute it stands for keeps this core busy.
      while (std::chrono::steady_clock::now() < until) {
      }
      be_.record(*launch, StreamKind::Compute);
      be_.stream_wait(StreamKind::Comm, *launch);
      enqueue(send, recv, count);
      be_.record(*end, StreamKind::Comm);
      be_.stream_wait(StreamKind::Compute, *end);
      be_.record(*resumed, StreamKind::Compute);
      be_.synchronize(*resumed);
      total += be_.elapsed_seconds(*launch, *resumed);
    }
    return iters > 0 ? total / iters : 0.0;
  }

  // The iteration count that makes the timed loop last opt_.min_time_s, from rank 0's first loop (mean seconds
  // per iteration), so every rank runs the same number of collectives.
  int iters_for_min_time(double seconds_per_iter, int iters) {
    float mine = static_cast<float>(seconds_per_iter);
    be_.copy_h2d(stats_, &mine, sizeof(mine), StreamKind::Comm);
    comm_.collective(CollectiveOp::Broadcast, stats_, stats_, 1, DType::F32, 0, StreamKind::Comm);
    float rank0 = 0;
    be_.copy_d2h(&rank0, stats_, sizeof(rank0), StreamKind::Comm);
    be_.synchronize(StreamKind::Comm);
    if (!(rank0 > 0)) return iters;
    const double want = std::ceil(opt_.min_time_s / static_cast<double>(rank0));
    return static_cast<int>(std::min<double>(kMaxCommIters, std::max<double>(iters, want)));
  }

  // Buffer a holds the input (and the output when in place), b the output when out of place; every element
  // that should be overwritten starts as the sentinel.
  void upload(size_t count, bool in_place) {
    const size_t es = dtype_size(opt_.dtype);
    const size_t total = std::max(spec_.send_elems(count, n_), spec_.recv_elems(count, n_));
    for (size_t i = 0; i < total; ++i) {
      store(send_host_.data(), i, opt_.dtype, kSentinel);
      store(recv_host_.data(), i, opt_.dtype, kSentinel);
    }
    const Placement p = placement(spec_, in_place, count, rank_);
    const bool holds_input = !(in_place && spec_.root_sends && rank_ != opt_.root);
    if (holds_input) fill_send(opt_.op, send_host_.data() + p.send_off * es, count, opt_.dtype, rank_, n_, opt_.root);
    be_.copy_h2d(a_, send_host_.data(), total * es, StreamKind::Comm);
    if (!in_place) be_.copy_h2d(b_, recv_host_.data(), total * es, StreamKind::Comm);
    be_.synchronize(StreamKind::Comm);
  }

  Communicator& comm_;
  Backend& be_;
  const CommBenchOptions& opt_;
  const CollectiveSpec& spec_;
  int n_, rank_;
  size_t bytes_ = 0;
  void *a_ = nullptr, *b_ = nullptr;
  float* stats_ = nullptr;
  std::vector<char> send_host_, recv_host_;
};

}  // namespace

std::vector<CommRow> run_comm_bench(const std::vector<Communicator*>& comms,
                                         const std::vector<Backend*>& backends, const CommBenchOptions& opt) {
  if (comms.empty() || comms.size() != backends.size()) throw Error("comm bench: one backend per communicator");
  if (opt.warmup < 0) throw UsageError("--warmup must be >= 0");
  if (opt.iters < 1) throw UsageError("--iters must be >= 1");
  if (!(opt.gap_s >= 0) || !std::isfinite(opt.gap_s)) throw UsageError("--gap must be a number of seconds >= 0");
  const int n = comms[0]->size();
  if (collective_spec(opt.op).rooted && (opt.root < 0 || opt.root >= n)) {
    throw UsageError("--root " + std::to_string(opt.root) + " is outside the world of " + std::to_string(n) + " ranks");
  }
  // Sizes map to element counts; two sizes that round to one count would measure the same thing twice.
  std::vector<size_t> counts;
  for (size_t bytes : size_sweep(opt.min_bytes, opt.max_bytes, opt.factor)) {
    const size_t c = count_for_bytes(opt.op, bytes, n, opt.dtype);
    if (counts.empty() || counts.back() != c) counts.push_back(c);
  }

  std::vector<CommRow> rows;
  std::mutex mu;
  std::exception_ptr first_error;
  // SIGINT/SIGTERM: release every rank blocked in a collective (here and, through the closed connections, in
  // peer processes).
  StopCallback on_stop([&] {
    for (Communicator* c : comms) c->abort();
  });
  std::vector<std::thread> threads;
  for (size_t i = 0; i < comms.size(); ++i) {
    threads.emplace_back([&, i] {
      try {
        backends[i]->attach_thread();
        RankBench bench(*comms[i], *backends[i], opt, counts.back());
        std::vector<CommRow> mine;
        for (size_t c : counts) {
          for (bool in_place : {false, true}) mine.push_back(bench.measure(c, in_place));
        }
        if (i == 0) rows = std::move(mine);
      } catch (...) {
        std::lock_guard<std::mutex> lk(mu);
        if (!first_error) first_error = std::current_exception();
        // The other local ranks may be blocked in a collective with this one: release them now.
        for (Communicator* c : comms) c->abort();
      }
    });
  }
  for (auto& t : threads) t.join();
  throw_if_stopped();
  if (first_error) std::rethrow_exception(first_error);
  return rows;
}

}  // namespace mg
