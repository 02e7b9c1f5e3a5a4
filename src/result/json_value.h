// Typed reads of one JSON value for the result and config readers. nlohmann's get<T> converts a fraction or an
// out-of-range number to an integer type unchecked (undefined behaviour), so integers are range-checked here.
#pragma once
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

namespace mg {

template <class T>
struct IsVector : std::false_type {};
template <class U>
struct IsVector<std::vector<U>> : std::true_type {};

// The value as T, or nullopt when it is not one: the wrong JSON type, or for an integer T (or a vector of
// them) a fraction or a number outside T's range.
template <class T>
std::optional<T> json_value(const nlohmann::json& v) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    constexpr auto max = static_cast<uint64_t>(std::numeric_limits<T>::max());
    if (v.is_number_unsigned()) {
      const auto u = v.get<uint64_t>();
      if (u > max) return std::nullopt;
      return static_cast<T>(u);
    }
    if (!v.is_number_integer()) return std::nullopt;
    const auto i = v.get<int64_t>();
    if (i < 0 ? i < static_cast<int64_t>(std::numeric_limits<T>::min()) : static_cast<uint64_t>(i) > max)
      return std::nullopt;
    return static_cast<T>(i);
  } else if constexpr (IsVector<T>::value) {
    if (!v.is_array()) return std::nullopt;
    T out;
    for (const nlohmann::json& e : v) {
      auto x = json_value<typename T::value_type>(e);
      if (!x) return std::nullopt;
      out.push_back(std::move(*x));
    }
    return out;
  } else {
    try {
      return v.get<T>();
    } catch (const nlohmann::json::exception&) {
      return std::nullopt;
    }
  }
}

// Why json_value<T> refused v, for an error after "<where>: ".
template <class T>
std::string json_value_refusal(const nlohmann::json& v) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>)
    if (v.is_number()) return "is not an integer in range (" + v.dump() + ")";
  if (v.is_array()) return "has an element of the wrong type or out of range (" + v.dump() + ")";
  return std::string("has the wrong type (") + v.type_name() + ")";
}

}  // namespace mg
