#include "result/comm_result_json.h"

#include "core/error.h"
#include "result/json_reader.h"
#include "result/loaded_libraries_json.h"
#include "result/result_json.h"  // read_json_file

namespace mg {

using nlohmann::json;

namespace {

json comm_environment_json(const CommResult& r) {
  const Environment& e = r.env;
  json env;
  env["host"] = e.host;
  env["cpu"] = e.cpu;
  env["mgbench_version"] = e.mgbench_version;
  env["git_commit"] = e.git_commit;
  env["command_line"] = e.command_line;
  env["device"] = r.device;
  env["launcher"] = e.launcher;
  env["processes"] = r.processes;
  env["replicas_per_process"] = r.replicas_per_process;
  env["ranks"] = e.world_size;
  env["gloo_iface"] = r.gloo_iface;
  env["comm_timeout_s"] = r.comm_timeout_s;
  env["local_devices"] = r.local_devices;
  env["libraries"] = e.versions;  // this file's name for what a training result calls versions
  // Written only when recorded, as files have always been.
  if (!e.libraries.empty()) env["loaded_libraries"] = loaded_libraries_json(e.libraries);
  env["env_vars"] = e.env_vars;
  env["transport_env"] = r.transport_env;
  env["topology"] = e.topology;  // which links the measured bytes crossed
  return env;
}

json comm_row_json(const CommRow& r, bool with_gap) {
  json row = {{"op", r.op},
              {"dtype", r.dtype},
              {"bytes", r.bytes},
              {"count", r.count},
              {"in_place", r.in_place},
              {"time_us", r.time_us},
              {"iters", r.iters},
              {"algbw_GBps", r.algbw_GBps},
              {"busbw_GBps", r.busbw_GBps},
              {"wrong", r.wrong},
              {"transport", r.transport},
              {"library", r.library},
              {"devices", r.devices}};
  if (with_gap) {
    row["gap_time_us"] = r.gap_time_us;
    row["gap_iters"] = r.gap_iters;
  }
  return row;
}

void comm_environment_from_json(const JsonReader& rd, const json& j, CommResult& r) {
  const std::string w = "environment";
  Environment& e = r.env;
  e.host = rd.get<std::string>(j, w, "host");
  e.cpu = rd.get_or<std::string>(j, w, "cpu", "");  // absent in the earliest files
  e.mgbench_version = rd.get<std::string>(j, w, "mgbench_version");
  e.git_commit = rd.get<std::string>(j, w, "git_commit");
  e.command_line = rd.get<std::string>(j, w, "command_line");
  r.device = rd.get<std::string>(j, w, "device");
  e.launcher = rd.get<std::string>(j, w, "launcher");
  r.processes = rd.get<int>(j, w, "processes");
  r.replicas_per_process = rd.get<int>(j, w, "replicas_per_process");
  e.world_size = rd.get<int>(j, w, "ranks");
  r.gloo_iface = rd.get<std::string>(j, w, "gloo_iface");
  r.comm_timeout_s = rd.get<double>(j, w, "comm_timeout_s");
  r.local_devices = rd.get<std::vector<std::string>>(j, w, "local_devices");
  e.versions = rd.get<std::map<std::string, std::string>>(j, w, "libraries");
  if (j.contains("loaded_libraries"))
    e.libraries = loaded_libraries_from_json(rd, j["loaded_libraries"], w + ".loaded_libraries");
  e.env_vars = rd.get_or<std::map<std::string, std::string>>(j, w, "env_vars", {});
  r.transport_env = rd.get<std::map<std::string, std::map<std::string, std::string>>>(j, w, "transport_env");
  e.topology = rd.at(j, w, "topology");
}

CommRow comm_row_from_json(const JsonReader& rd, const json& j, const std::string& w) {
  CommRow r;
  r.op = rd.get<std::string>(j, w, "op");
  r.dtype = rd.get<std::string>(j, w, "dtype");
  r.bytes = rd.get<size_t>(j, w, "bytes");
  r.count = rd.get<size_t>(j, w, "count");
  r.in_place = rd.get<bool>(j, w, "in_place");
  r.time_us = rd.get<double>(j, w, "time_us");
  r.iters = rd.get_or<int>(j, w, "iters", 0);  // absent in files written before --min-time
  r.algbw_GBps = rd.get<double>(j, w, "algbw_GBps");
  r.busbw_GBps = rd.get<double>(j, w, "busbw_GBps");
  r.wrong = rd.get<int64_t>(j, w, "wrong");
  r.transport = rd.get<std::string>(j, w, "transport");
  r.library = rd.get_or<std::string>(j, w, "library", "");  // absent in older files
  r.devices = rd.get<int>(j, w, "devices");
  // Present only in files measured with --gap; predict's link model says which sizes lack them.
  r.gap_time_us = rd.get_or<double>(j, w, "gap_time_us", 0.0);
  r.gap_iters = rd.get_or<int>(j, w, "gap_iters", 0);
  return r;
}

}  // namespace

json to_json(const CommResult& r) {
  json j;
  j["comm_schema_version"] = kCommSchemaVersion;
  j["tool"] = kCommTool;
  j["op"] = r.op;
  j["allreduce"] = r.allreduce;
  j["dtype"] = r.dtype;
  j["warmup"] = r.warmup;
  j["iters"] = r.iters;
  j["min_time_s"] = r.min_time_s;
  j["gap_s"] = r.gap_s;
  j["environment"] = comm_environment_json(r);
  json rows = json::array();
  for (const CommRow& row : r.rows) rows.push_back(comm_row_json(row, r.gap_s > 0));
  j["results"] = rows;
  return j;
}

CommResult comm_result_from_json(const json& j, const std::string& source) {
  const JsonReader rd(source);
  const std::string top = "(top level)";
  if (!j.is_object()) rd.fail(top, "expected an object, found " + std::string(j.type_name()));
  const json& tool = rd.at(j, top, "tool");
  if (!tool.is_string() || tool.get<std::string>() != kCommTool)
    rd.fail(top + ".tool", tool.dump() + " is not \"" + kCommTool + "\": not a mgbench comm result");
  if (j.contains("comm_schema_version")) {
    const json& v = j["comm_schema_version"];
    if (!v.is_number_integer() || v.get<int64_t>() != kCommSchemaVersion)
      throw UsageError(source + ": comm_schema_version " + v.dump() + ", this mgbench reads " +
                       std::to_string(kCommSchemaVersion));
  }
  CommResult r;
  r.op = rd.get<std::string>(j, top, "op");
  // Absent in files written before each option existed.
  r.allreduce = rd.get_or<std::string>(j, top, "allreduce", "ring");
  r.dtype = rd.get<std::string>(j, top, "dtype");
  r.warmup = rd.get<int>(j, top, "warmup");
  r.iters = rd.get<int>(j, top, "iters");
  r.min_time_s = rd.get_or<double>(j, top, "min_time_s", 0.0);
  r.gap_s = rd.get_or<double>(j, top, "gap_s", 0.0);
  comm_environment_from_json(rd, rd.object(j, top, "environment"), r);
  const json& rows = rd.array(j, top, "results");
  for (size_t i = 0; i < rows.size(); ++i)
    r.rows.push_back(comm_row_from_json(rd, rows[i], "results[" + std::to_string(i) + "]"));
  return r;
}

CommResult read_comm_result_file(const std::string& path) { return comm_result_from_json(read_json_file(path), path); }

}  // namespace mg
