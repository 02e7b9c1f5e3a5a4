// Whether a string ends with a suffix: how file kinds are told apart by name (.mgrec, .bin, .json).
#pragma once
#include <string>

namespace mg {

inline bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace mg
