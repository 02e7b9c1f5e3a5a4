// The rules that pick a CPU convolution's implementation and algorithm from timings, apart from the timing itself
// (cpu_layers_conv.cpp), so that each rule can be checked with timings a test chooses.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace mg::cpu {

// Winograd keeps transformed tiles in the scratchpad, and oneDNN's gemm convolutions their im2col copies; every
// layer of the replica shares one scratchpad at the size of the largest need, so, as cudnnFind on CUDA is held
// to a workspace limit, a timed choice only takes what fits this. ResNet-50 at batch 16: Winograd 12-35 MB in its
// first three stages, 131 MB at 512 channels of 7x7 for a 1.7 % shorter step, which is not worth 5 % more peak
// memory; gemm 1-9 MB for the pointwise layers it wins, 78 MB for 512-channel 3x3 backward-weights.
inline constexpr size_t kScratchLimit = size_t{64} << 20;

// oneDNN lists several implementations of a direct convolution pass (JIT kernels for each ISA, brgemm, gemm) and
// takes the first that applies, which on the development VM was up to 26 % slower than another for ResNet-50's
// 56x56 pointwise layers (backward-weights: gemm 10.2 ms against jit_1x1 13.7 ms at batch 16). The timed choice
// keeps oneDNN's own unless another is this much faster, so that timing noise does not move it.
inline constexpr double kSwitchMargin = 0.95;
// Nor below this: a pass that short at the timing batch matters little to a step, and its timing is mostly noise,
// which would make the choice, and so the run's rounding, differ from one process to the next.
inline constexpr double kMinSwitchMs = 1.0;

bool fits_scratch_limit(size_t scratchpad_bytes);

// One implementation oneDNN offers for a pass, in oneDNN's order: the first is oneDNN's own choice.
struct ImplCandidate {
  std::string name;  // oneDNN's impl_info_str
  size_t scratchpad_bytes = 0;
  std::optional<double> ms;  // unset: not timed, or its timing failed
};

// Whether `next`, offered after `earlier`, is timed: oneDNN's first always; another only under a name not offered
// before (a name is run at its first occurrence), neither reference nor SSE4.1 code, and within kScratchLimit.
bool worth_timing(const std::vector<ImplCandidate>& earlier, const ImplCandidate& next);

// The implementation a pass runs, empty for oneDNN's first: the fastest candidate worth timing, where oneDNN's
// first took at least kMinSwitchMs and the fastest is kSwitchMargin of it or less; empty when the first has no
// time, since there is nothing to hold the others against.
std::string choose_impl(const std::vector<ImplCandidate>& candidates);

// One layer's step (its passes) on the direct convolution and on Winograd.
struct WinogradTiming {
  double direct_ms = 0;
  double winograd_ms = 0;          // Winograd's passes
  double winograd_reorder_ms = 0;  // the activation reorders to and from the blocked layout Winograd needs
  size_t winograd_scratchpad_bytes = 0;
};

// Winograd when its scratchpad fits kScratchLimit and its passes with their reorders take less than direct.
bool choose_winograd(const WinogradTiming& t);

}  // namespace mg::cpu
