// The CUDA convolution's choice among cuDNN's results, rule by rule, on results the test sets (no GPU needed).
#include <catch2/catch.hpp>

#include <vector>

#include "backend/cuda/conv_pick.h"

using namespace mg::cuda;

namespace {

constexpr size_t kLimit = size_t{1} << 30;

ConvCandidate ran(int algo, ConvMath math, float ms, size_t workspace = 0) { return {algo, true, math, workspace, ms}; }

}  // namespace

TEST_CASE("conv pick: fp32 skips a DEFAULT-math time for an algorithm also timed under FMA math", "[conv_pick]") {
  // Find's order for fp32 with FMA math set: the TF32 retries come first, being faster.
  const std::vector<ConvCandidate> found{ran(1, ConvMath::Default, 1.0f), ran(0, ConvMath::Default, 1.5f),
                                         ran(0, ConvMath::Fma, 4.0f), ran(1, ConvMath::Fma, 9.0f)};
  CHECK(pick_conv_candidate(found, true, kLimit) == 2);
  CHECK(conv_reject(found, 0, true, kLimit) == ConvReject::TimedWithTf32);
  // tf32 runs DEFAULT math: its fastest result stands.
  CHECK(pick_conv_candidate(found, false, kLimit) == 0);
}

TEST_CASE("conv pick: fp32 keeps a DEFAULT-math time for an algorithm with no FMA retry", "[conv_pick]") {
  // An algorithm without tensor-op kernels is tried only under DEFAULT math, so its time is an FMA time.
  const std::vector<ConvCandidate> found{ran(1, ConvMath::Default, 1.0f), ran(3, ConvMath::Default, 2.0f),
                                         ran(1, ConvMath::Fma, 5.0f)};
  CHECK(pick_conv_candidate(found, true, kLimit) == 1);
}

TEST_CASE("conv pick: a failed FMA retry still marks the DEFAULT time as TF32", "[conv_pick]") {
  std::vector<ConvCandidate> found{ran(1, ConvMath::Default, 1.0f), ran(0, ConvMath::Fma, 6.0f),
                                   ran(1, ConvMath::Fma, 2.0f)};
  found[2].ok = false;
  CHECK(pick_conv_candidate(found, true, kLimit) == 1);
}

TEST_CASE("conv pick: fp32 never takes tensor-op math, half precision does", "[conv_pick]") {
  const std::vector<ConvCandidate> found{ran(1, ConvMath::TensorOp, 0.5f), ran(1, ConvMath::Fma, 3.0f)};
  CHECK(pick_conv_candidate(found, true, kLimit) == 1);
  CHECK(conv_reject(found, 0, true, kLimit) == ConvReject::TensorOp);
  CHECK(pick_conv_candidate(found, false, kLimit) == 0);
}

TEST_CASE("conv pick: failures and workspace over the limit are skipped, none usable gives -1", "[conv_pick]") {
  std::vector<ConvCandidate> found{ran(2, ConvMath::Fma, 1.0f, kLimit + 1), ran(0, ConvMath::Fma, 2.0f),
                                   ran(1, ConvMath::Fma, 3.0f, kLimit)};
  found[1].ok = false;
  CHECK(conv_reject(found, 0, true, kLimit) == ConvReject::Workspace);
  CHECK(conv_reject(found, 1, true, kLimit) == ConvReject::Failed);
  CHECK(pick_conv_candidate(found, true, kLimit) == 2);
  CHECK(pick_conv_candidate(found, true, kLimit - 1) == -1);
  CHECK(pick_conv_candidate({}, true, kLimit) == -1);
}
