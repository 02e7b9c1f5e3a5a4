#include "result/loaded_libraries_json.h"

namespace mg {

nlohmann::json loaded_libraries_json(const std::map<std::string, LoadedLibrary>& libs) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [name, lib] : libs) out[name] = {{"file", lib.file}, {"version", lib.version}};
  return out;
}

std::map<std::string, LoadedLibrary> loaded_libraries_from_json(const JsonReader& rd, const nlohmann::json& libs,
                                                                const std::string& where) {
  if (!libs.is_object()) rd.fail(where, "expected an object");
  std::map<std::string, LoadedLibrary> out;
  for (const auto& [name, lib] : libs.items()) {
    const std::string w = where + "." + name;
    out[name] = {rd.get<std::string>(lib, w, "file"), rd.get<std::string>(lib, w, "version")};
  }
  return out;
}

}  // namespace mg
