// The engine behind `mgbench comm`, in the manner of nccl-tests: sweep message sizes for one collective over
// the world's communicators, time warm-up-excluded iterations with device events, and check every result
// against a rank/index pattern whose sums are exact in fp32, fp16 and bf16.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "comm/bench/collective_table.h"  // pattern_value, and each collective's facts
#include "comm/communicator.h"
#include "core/dtype.h"
#include "result/comm_result.h"  // CommRow, the rows a sweep returns

namespace mg {

struct CommBenchOptions {
  CollectiveOp op = CollectiveOp::AllReduce;
  size_t min_bytes = 8;
  size_t max_bytes = 32 << 20;
  double factor = 2;  // -f: next size = size * factor
  int warmup = 5;
  int iters = 20;
  // Seconds each size's timed loop must last at least (0: exactly `iters`). While a loop ends sooner it is run
  // again with the count that would have made it last min_time_s (from rank 0's time per iteration, broadcast,
  // so every rank runs the same count; at most kMaxCommIters); the last loop is the figure, earlier ones were
  // warm-up. Small messages, whose single iteration is a few microseconds of noise, get thousands of
  // iterations; large ones keep `iters`.
  double min_time_s = 0;
  // Seconds of busy work before each collective of a second, "after a gap" timing of every size (0: none). A
  // training step does not issue its all-reduce back to back with the previous one: it computes first, and the
  // threads that carry the collective (the comm stream's, the library's) have slept meanwhile, on cores the
  // compute kept busy. The issuing thread spins for gap_s (as the CPU backend's inline compute stream does),
  // then launches one collective as the trainer launches a bucket and waits for it on the compute stream; each
  // is timed alone, from the compute stream's launch event to its event after the wait. Every rank spins the
  // same time after the previous collective ended, so they arrive nearly together (the skew of real ranks'
  // compute is predict's straggler term, not this figure).
  double gap_s = 0;
  DType dtype = DType::F32;
  int root = 0;           // broadcast, reduce
  bool ps = false;        // allreduce as the parameter server does it: reduce to rank 0, then broadcast
  std::string transport = "auto";  // recorded in each row
};

inline constexpr int kMaxCommIters = 1000000;

CollectiveOp parse_collective(const std::string& name);  // UsageError lists the five names
DType parse_comm_dtype(const std::string& name);         // fp32 | fp16 | bf16
// "8", "64K", "256M", "1G" (powers of 1024); UsageError naming `option` otherwise.
size_t parse_size(const std::string& text, const std::string& option);
// min, min*f, ... up to max; UsageError for a zero or reversed range or f <= 1 when min < max.
std::vector<size_t> size_sweep(size_t min_bytes, size_t max_bytes, double factor);

// nccl-tests' busbw = algbw * factor (the collective's row): allreduce 2(n-1)/n, reducescatter and allgather
// (n-1)/n, broadcast and reduce 1.
double bus_factor(CollectiveOp op, int ranks);
size_t count_for_bytes(CollectiveOp op, size_t bytes, int ranks, DType dt);
size_t bytes_for_count(CollectiveOp op, size_t count, int ranks, DType dt);

// Host-side pattern and checker, exposed so tests can corrupt a result and see it caught.
// Writes rank's send buffer (host memory, dtype dt) for op: count as NCCL's count.
void fill_send(CollectiveOp op, void* host, size_t count, DType dt, int rank, int ranks, int root);
// Elements of rank's receive buffer (host copy) that differ from the expected result.
int64_t count_wrong(CollectiveOp op, const void* host_recv, size_t count, DType dt, int rank, int ranks, int root);

// Runs the sweep: one host thread per local communicator (comms[i] uses backends[i]). Under a launcher each
// process passes its own communicators; every rank returns the same rows (times and wrong counts are
// combined over the world with the communicators themselves).
std::vector<CommRow> run_comm_bench(const std::vector<Communicator*>& comms,
                                         const std::vector<Backend*>& backends, const CommBenchOptions& opt);

}  // namespace mg
