// --layer-times on stdout: where one step's time went, summed by layer kind, and the slowest layers.
#pragma once
#include <string>

#include "result/run_result.h"

namespace mg {

// For the last entry of r that has layer times (the largest device count of a sweep): a header line, one row per
// layer kind (layers, forward ms, backward ms, share of the timed layers' total), largest first, and a line
// naming the `slowest` slowest layers. "" when no entry has layer times. Ends with a newline.
std::string format_layer_times(const RunResult& r, int slowest = 3);

}  // namespace mg
