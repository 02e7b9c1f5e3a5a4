// The top-level benchmark: sweep -> statistics -> table on stdout, JSON and trace files (rank 0 only).
#pragma once
#include <string>

#include "result/run_config.h"

namespace mg {
// html_path: also write the HTML report of the result there ("" = none). progress_always: the progress line goes
// to stderr whatever it is (--progress), not only to stdout on a terminal.
int run_training(const RunConfig& cfg, const std::string& html_path = "", bool progress_always = false);
}
