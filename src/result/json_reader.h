// Reading a result-like JSON file field by field: every access names the file and the JSON path, so a
// hand-edited or truncated file fails with one clear line instead of nlohmann's type_error.
#pragma once
#include <optional>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "result/json_value.h"

namespace mg {

class JsonReader {
 public:
  explicit JsonReader(std::string source) : source_(std::move(source)) {}

  [[noreturn]] void fail(const std::string& where, const std::string& what) const { fail(where + ": " + what); }
  [[noreturn]] void fail(const std::string& message) const { throw UsageError(source_ + ": " + message); }

  const nlohmann::json& at(const nlohmann::json& j, const std::string& where, const std::string& key) const {
    if (!j.is_object()) fail(where, "expected an object");
    auto it = j.find(key);
    if (it == j.end()) fail(where, std::string("missing field '") + key + "'");
    return *it;
  }

  template <class T>
  T get(const nlohmann::json& j, const std::string& where, const std::string& key) const {
    const nlohmann::json& v = at(j, where, key);
    if (std::optional<T> x = json_value<T>(v)) return *x;
    fail(where + "." + key, json_value_refusal<T>(v));
  }

  // A field that later versions might add; absent in older files of the same schema version.
  template <class T>
  T get_or(const nlohmann::json& j, const std::string& where, const std::string& key, T fallback) const {
    if (!j.is_object() || !j.contains(key)) return fallback;
    return get<T>(j, where, key);
  }

  const nlohmann::json& array(const nlohmann::json& j, const std::string& where, const std::string& key) const {
    const nlohmann::json& v = at(j, where, key);
    if (!v.is_array()) fail(where + "." + key, "expected an array");
    return v;
  }

  const nlohmann::json& object(const nlohmann::json& j, const std::string& where, const std::string& key) const {
    const nlohmann::json& v = at(j, where, key);
    if (!v.is_object()) fail(where + "." + key, "expected an object");
    return v;
  }

  const std::string& source() const { return source_; }

 private:
  std::string source_;
};

}  // namespace mg
