// An enum's spellings in one place: the command line, the JSON result, printed tables and the error that lists
// the valid names all read the same table, so a spelling can never differ between them.
#pragma once
#include <array>
#include <cstddef>
#include <string>
#include <utility>

#include "core/error.h"

namespace mg {

template <class E, size_t N>
struct NameTable {
  std::array<std::pair<const char*, E>, N> entries;  // the first entry of a value is its name

  const char* name(E v) const {
    for (const auto& e : entries)
      if (e.second == v) return e.first;
    return "?";
  }
  bool find(const std::string& s, E& out) const {
    for (const auto& e : entries)
      if (s == e.first) {
        out = e.second;
        return true;
      }
    return false;
  }
  std::string list() const {  // "a, b, c"
    std::string out;
    for (const auto& e : entries) out += (out.empty() ? "" : ", ") + std::string(e.first);
    return out;
  }
  // UsageError "<what> <s> is not one of: a, b, c" (what: the option or JSON path, e.g. "--scaling").
  E parse(const std::string& s, const std::string& what) const {
    E v{};
    if (!find(s, v)) throw UsageError(what + " " + s + " is not one of: " + list());
    return v;
  }
};

}  // namespace mg
