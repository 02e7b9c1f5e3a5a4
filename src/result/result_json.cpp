#include "result/result_json.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "core/atomic_file.h"
#include "core/error.h"
#include "result/breakdown.h"
#include "result/json_reader.h"
#include "result/loaded_libraries_json.h"

namespace mg {

using nlohmann::json;

namespace {

json step_stats_json(const StepStats& s) {
  return {{"median_s", s.median_s}, {"mean_s", s.mean_s},       {"stddev_s", s.stddev_s},
          {"p5_s", s.p5_s},         {"p95_s", s.p95_s},         {"ci95_s", s.ci95_s},
          {"ci95_lo_s", s.ci95_lo_s}, {"ci95_hi_s", s.ci95_hi_s}, {"jitter_s", s.jitter_s},
          {"samples", s.samples},   {"runs", s.process_runs},           {"ci95_method", s.ci95_method}};
}

json breakdown_json(const StepBreakdown& b) {
  const StepBreakdown s = breakdown_shares(b);
  json out = json::object(), shares = json::object();
  for (const BreakdownPart& p : kBreakdownParts) {
    out[std::string(p.key) + "_s"] = b.*p.field;
    shares[p.key] = s.*p.field;
  }
  out["total_s"] = b.total;
  out["shares"] = shares;
  return out;
}

json allreduce_json(const AllreduceStats& a) {
  json per_bucket = json::array();
  for (const BucketTiming& b : a.per_bucket)
    per_bucket.push_back({{"bytes", b.bytes}, {"time_s", b.time_s}, {"ready_s", b.ready_s}});
  return {{"library", a.library},       {"dtype", a.dtype},           {"bytes_per_step", a.bytes_per_step},
          {"buckets", a.buckets},       {"time_s", a.time_s},         {"algbw_GBps", a.algbw_GBps},
          {"busbw_GBps", a.busbw_GBps}, {"per_bucket", per_bucket}};
}

// Raw samples column by column: compact, and what plotting tools and the U-test want.
json samples_json(const std::vector<StepBreakdown>& v) {
  json out = json::object();
  auto column = [&](double StepBreakdown::*field) {
    json c = json::array();
    for (const StepBreakdown& s : v) c.push_back(s.*field);
    return c;
  };
  out["total_s"] = column(&StepBreakdown::total);
  for (const BreakdownPart& p : kBreakdownParts) out[std::string(p.key) + "_s"] = column(p.field);
  return out;
}

// Hex strings: a 64-bit checksum does not survive JSON readers that hold numbers as doubles (JavaScript).
json checksums_json(const std::vector<uint64_t>& v) {
  json a = json::array();
  for (uint64_t c : v) a.push_back(fmt::format("{:016x}", c));
  return a;
}

bool replicas_identical(const std::vector<uint64_t>& v) {
  return std::all_of(v.begin(), v.end(), [&](uint64_t c) { return c == v.front(); });
}

json gradient_layers_json(const std::vector<GradientLayer>& v) {
  json a = json::array();
  for (const GradientLayer& g : v) a.push_back({{"layer", g.layer}, {"elements", g.elements}, {"ready_s", g.ready_s}});
  return a;
}

json wire_casts_json(const std::vector<WireCastCost>& v) {
  json a = json::array();
  for (const WireCastCost& c : v)
    a.push_back({{"dtype", c.dtype},
                 {"to_wire_s_per_element", c.to_wire_s_per_element},
                 {"from_wire_s_per_element", c.from_wire_s_per_element},
                 {"elements", c.elements},
                 {"repetitions", c.repetitions}});
  return a;
}

json layer_times_json(const std::vector<LayerTime>& v) {
  json a = json::array();
  for (const LayerTime& t : v)
    a.push_back({{"layer", t.layer}, {"name", t.name}, {"kind", t.kind}, {"forward_s", t.forward_s},
                 {"backward_s", t.backward_s}});
  return a;
}

json run_json(const DeviceCountResult& r) {
  return {{"devices", r.devices},
          {"transport", r.transport},
          {"transport_env", r.transport_env},
          {"batch_per_device", r.batch_per_device},
          {"global_batch", r.global_batch},
          {"threads_per_replica", r.threads_per_replica},
          {"images_per_sec", r.images_per_sec},
          {"images_per_sec_per_device", r.images_per_sec_per_device},
          {"tokens_per_sample", r.tokens_per_sample},
          {"tokens_per_sec", r.tokens_per_sec},
          {"model_flops_per_sample", r.model_flops_per_sample},
          {"peak_flops_per_device", r.peak_flops_per_device},
          {"peak_flops_source", r.peak_flops_source},
          {"mfu", r.mfu},
          {"scaling_efficiency", r.scaling_efficiency},
          {"speedup", r.speedup},
          {"wall_s", r.wall_s},
          {"timed_wall_s", r.timed_wall_s},
          {"images_per_sec_from_steps", r.images_per_sec_from_steps},
          {"step_time", step_stats_json(r.step_time)},
          {"breakdown", breakdown_json(r.breakdown)},
          {"allreduce", allreduce_json(r.allreduce)},
          {"gradient_layers", gradient_layers_json(r.gradient_layers)},
          {"wire_casts", wire_casts_json(r.wire_casts)},
          {"layer_times", layer_times_json(r.layer_times)},
          {"peak_memory_bytes", r.peak_memory_bytes},
          {"conv_algorithms", r.conv_algorithms},
          {"device_memory_in_use_bytes", r.device_memory_in_use_bytes},
          // A diverged or loss-less (input-only) run has no finite loss; JSON has no NaN, so it is null.
          {"final_loss", std::isfinite(r.final_loss) ? json(r.final_loss) : json(nullptr)},
          {"overflow_steps", r.overflow_steps},
          {"skipped_images", r.skipped_images},
          {"input_only", r.input_only},
          {"replica_checksums", checksums_json(r.replica_checksums)},
          {"replicas_identical", replicas_identical(r.replica_checksums)},
          {"samples", samples_json(r.samples)},
          {"run_samples", r.run_samples}};
}

json environment_json(const Environment& e) {
  json devices = json::array();
  for (const DeviceInfo& d : e.devices)
    devices.push_back({{"name", d.name}, {"memory_bytes", d.memory_bytes}, {"pci_bus_id", d.pci_bus_id},
                       {"ordinal", d.ordinal}});
  return {{"host", e.host},
          {"cpu", e.cpu},
          {"devices", devices},
          {"versions", e.versions},
          {"libraries", loaded_libraries_json(e.libraries)},
          {"env_vars", e.env_vars},
          {"topology", e.topology.is_null() ? json::object() : e.topology},
          {"launcher", e.launcher},
          {"world_size", e.world_size}};
}

Environment environment_from_json(const JsonReader& rd, const json& j) {
  const std::string w = "environment";
  Environment e;
  e.host = rd.get<std::string>(j, w, "host");
  e.cpu = rd.get<std::string>(j, w, "cpu");
  const json& devices = rd.array(j, w, "devices");
  for (size_t i = 0; i < devices.size(); ++i) {
    const std::string dw = w + ".devices[" + std::to_string(i) + "]";
    DeviceInfo d;
    d.name = rd.get<std::string>(devices[i], dw, "name");
    d.memory_bytes = rd.get<size_t>(devices[i], dw, "memory_bytes");
    d.pci_bus_id = rd.get<std::string>(devices[i], dw, "pci_bus_id");
    d.ordinal = rd.get<int>(devices[i], dw, "ordinal");
    e.devices.push_back(d);
  }
  e.versions = rd.get<std::map<std::string, std::string>>(j, w, "versions");
  if (j.contains("libraries")) {  // absent in files written before loaded libraries were recorded
    e.libraries = loaded_libraries_from_json(rd, j["libraries"], w + ".libraries");
  }
  e.env_vars = rd.get<std::map<std::string, std::string>>(j, w, "env_vars");
  e.topology = rd.at(j, w, "topology");
  e.launcher = rd.get<std::string>(j, w, "launcher");
  e.world_size = rd.get<int>(j, w, "world_size");
  return e;
}

StepStats step_stats_from_json(const JsonReader& rd, const json& j, const std::string& w) {
  StepStats s;
  s.median_s = rd.get<double>(j, w, "median_s");
  s.mean_s = rd.get<double>(j, w, "mean_s");
  s.stddev_s = rd.get<double>(j, w, "stddev_s");
  s.p5_s = rd.get<double>(j, w, "p5_s");
  s.p95_s = rd.get<double>(j, w, "p95_s");
  s.ci95_s = rd.get<double>(j, w, "ci95_s");
  s.ci95_lo_s = rd.get<double>(j, w, "ci95_lo_s");
  s.ci95_hi_s = rd.get<double>(j, w, "ci95_hi_s");
  s.jitter_s = rd.get<double>(j, w, "jitter_s");
  s.samples = rd.get<int64_t>(j, w, "samples");
  s.process_runs = rd.get_or<int64_t>(j, w, "runs", 1);
  s.ci95_method = rd.get_or<std::string>(j, w, "ci95_method", "order-statistic");
  return s;
}

StepBreakdown breakdown_from_json(const JsonReader& rd, const json& j, const std::string& w) {
  StepBreakdown b;
  for (const BreakdownPart& p : kBreakdownParts) b.*p.field = rd.get<double>(j, w, std::string(p.key) + "_s");
  b.total = rd.get<double>(j, w, "total_s");
  return b;
}

std::vector<StepBreakdown> samples_from_json(const JsonReader& rd, const json& j, const std::string& w) {
  const auto total = rd.get<std::vector<double>>(j, w, "total_s");
  std::vector<StepBreakdown> out(total.size());
  for (size_t i = 0; i < total.size(); ++i) out[i].total = total[i];
  for (const BreakdownPart& p : kBreakdownParts) {
    const std::string key = std::string(p.key) + "_s";
    const auto column = rd.get<std::vector<double>>(j, w, key);
    if (column.size() != total.size())
      rd.fail(w, "sample columns differ in length (" + std::to_string(column.size()) + " in " + key + " vs " +
                     std::to_string(total.size()) + " in total_s)");
    for (size_t i = 0; i < total.size(); ++i) out[i].*p.field = column[i];
  }
  return out;
}

DeviceCountResult run_from_json(const JsonReader& rd, const json& j, const std::string& w) {
  DeviceCountResult r;
  r.devices = rd.get<int>(j, w, "devices");
  r.transport = rd.get<std::string>(j, w, "transport");
  r.transport_env = rd.get<std::map<std::string, std::string>>(j, w, "transport_env");
  r.batch_per_device = rd.get<int64_t>(j, w, "batch_per_device");
  r.global_batch = rd.get<int64_t>(j, w, "global_batch");
  r.threads_per_replica = rd.get_or<int>(j, w, "threads_per_replica", 0);
  r.images_per_sec = rd.get<double>(j, w, "images_per_sec");
  r.images_per_sec_per_device = rd.get<double>(j, w, "images_per_sec_per_device");
  r.scaling_efficiency = rd.get<double>(j, w, "scaling_efficiency");
  r.speedup = rd.get<double>(j, w, "speedup");
  r.wall_s = rd.get<double>(j, w, "wall_s");
  // Added later: absent in older files.
  if (j.contains("timed_wall_s")) r.timed_wall_s = rd.get<double>(j, w, "timed_wall_s");
  if (j.contains("images_per_sec_from_steps"))
    r.images_per_sec_from_steps = rd.get<double>(j, w, "images_per_sec_from_steps");
  r.tokens_per_sample = rd.get_or<int64_t>(j, w, "tokens_per_sample", 0);
  r.tokens_per_sec = rd.get_or<double>(j, w, "tokens_per_sec", 0.0);
  r.model_flops_per_sample = rd.get_or<double>(j, w, "model_flops_per_sample", 0.0);
  r.peak_flops_per_device = rd.get_or<double>(j, w, "peak_flops_per_device", 0.0);
  r.peak_flops_source = rd.get_or<std::string>(j, w, "peak_flops_source", "");
  r.mfu = rd.get_or<double>(j, w, "mfu", 0.0);
  r.step_time = step_stats_from_json(rd, rd.at(j, w, "step_time"), w + ".step_time");
  r.breakdown = breakdown_from_json(rd, rd.at(j, w, "breakdown"), w + ".breakdown");
  const std::string aw = w + ".allreduce";
  const json& a = rd.at(j, w, "allreduce");
  r.allreduce.library = rd.get<std::string>(a, aw, "library");
  r.allreduce.dtype = rd.get<std::string>(a, aw, "dtype");
  r.allreduce.bytes_per_step = rd.get<size_t>(a, aw, "bytes_per_step");
  r.allreduce.buckets = rd.get<int>(a, aw, "buckets");
  r.allreduce.time_s = rd.get<double>(a, aw, "time_s");
  r.allreduce.algbw_GBps = rd.get<double>(a, aw, "algbw_GBps");
  r.allreduce.busbw_GBps = rd.get<double>(a, aw, "busbw_GBps");
  const json& pb = rd.array(a, aw, "per_bucket");
  for (size_t i = 0; i < pb.size(); ++i) {
    const std::string bw = aw + ".per_bucket[" + std::to_string(i) + "]";
    r.allreduce.per_bucket.push_back({rd.get<size_t>(pb[i], bw, "bytes"), rd.get<double>(pb[i], bw, "time_s"),
                                      rd.get_or<double>(pb[i], bw, "ready_s", 0.0)});
  }
  if (j.contains("gradient_layers")) {
    const json& gl = rd.array(j, w, "gradient_layers");
    for (size_t i = 0; i < gl.size(); ++i) {
      const std::string gw = w + ".gradient_layers[" + std::to_string(i) + "]";
      r.gradient_layers.push_back({rd.get<int>(gl[i], gw, "layer"), rd.get<size_t>(gl[i], gw, "elements"),
                                   rd.get<double>(gl[i], gw, "ready_s")});
    }
  }
  if (j.contains("layer_times")) {  // absent in files written before --layer-times
    const json& lt = rd.array(j, w, "layer_times");
    for (size_t i = 0; i < lt.size(); ++i) {
      const std::string lw = w + ".layer_times[" + std::to_string(i) + "]";
      r.layer_times.push_back({rd.get<int>(lt[i], lw, "layer"), rd.get<std::string>(lt[i], lw, "name"),
                               rd.get<std::string>(lt[i], lw, "kind"), rd.get<double>(lt[i], lw, "forward_s"),
                               rd.get<double>(lt[i], lw, "backward_s")});
    }
  }
  if (j.contains("wire_casts")) {  // absent in files written before the casts were profiled
    const json& wc = rd.array(j, w, "wire_casts");
    for (size_t i = 0; i < wc.size(); ++i) {
      const std::string cw = w + ".wire_casts[" + std::to_string(i) + "]";
      r.wire_casts.push_back({rd.get<std::string>(wc[i], cw, "dtype"),
                              rd.get<double>(wc[i], cw, "to_wire_s_per_element"),
                              rd.get<double>(wc[i], cw, "from_wire_s_per_element"),
                              rd.get<size_t>(wc[i], cw, "elements"), rd.get<int>(wc[i], cw, "repetitions")});
    }
  }
  r.peak_memory_bytes = rd.get<size_t>(j, w, "peak_memory_bytes");
  if (j.contains("conv_algorithms")) r.conv_algorithms = rd.get<std::map<std::string, int>>(j, w, "conv_algorithms");
  if (j.contains("device_memory_in_use_bytes"))
    r.device_memory_in_use_bytes = rd.get<size_t>(j, w, "device_memory_in_use_bytes");
  r.final_loss = rd.at(j, w, "final_loss").is_null() ? std::nan("") : rd.get<double>(j, w, "final_loss");
  r.overflow_steps = rd.get<int64_t>(j, w, "overflow_steps");
  r.skipped_images = rd.get<int64_t>(j, w, "skipped_images");
  r.input_only = rd.get<bool>(j, w, "input_only");
  const auto sums = rd.get<std::vector<std::string>>(j, w, "replica_checksums");
  for (size_t i = 0; i < sums.size(); ++i) {
    size_t used = 0;
    uint64_t v = 0;
    try {
      v = std::stoull(sums[i], &used, 16);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != sums[i].size())
      rd.fail(w + ".replica_checksums[" + std::to_string(i) + "]", "not a hex checksum: '" + sums[i] + "'");
    r.replica_checksums.push_back(v);
  }
  r.samples = samples_from_json(rd, rd.at(j, w, "samples"), w + ".samples");
  r.run_samples = rd.get_or<std::vector<int64_t>>(j, w, "run_samples", {});
  int64_t covered = 0;
  for (int64_t c : r.run_samples) {
    if (c <= 0) rd.fail(w + ".run_samples", "counts must be positive");
    covered += c;
  }
  if (!r.run_samples.empty() && covered != static_cast<int64_t>(r.samples.size()))
    rd.fail(w + ".run_samples", "add up to " + std::to_string(covered) + ", but there are " +
                                    std::to_string(r.samples.size()) + " samples");
  return r;
}

}  // namespace

json to_json(const CheckReport& c) {
  if (!c.ran) return nullptr;
  json rows = json::array();
  for (const CheckRow& row : c.rows) {
    rows.push_back({{"group", row.group},
                    {"name", row.name},
                    {"precision", row.precision},
                    {"metric", row.metric},
                    // An error that could not be measured (a case that failed to run) is null.
                    {"error", std::isfinite(row.error) ? json(row.error) : json(nullptr)},
                    {"tolerance", row.tolerance},
                    {"passed", row.passed},
                    {"detail", row.detail}});
    // Written only where true, so a check without advisory rows reads as files before it existed.
    if (row.advisory) rows.back()["advisory"] = true;
  }
  return {{"passed", c.passed()}, {"device", c.device}, {"reference", c.reference}, {"seconds", c.seconds},
          {"rows", rows}};
}

json to_json(const RunResult& r) {
  json runs = json::array();
  for (const DeviceCountResult& d : r.runs) runs.push_back(run_json(d));
  json spans = json::array();
  for (const ProcessSpan& p : r.process_runs)
    spans.push_back({{"started_unix_s", p.started_unix_s}, {"finished_unix_s", p.finished_unix_s}});
  return {{"schema_version", kResultSchemaVersion},
          {"kind", r.kind},
          {"mgbench", {{"version", r.env.mgbench_version}, {"commit", r.env.git_commit}}},
          {"command_line", r.env.command_line.empty() ? r.config.command_line : r.env.command_line},
          {"environment", environment_json(r.env)},
          {"config", to_json(r.config)},
          {"check", to_json(r.check)},
          {"process_runs", spans},
          {"runs", runs}};
}

RunResult result_from_json(const json& j, const std::string& source) {
  const JsonReader rd(source);
  if (!j.is_object()) rd.fail("(top level)", "expected an object, found " + std::string(j.type_name()));
  // Other tools' files (`mgbench comm --json`) are named, not reported as a result with a field missing.
  if (!j.contains("schema_version") && j.contains("tool") && j["tool"].is_string())
    throw UsageError(source + ": a `" + j["tool"].get<std::string>() + "` file, not a training or prediction result");
  const json& version = rd.at(j, "(top level)", "schema_version");
  if (!version.is_number_integer() || version.get<int64_t>() != kResultSchemaVersion)
    throw UsageError(source + ": schema_version " + version.dump() + ", this mgbench reads " +
                     std::to_string(kResultSchemaVersion));
  RunResult r;
  // Files written before "kind" existed are training results.
  if (j.contains("kind")) r.kind = rd.get<std::string>(j, "(top level)", "kind");
  if (r.kind != "training" && r.kind != "prediction")
    rd.fail("(top level)", "kind \"" + r.kind + "\" is not a result kind (training | prediction)");
  const json& mg = rd.at(j, "(top level)", "mgbench");
  r.env = environment_from_json(rd, rd.at(j, "(top level)", "environment"));
  r.env.mgbench_version = rd.get<std::string>(mg, "mgbench", "version");
  r.env.git_commit = rd.get<std::string>(mg, "mgbench", "commit");
  r.env.command_line = rd.get<std::string>(j, "(top level)", "command_line");
  try {
    json config = rd.at(j, "(top level)", "config");
    // A prediction's links are its entries' transports (and environment.topology.prediction); files written
    // before transports were parsed listed the link labels in config.transports too, which name no transport.
    if (r.kind == "prediction" && config.is_object()) config["transports"] = json::array();
    r.config = config_from_json(config, "config");
  } catch (const UsageError& e) {
    rd.fail(e.what());
  }
  // Added later: absent in older files, null when the run skipped it.
  if (j.contains("check") && !j["check"].is_null()) {
    const json& c = j["check"];
    r.check.ran = true;
    r.check.device = rd.get<std::string>(c, "check", "device");
    r.check.reference = rd.get<std::string>(c, "check", "reference");
    r.check.seconds = rd.get<double>(c, "check", "seconds");
    const json& rows = rd.array(c, "check", "rows");
    for (size_t i = 0; i < rows.size(); ++i) {
      const std::string w = "check.rows[" + std::to_string(i) + "]";
      CheckRow row;
      row.group = rd.get<std::string>(rows[i], w, "group");
      row.name = rd.get<std::string>(rows[i], w, "name");
      row.precision = rd.get<std::string>(rows[i], w, "precision");
      row.metric = rd.get<std::string>(rows[i], w, "metric");
      row.error = rd.at(rows[i], w, "error").is_null() ? INFINITY : rd.get<double>(rows[i], w, "error");
      row.tolerance = rd.get<double>(rows[i], w, "tolerance");
      row.passed = rd.get<bool>(rows[i], w, "passed");
      row.detail = rd.get<std::string>(rows[i], w, "detail");
      row.advisory = rd.get_or<bool>(rows[i], w, "advisory", false);
      r.check.rows.push_back(std::move(row));
    }
  }
  if (j.contains("process_runs")) {  // absent in files written before it was recorded
    const json& spans = rd.array(j, "(top level)", "process_runs");
    for (size_t i = 0; i < spans.size(); ++i) {
      const std::string w = "process_runs[" + std::to_string(i) + "]";
      ProcessSpan p{rd.get<double>(spans[i], w, "started_unix_s"), rd.get<double>(spans[i], w, "finished_unix_s")};
      if (!(p.started_unix_s > 0 && p.finished_unix_s >= p.started_unix_s))
        rd.fail(w, "needs 0 < started_unix_s <= finished_unix_s");
      r.process_runs.push_back(p);
    }
  }
  const json& runs = rd.array(j, "(top level)", "runs");
  for (size_t i = 0; i < runs.size(); ++i)
    r.runs.push_back(run_from_json(rd, runs[i], "runs[" + std::to_string(i) + "]"));
  return r;
}

json read_json_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError("cannot read " + path + ": no such file or not readable");
  std::stringstream ss;
  ss << in.rdbuf();
  try {
    return json::parse(ss.str());
  } catch (const json::exception& e) {
    // A syntax error (parse_error) or a number a double cannot hold (out_of_range 406). nlohmann's message starts
    // with "[json.exception.parse_error.101] parse error at line 1, ...".
    std::string what = e.what();
    const size_t pos = what.find("] ");
    throw UsageError(path + ": not valid JSON: " + (pos == std::string::npos ? what : what.substr(pos + 2)));
  }
}

RunResult read_result_file(const std::string& path) { return result_from_json(read_json_file(path), path); }

void write_json_atomic(const std::string& path, const json& j) { write_file_atomic(path, j.dump(2) + "\n"); }

}  // namespace mg
