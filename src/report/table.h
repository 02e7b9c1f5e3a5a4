// The human-readable summary printed on stdout after a run.
#pragma once
#include <string>

#include "result/run_result.h"

namespace mg {

// One environment header line (model, precision, device, batch, host, CPU/devices, mgbench version), then a
// table with one row per device count and transport: devices, transport, images/s, images/s per device,
// scaling efficiency %, step time median ± ci95 (ms), breakdown shares % in kBreakdownParts order (input, fwd,
// bwd, comm exposed, comm overlapped inside bwd, opt) and all-reduce busbw (GB/s). Ends with a newline.
std::string format_table(const RunResult& r);

}  // namespace mg
