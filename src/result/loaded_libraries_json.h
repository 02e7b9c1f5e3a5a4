// The loaded-libraries block that training and comm results share: per library, the file this process mapped
// and the version it reports.
#pragma once
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "core/loaded_library.h"
#include "result/json_reader.h"

namespace mg {

nlohmann::json loaded_libraries_json(const std::map<std::string, LoadedLibrary>& libs);
// `where` is the JSON path of the block itself, for error messages.
std::map<std::string, LoadedLibrary> loaded_libraries_from_json(const JsonReader& rd, const nlohmann::json& libs,
                                                                const std::string& where);

}  // namespace mg
