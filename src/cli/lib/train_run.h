// The top-level benchmark: sweep -> statistics -> table on stdout, JSON and trace files (rank 0 only).
#pragma once
#include <string>

#include "result/run_config.h"

namespace mg {
// html_path: also write the HTML report of the result there ("" = none).
int run_training(const RunConfig& cfg, const std::string& html_path = "");
}
