#include "comm/rendezvous/slurm_hostlist.h"

#include "core/error.h"

namespace mg {

std::string first_slurm_host(const std::string& nodelist, const std::string& variable) {
  const std::string bad = variable + "='" + nodelist + "' is not a Slurm host list";
  // The first entry ends at the first comma outside brackets.
  size_t end = 0;
  int depth = 0;
  for (; end < nodelist.size(); ++end) {
    const char c = nodelist[end];
    if (c == '[') ++depth;
    if (c == ']') --depth;
    if (depth < 0) throw UsageError(bad);
    if (c == ',' && depth == 0) break;
  }
  const std::string entry = nodelist.substr(0, end);
  if (entry.empty() || depth != 0) throw UsageError(bad);
  const size_t open = entry.find('[');
  if (open == std::string::npos) return entry;
  const size_t close = entry.find(']', open);
  // Within brackets: ranges and single numbers; the first one's start is the first host, padding kept.
  const std::string inner = entry.substr(open + 1, close - open - 1);
  const size_t stop = inner.find_first_of("-,");
  const std::string first = inner.substr(0, stop);
  if (first.empty() || first.find_first_not_of("0123456789") != std::string::npos) throw UsageError(bad);
  return entry.substr(0, open) + first + entry.substr(close + 1);
}

}  // namespace mg
