#include "report/trace.h"

#include <map>
#include <set>

#include "core/atomic_file.h"

namespace mg {

using nlohmann::json;

json trace_json(const DeviceCountResult& r) {
  // Fixed ids for the three known streams keep the tracks in the same order in every trace.
  std::map<std::string, int> tid = {{"compute", 0}, {"copy", 1}, {"comm", 2}};
  for (const TraceSpan& s : r.trace)
    if (!tid.count(s.stream)) tid.emplace(s.stream, static_cast<int>(tid.size()));

  std::set<int> replicas;
  std::set<std::pair<int, std::string>> tracks;
  json events = json::array();
  for (const TraceSpan& s : r.trace) {
    replicas.insert(s.replica);
    tracks.insert({s.replica, s.stream});
    events.push_back({{"name", s.name},
                      {"cat", s.stream},
                      {"ph", "X"},
                      {"ts", s.start_s * 1e6},
                      {"dur", s.dur_s * 1e6},
                      {"pid", s.replica},
                      {"tid", tid.at(s.stream)}});
  }
  for (int rep : replicas) {
    events.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", rep}, {"tid", 0},
                      {"args", {{"name", "replica " + std::to_string(rep)}}}});
    events.push_back({{"name", "process_sort_index"}, {"ph", "M"}, {"pid", rep}, {"tid", 0},
                      {"args", {{"sort_index", rep}}}});
  }
  for (const auto& [rep, stream] : tracks) {
    events.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", rep}, {"tid", tid.at(stream)},
                      {"args", {{"name", stream}}}});
    events.push_back({{"name", "thread_sort_index"}, {"ph", "M"}, {"pid", rep}, {"tid", tid.at(stream)},
                      {"args", {{"sort_index", tid.at(stream)}}}});
  }
  return {{"traceEvents", events},
          {"displayTimeUnit", "ms"},
          {"otherData",
           {{"devices", r.devices}, {"transport", r.transport}, {"global_batch", r.global_batch}}}};
}

void write_trace(const std::string& path, const DeviceCountResult& r) {
  write_file_atomic(path, trace_json(r).dump() + "\n");
}

}  // namespace mg
