#include "backend/cpu/conv_choice.h"

#include <algorithm>

namespace mg::cpu {

bool fits_scratch_limit(size_t scratchpad_bytes) { return scratchpad_bytes <= kScratchLimit; }

bool worth_timing(const std::vector<ImplCandidate>& earlier, const ImplCandidate& next) {
  if (earlier.empty()) return true;
  const bool seen = std::any_of(earlier.begin(), earlier.end(), [&](const ImplCandidate& c) { return c.name == next.name; });
  // Reference code and SSE4.1 kernels never beat the AVX2/AVX-512 ones on a CPU that has those, and would
  // lengthen start-up most.
  const bool slow_kind = next.name.find("ref") != std::string::npos || next.name.find("sse41") != std::string::npos;
  return !seen && !slow_kind && fits_scratch_limit(next.scratchpad_bytes);
}

std::string choose_impl(const std::vector<ImplCandidate>& candidates) {
  if (candidates.empty() || !candidates[0].ms) return {};
  const ImplCandidate& first = candidates[0];
  const ImplCandidate* best = &first;
  std::vector<ImplCandidate> earlier{first};
  for (size_t i = 1; i < candidates.size(); ++i) {
    const ImplCandidate& c = candidates[i];
    if (worth_timing(earlier, c) && c.ms && *c.ms < *best->ms) best = &c;
    earlier.push_back(c);
  }
  const bool worth = *first.ms >= kMinSwitchMs && *best->ms < kSwitchMargin * *first.ms;
  return best != &first && worth ? best->name : std::string();
}

bool choose_winograd(const WinogradTiming& t) {
  return fits_scratch_limit(t.winograd_scratchpad_bytes) && t.winograd_ms + t.winograd_reorder_ms < t.direct_ms;
}

}  // namespace mg::cpu
