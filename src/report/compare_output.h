// The three renderings of a CompareReport: a table for the terminal, Markdown for a pull-request comment and
// JSON for machines (documented in docs/compare.md).
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "report/compare.h"

namespace mg {

constexpr int kCompareSchemaVersion = 2;  // 2: verdicts from run medians, noise floor

std::string format_compare_table(const CompareReport& r);
std::string format_compare_markdown(const CompareReport& r);
nlohmann::json compare_to_json(const CompareReport& r);

}  // namespace mg
