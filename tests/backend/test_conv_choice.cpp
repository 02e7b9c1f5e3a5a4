// The CPU convolution's choice of implementation and algorithm, rule by rule, on timings the test sets.
#include <catch2/catch.hpp>

#include <vector>

#include "backend/cpu/conv_choice.h"

using namespace mg::cpu;

namespace {

constexpr size_t kMiB = size_t{1} << 20;

ImplCandidate timed(const std::string& name, double ms, size_t scratch = 0) { return {name, scratch, ms}; }
ImplCandidate untimed(const std::string& name, size_t scratch = 0) { return {name, scratch, std::nullopt}; }

}  // namespace

TEST_CASE("conv choice: another implementation replaces oneDNN's first only when 5 % faster", "[conv_choice]") {
  CHECK(choose_impl({timed("jit:avx512_core", 10.0), timed("gemm:jit", 9.6)}).empty());
  CHECK(choose_impl({timed("jit:avx512_core", 10.0), timed("gemm:jit", 9.4)}) == "gemm:jit");
  CHECK(choose_impl({timed("jit:avx512_core", 10.0), timed("gemm:jit", 10.5)}).empty());
}

TEST_CASE("conv choice: the fastest of the others wins, the first offered on a tie", "[conv_choice]") {
  const std::vector<ImplCandidate> offered{timed("jit:avx512_core", 10.0), timed("brgconv:avx512_core", 8.0),
                                           timed("gemm:jit", 7.0), timed("jit_1x1:avx2", 9.0)};
  CHECK(choose_impl(offered) == "gemm:jit");
  CHECK(choose_impl({timed("jit:avx512_core", 10.0), timed("a", 7.0), timed("b", 7.0)}) == "a");
}

TEST_CASE("conv choice: oneDNN's first stays for a pass under the minimum time", "[conv_choice]") {
  CHECK(choose_impl({timed("jit:avx512_core", 0.9), timed("gemm:jit", 0.1)}).empty());
  CHECK(choose_impl({timed("jit:avx512_core", kMinSwitchMs), timed("gemm:jit", 0.5)}) == "gemm:jit");
}

TEST_CASE("conv choice: nothing over the 64 MiB scratchpad limit is timed or chosen", "[conv_choice]") {
  const ImplCandidate first = timed("jit:avx512_core", 10.0);
  CHECK_FALSE(worth_timing({first}, untimed("gemm:jit", 64 * kMiB + 1)));
  CHECK(worth_timing({first}, untimed("gemm:jit", 64 * kMiB)));
  // Even with a time (as if it had been timed), a candidate over the limit is not chosen.
  CHECK(choose_impl({first, timed("gemm:jit", 2.0, 64 * kMiB + 1)}).empty());
  CHECK(choose_impl({first, timed("gemm:jit", 2.0, 64 * kMiB)}) == "gemm:jit");
  CHECK(choose_impl({first, timed("gemm:jit", 2.0, 65 * kMiB), timed("brgconv:avx2", 4.0, kMiB)}) == "brgconv:avx2");
  // oneDNN's own choice is what runs untimed, so it is timed whatever its scratchpad.
  CHECK(worth_timing({}, untimed("gemm:jit", 200 * kMiB)));
  CHECK(choose_impl({timed("gemm:jit", 10.0, 200 * kMiB), timed("jit:avx2", 5.0, kMiB)}) == "jit:avx2");
  CHECK(fits_scratch_limit(64 * kMiB));
  CHECK_FALSE(fits_scratch_limit(64 * kMiB + 1));
}

TEST_CASE("conv choice: a name is timed at its first offer, reference and SSE4.1 code never", "[conv_choice]") {
  const ImplCandidate first = timed("jit:avx512_core", 10.0);
  CHECK_FALSE(worth_timing({first, timed("gemm:jit", 9.8)}, untimed("gemm:jit")));
  CHECK_FALSE(worth_timing({first}, untimed("jit:avx512_core")));
  CHECK_FALSE(worth_timing({first}, untimed("ref:any")));
  CHECK_FALSE(worth_timing({first}, untimed("jit:sse41")));
  CHECK(worth_timing({}, untimed("ref:any")));
  // A repeated name runs as its first offer, so a faster repeat does not count.
  CHECK(choose_impl({first, timed("gemm:jit", 9.8), timed("gemm:jit", 5.0)}).empty());
  CHECK(choose_impl({first, timed("ref:any", 1.0), timed("jit:sse41", 1.0)}).empty());
}

TEST_CASE("conv choice: without a time for oneDNN's first it stays, and an untimed other never wins", "[conv_choice]") {
  CHECK(choose_impl({untimed("jit:avx512_core"), timed("gemm:jit", 1.0)}).empty());
  CHECK(choose_impl({timed("jit:avx512_core", 10.0), untimed("gemm:jit"), timed("brgconv:avx2", 9.0)}) ==
        "brgconv:avx2");
  CHECK(choose_impl({}).empty());
}

TEST_CASE("conv choice: Winograd when its passes and their reorders beat direct, within the limit", "[conv_choice]") {
  CHECK(choose_winograd({10.0, 8.0, 1.0, kMiB}));
  // Faster than direct on its own passes, slower with the reorders its blocked layout needs.
  CHECK_FALSE(choose_winograd({10.0, 8.0, 3.0, kMiB}));
  CHECK_FALSE(choose_winograd({10.0, 9.0, 1.0, kMiB}));  // a tie is direct
  CHECK(choose_winograd({10.0, 5.0, 1.0, 64 * kMiB}));
  CHECK_FALSE(choose_winograd({10.0, 5.0, 1.0, 64 * kMiB + 1}));
}
