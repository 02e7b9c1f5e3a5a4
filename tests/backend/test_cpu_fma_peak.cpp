// The CPU's measured FMA peak (the denominator of MFU on a CPU): the ISA chosen at run time is the widest the CPU
// has, each kernel runs every round on every chain and lane (its lanes equal the scalar recurrence bit for bit),
// and its FLOP count is that work; time it spends descheduled does not lower its rate, nor do threads beyond the
// CPUs raise it; the backend reports the peak for fp32 only.
#include <catch2/catch.hpp>
#include <omp.h>
#include <signal.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <csignal>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "backend/backend.h"
#include "backend/cpu/fma_peak.h"
#include "core/host_info.h"
#include "core/omp_team.h"

using namespace mg;

TEST_CASE("fma peak: the kernel of each ISA this CPU has computes every round of every chain and lane") {
  std::vector<std::pair<std::string, int64_t>> isas{{"generic", 32 * 2}};
#if defined(__x86_64__)
  isas.push_back({"sse2", 12 * 4 * 2});
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) isas.push_back({"avx2", 12 * 8 * 2});
  if (__builtin_cpu_supports("avx512f")) isas.push_back({"avx512", 16 * 16 * 2});
#endif
  const float a = 0.999f, b = 0.0625f;
  const int64_t iters = 1000;
  for (const auto& [isa, flops_per_round] : isas) {
    INFO(isa);
    float want = 0;
    for (int64_t i = 0; i < iters; ++i) want = isa == "sse2" ? want * a + b : std::fma(want, a, b);
    const FmaLanes l = run_fma_kernel(isa, iters, a, b);
    CHECK(l.min == want);
    CHECK(l.max == want);
    CHECK(l.flops == iters * flops_per_round);
  }
  CHECK_THROWS(run_fma_kernel("avx9000", 1, a, b));
}

TEST_CASE("fma peak: the widest ISA is measured on the threads asked for, and the CPU backend reports it for fp32") {
  const std::string isa = fma_peak_isa();
#if defined(__x86_64__)
  CHECK(isa == (__builtin_cpu_supports("avx512f") ? "avx512"
                : __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? "avx2"
                                                                                   : "sse2"));
#else
  CHECK(isa == "generic");
#endif
  const FmaPeak p = measure_fma_peak(2);
  CHECK(p.isa == isa);
  CHECK(p.threads == omp_team(2));
  CHECK(std::isfinite(p.flops_per_s));  // a rate, not bounded here: speed belongs to benchmarks
  CHECK(p.flops_per_s > 0);
  BackendOptions opt;
  opt.threads = 1;
  auto be = make_backend(DeviceKind::Cpu, 0, opt);
  const PeakRate fp32 = be->peak_flops(Precision::FP32);
  CHECK(fp32.flops_per_s > 0);
  CHECK_THAT(fp32.source, Catch::Contains("measured fp32 FMA peak (" + isa + ", 1 thread)"));
  const PeakRate bf16 = be->peak_flops(Precision::BF16);
  CHECK(bf16.flops_per_s == 0);
  CHECK_THAT(bf16.source, Catch::Contains("no measured bf16 peak"));
}

namespace {

void stop_self(int) { ::raise(SIGSTOP); }

// One long fma_round on one thread in a child process. With `stop_for_ms` > 0 the child stops itself (SIGSTOP)
// after 10 ms of its own CPU time, so inside the round, and the parent resumes it that much later: the core taken
// away as a busy machine's scheduler would, only deterministically.
double round_rate_in_child(int stop_for_ms) {
  int result[2];
  REQUIRE(::pipe(result) == 0);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    if (stop_for_ms > 0) {
      std::signal(SIGVTALRM, stop_self);
      itimerval after{{0, 0}, {0, 10000}};
      ::setitimer(ITIMER_VIRTUAL, &after, nullptr);
    }
    const double rate = fma_round(fma_peak_isa(), 1, int64_t{1} << 25).flops_per_s;  // 40-400 ms of work
    ::_exit(::write(result[1], &rate, sizeof rate) == sizeof rate ? 0 : 1);
  }
  ::close(result[1]);
  int status = 0;
  if (stop_for_ms > 0) {
    REQUIRE(::waitpid(pid, &status, WUNTRACED) == pid);
    REQUIRE(WIFSTOPPED(status));
    std::this_thread::sleep_for(std::chrono::milliseconds(stop_for_ms));
    ::kill(pid, SIGCONT);
  }
  double rate = 0;
  const ssize_t n = ::read(result[0], &rate, sizeof rate);
  ::close(result[0]);
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  REQUIRE((WIFEXITED(status) && WEXITSTATUS(status) == 0 && n == sizeof rate));
  return rate;
}

}  // namespace

TEST_CASE("fma peak: a round stopped for a second reports the same rate (CPU time, not wall time)") {
  const double alone = round_rate_in_child(0);
  // Stopped 1 s inside a round of at most 0.4 s of work: a rate over wall time would fall below a third.
  const double stopped = round_rate_in_child(1000);
  INFO("alone " << alone / 1e9 << " GFLOP/s, stopped for a second " << stopped / 1e9 << " GFLOP/s");
  CHECK(stopped > 0.6 * alone);
}

TEST_CASE("fma peak: a team of more threads than CPUs counts only the CPUs") {
  const int cpus = cpu_core_count();
  const int64_t iters = int64_t{1} << 22;
  const double one = fma_round(fma_peak_isa(), 1, iters).flops_per_s;
  const FmaRound team = fma_round(fma_peak_isa(), 4 * cpus, iters);
  INFO(cpus << " CPUs, one thread " << one / 1e9 << " GFLOP/s, " << 4 * cpus << " threads " << team.flops_per_s / 1e9
            << " GFLOP/s");
  // Four threads per CPU each see a whole CPU in their own CPU time; summed uncapped they would read 4x the CPUs.
  CHECK(team.flops_per_s > 0);
  CHECK(team.flops_per_s < 1.5 * cpus * one);
}

TEST_CASE("fma peak: a round given fewer threads than asked (nested in a parallel region) times those it has") {
  const int levels = omp_get_max_active_levels();
  omp_set_max_active_levels(1);  // a parallel region inside an active one (a team of two) runs on one thread
  FmaRound r;
#pragma omp parallel num_threads(2)
  if (omp_get_thread_num() == 0) r = fma_round(fma_peak_isa(), 4, int64_t{1} << 20);
  omp_set_max_active_levels(levels);
  // Threads that never ran would read 0 s of CPU time: measure_fma_peak would grow the round to 2^34 iterations.
  CHECK(r.min_cpu_s > 0);
  CHECK(r.flops_per_s > 0);
}
