#include <cctype>
#include <exception>

#include "comm/bench/comm_bench.h"
#include "core/error.h"

// parse_size lives apart from the benchmark so the fuzz target (tests/fuzz) links it without the backends.
namespace mg {

size_t parse_size(const std::string& text, const std::string& option) {
  const std::string bad = option + " '" + text + "' is not a size: use bytes with an optional K, M or G suffix";
  if (text.empty() || !std::isdigit(static_cast<unsigned char>(text[0]))) throw UsageError(bad);
  size_t pos = 0;
  unsigned long long v = 0;
  try {
    v = std::stoull(text, &pos);
  } catch (const std::exception&) {
    throw UsageError(bad);
  }
  const std::string suffix = text.substr(pos);
  unsigned long long mult = 1;
  if (suffix == "K" || suffix == "k") {
    mult = 1ull << 10;
  } else if (suffix == "M" || suffix == "m") {
    mult = 1ull << 20;
  } else if (suffix == "G" || suffix == "g") {
    mult = 1ull << 30;
  } else if (!suffix.empty()) {
    throw UsageError(bad);
  }
  if (v > (1ull << 50) / mult) throw UsageError(option + " '" + text + "' is too large");
  return static_cast<size_t>(v * mult);
}

}  // namespace mg
