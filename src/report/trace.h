// --trace: the timed steps of one device count as a Chrome/Perfetto trace (the "traceEvents" JSON format), one
// process per replica and one thread per stream, so overlap of communication with backward is visible.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "result/run_result.h"

namespace mg {

// "X" (complete) events with ts/dur in microseconds; pid = replica, tid = stream (compute 0, copy 1, comm 2,
// any other name after those); "M" metadata events name the processes "replica <r>" and the threads after
// their stream.
nlohmann::json trace_json(const DeviceCountResult& r);

// Writes trace_json(r) atomically (UsageError naming an unwritable path).
void write_trace(const std::string& path, const DeviceCountResult& r);

}  // namespace mg
