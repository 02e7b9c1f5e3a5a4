#include "stats/alternation.h"

#include <algorithm>
#include <cstdlib>

#include <fmt/format.h>

#include "core/error.h"

namespace mg {

namespace {

struct Placed {
  double start = 0, finish = 0;
  const TimedFile* file = nullptr;
  bool base = false;
  size_t pair = 0;
};

void add_side(const std::vector<TimedFile>& side, bool base, std::vector<Placed>& out) {
  for (size_t i = 0; i < side.size(); ++i) {
    const TimedFile& f = side[i];
    if (f.spans.empty())
      throw UsageError(fmt::format("--paired: {} records no process start time (written by an older mgbench), so "
                                   "whether BASE and NEW alternated cannot be checked",
                                   f.path));
    if (f.spans.size() > 1)
      throw UsageError(fmt::format("--paired: {} pools {} process runs made one after another; interleaved pairs "
                                   "need one file per run",
                                   f.path, f.spans.size()));
    out.push_back({f.spans[0].started_unix_s, f.spans[0].finished_unix_s, &f, base, i});
  }
}

}  // namespace

void require_alternation(const std::vector<TimedFile>& base, const std::vector<TimedFile>& next) {
  if (base.size() != next.size())
    throw UsageError(fmt::format("--paired: {} BASE files and {} NEW files; pairs need as many of each", base.size(),
                                 next.size()));
  std::vector<Placed> all;
  add_side(base, true, all);
  add_side(next, false, all);
  std::stable_sort(all.begin(), all.end(), [](const Placed& a, const Placed& b) { return a.start < b.start; });
  for (size_t k = 1; k < all.size(); ++k)
    if (all[k].start < all[k - 1].finish)
      throw UsageError(fmt::format("--paired: {} and {} overlap in time (they ran at once, not one after the other)",
                                   all[k - 1].file->path, all[k].file->path));
  std::vector<long> pos_base(base.size()), pos_next(next.size());
  for (size_t k = 0; k < all.size(); ++k) (all[k].base ? pos_base : pos_next)[all[k].pair] = static_cast<long>(k);
  for (size_t i = 0; i < base.size(); ++i) {
    const long between = std::labs(pos_base[i] - pos_next[i]) - 1;
    if (between != 0)
      throw UsageError(fmt::format("--paired: BASE {} and NEW {} (pair {}) did not run back to back: {} other run(s) "
                                   "started between them, so BASE and NEW did not alternate",
                                   base[i].path, next[i].path, i + 1, between));
  }
}

}  // namespace mg
