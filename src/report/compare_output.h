// The renderings of a CompareReport: a table for the terminal, Markdown for a pull-request comment and the
// CompareResult that the --json file holds (written by result/compare_result_json, documented in docs/compare.md).
#pragma once
#include <string>

#include "result/compare_result.h"
#include "stats/compare.h"

namespace mg {

std::string format_compare_table(const CompareReport& r);
std::string format_compare_markdown(const CompareReport& r);
CompareResult compare_result(const CompareReport& r);

}  // namespace mg
