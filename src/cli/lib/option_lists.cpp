#include "cli/lib/option_lists.h"

#include <exception>

#include <fmt/format.h>

#include "core/error.h"

namespace mg {

std::vector<std::string> split_list(const std::vector<std::string>& items) {
  std::vector<std::string> out;
  for (const auto& item : items) {
    size_t start = 0;
    while (start <= item.size()) {
      const size_t comma = item.find(',', start);
      const std::string tok = item.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      if (!tok.empty()) out.push_back(tok);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  return out;
}

std::vector<int> parse_ints(const std::vector<std::string>& items, const char* option) {
  std::vector<int> out;
  for (const auto& tok : split_list(items)) {
    size_t used = 0;
    int v = 0;
    try {
      v = std::stoi(tok, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != tok.size()) throw UsageError(fmt::format("{}: '{}' is not an integer", option, tok));
    out.push_back(v);
  }
  return out;
}

}  // namespace mg
