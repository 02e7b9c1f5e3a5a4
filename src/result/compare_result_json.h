// The `mgbench compare --json` file: CompareResult <-> JSON, as documented in docs/compare.md. Bump
// kCompareSchemaVersion whenever a field changes meaning or is removed (adding one is compatible), and update the
// docs and the reader in the same change.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "result/compare_result.h"

namespace mg {

constexpr int kCompareSchemaVersion = 2;  // 2: verdicts from run medians, noise floor

nlohmann::json to_json(const CompareResult& r);

// The inverse of to_json. UsageError("<source>: <json path>: <problem>") for a missing field, a wrong type or an
// integer field holding a fraction, and UsageError naming source for another (or no) compare_schema_version.
CompareResult compare_result_from_json(const nlohmann::json& j, const std::string& source);
CompareResult read_compare_result_file(const std::string& path);

}  // namespace mg
