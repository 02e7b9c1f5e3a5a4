// The top-level benchmark: sweep -> statistics -> table on stdout, JSON and trace files (rank 0 only).
#pragma once
#include "result/run_config.h"

namespace mg {
int run_training(const RunConfig& cfg);
}
