// The --json result file: RunResult <-> JSON, as documented in docs/results.md and docs/result-schema.json.
// Bump kResultSchemaVersion whenever a field changes meaning or is removed (adding one is compatible), and
// update the schema file, the docs and the reader in the same change.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "result/run_config_fields.h"  // to_json(RunConfig)
#include "result/run_result.h"

namespace mg {

constexpr int kResultSchemaVersion = 1;

nlohmann::json to_json(const RunResult& r);
nlohmann::json to_json(const CheckReport& r);  // null when the check did not run

// The inverse of to_json (what `mgbench compare` reads). source names the file in error messages:
// UsageError("<source>: <json path>: <problem>") for a missing field, a wrong type or an unknown enum value,
// and UsageError("<source>: schema_version N, this mgbench reads 1") for any other version.
RunResult result_from_json(const nlohmann::json& j, const std::string& source);

// Reads and parses path: UsageError naming it when it is missing, unreadable or not valid JSON.
nlohmann::json read_json_file(const std::string& path);
RunResult read_result_file(const std::string& path);

// Pretty-printed JSON, written with write_file_atomic (never a partial file; UsageError naming an unwritable
// path).
void write_json_atomic(const std::string& path, const nlohmann::json& j);

}  // namespace mg
