// The `mgbench comm --json` file: CommResult <-> JSON, as documented in docs/results.md. Bump
// kCommSchemaVersion whenever a field changes meaning or is removed (adding one is compatible), and update the
// docs and the reader in the same change.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "result/comm_result.h"

namespace mg {

// Files written before the version existed have no comm_schema_version and read as version 1.
constexpr int kCommSchemaVersion = 1;
inline constexpr const char* kCommTool = "mgbench comm";

nlohmann::json to_json(const CommResult& r);

// The inverse of to_json. UsageError("<source>: <json path>: <problem>") for a missing field, a wrong type or an
// integer field holding a fraction, and UsageError naming source for another tool's file or another version.
CommResult comm_result_from_json(const nlohmann::json& j, const std::string& source);
CommResult read_comm_result_file(const std::string& path);

}  // namespace mg
