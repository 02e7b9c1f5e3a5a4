// The CPU's measured peak of fp32 multiply-adds, the denominator of model FLOPs utilisation on a CPU: independent
// FMA chains in the widest vector unit this CPU has (chosen at run time: AVX-512, AVX2 with FMA, else SSE2
// multiply and add; other CPUs: fused multiply-adds the compiler vectorises), enough of them to hide the FMA
// latency on every port, on `threads` threads at once so the clock is the all-core one a training run gets; each
// thread is timed in its own CPU time, so other processes on a shared machine do not lower the peak.
#pragma once
#include <cstdint>
#include <string>

namespace mg {

struct FmaPeak {
  double flops_per_s = 0;  // all threads together; a multiply-add counts 2
  std::string isa;         // avx512 | avx2 | sse2 | generic
  int threads = 0;
};

// Best of three rounds of at least 20 ms of CPU time each, after warm-up rounds.
FmaPeak measure_fma_peak(int threads);

// The ISA measure_fma_peak uses on this CPU.
std::string fma_peak_isa();

// One kernel run on the calling thread: `iters` rounds of acc = acc * a + b on every chain and lane from 0.
// Returns the smallest and largest final lane; both equal the scalar recurrence when every round ran.
struct FmaLanes {
  float min = 0, max = 0;
  int64_t flops = 0;
};
FmaLanes run_fma_kernel(const std::string& isa, int64_t iters, float a, float b);

// One round: a team of `threads` runs the kernel at once, each thread timing itself in its own CPU time, so time
// the scheduler gives other processes slows the round but not its rate. A team larger than the CPUs this process
// may run on (core/host_info.h) counts only that many CPUs' worth; a smaller team than asked (nested, thread
// limit) is timed on the threads it has.
struct FmaRound {
  double flops_per_s = 0;  // the team's sum of each thread's FLOPs over its own CPU time, capped as above
  double min_cpu_s = 0;    // the shortest CPU time of the threads that ran
};
FmaRound fma_round(const std::string& isa, int threads, int64_t iters);

}  // namespace mg
