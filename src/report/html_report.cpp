#include "report/html_report.h"

#include <map>
#include <set>

#include <fmt/format.h>

#include "core/atomic_file.h"
#include "core/build_info.h"
#include "core/error.h"
#include "report/plots.h"
#include "report/svg.h"

namespace mg {

using nlohmann::json;
using svg::escape;

namespace {

const char* kStyle = R"(
body { font-family: system-ui, -apple-system, "Segoe UI", "DejaVu Sans", "Liberation Sans", Arial, sans-serif;
       color: #222; background: #fff; margin: 0 auto; max-width: 980px; padding: 16px 24px 48px; line-height: 1.4; }
h1 { font-size: 24px; margin: 8px 0 4px; }
h2 { font-size: 19px; margin: 32px 0 8px; border-bottom: 1px solid #ccc; padding-bottom: 4px; }
h3 { font-size: 15px; margin: 22px 0 4px; }
p.meta, p.caption { color: #444; font-size: 13px; margin: 2px 0 8px; }
.warn { background: #fff4e5; border-left: 4px solid #E69F00; padding: 6px 10px; font-size: 13px; }
figure { margin: 0 0 18px; break-inside: avoid; page-break-inside: avoid; }
svg.plot { display: block; max-width: 100%; height: auto; font-family: inherit; }
svg.plot text { fill: #222; }
svg.plot text.tick { fill: #444; }
svg.plot text.regression { fill: #a33b00; font-weight: bold; }
svg.plot .plot-area { shape-rendering: crispEdges; }
table { border-collapse: collapse; font-size: 12px; margin: 6px 0 4px; font-variant-numeric: tabular-nums; }
th, td { border: 1px solid #d0d0d0; padding: 2px 7px; text-align: right; }
th { background: #f2f2f2; font-weight: 600; }
td:first-child, th:first-child { text-align: left; }
tr.hl td { background: #fbe3d6; font-weight: bold; }
dl.env { display: grid; grid-template-columns: max-content 1fr; gap: 2px 14px; font-size: 13px; margin: 4px 0 12px; }
dl.env dt { color: #555; }
dl.env dd { margin: 0; overflow-wrap: anywhere; }
code { font-family: "DejaVu Sans Mono", "Liberation Mono", monospace; font-size: 12px; }
@media print { body { max-width: none; } h2 { break-after: avoid; } }
)";

std::string table_html(const plot::Table& t) {
  if (t.rows.empty()) return "";
  std::string h = "<table>\n<tr>";
  for (const auto& c : t.headers) h += "<th>" + escape(c) + "</th>";
  h += "</tr>\n";
  for (size_t i = 0; i < t.rows.size(); ++i) {
    h += i < t.highlight.size() && t.highlight[i] ? "<tr class=\"hl\">" : "<tr>";
    for (const auto& c : t.rows[i]) h += "<td>" + escape(c) + "</td>";
    h += "</tr>\n";
  }
  return h + "</table>\n";
}

std::string figure_html(const plot::Figure& f) {
  return "<figure>\n<h3>" + escape(f.title) + "</h3>\n<p class=\"caption\">" + escape(f.caption) + "</p>\n" + f.svg +
         table_html(f.table) + "</figure>\n";
}

std::string figures_html(const std::vector<plot::Figure>& fs) {
  std::string h;
  for (const auto& f : fs) h += figure_html(f);
  return h;
}

std::string js(const json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return "";
  return it->is_string() ? it->get<std::string>() : it->dump();
}

// The topology block in one line: CPU packages/cores, NUMA nodes, GPUs and their link matrix, NICs that are up.
std::string topology_summary(const json& t) {
  if (!t.is_object() || t.empty()) return "";
  std::vector<std::string> parts;
  if (t.contains("cpu") && t["cpu"].is_object()) {
    const json& c = t["cpu"];
    parts.push_back(fmt::format("{} package(s), {} cores, {} threads", js(c, "packages"), js(c, "cores"), js(c, "pus")));
  }
  if (t.contains("numa") && t["numa"].is_array()) parts.push_back(fmt::format("{} NUMA node(s)", t["numa"].size()));
  if (t.contains("gpus") && t["gpus"].is_array()) {
    std::string g = fmt::format("{} GPU(s)", t["gpus"].size());
    if (t.contains("gpu_matrix") && t["gpu_matrix"].is_array() && !t["gpu_matrix"].empty())
      g += fmt::format(", link matrix {}×{}", t["gpu_matrix"].size(), t["gpu_matrix"].size());
    parts.push_back(g);
  }
  if (t.contains("network") && t["network"].is_object() && t["network"].contains("interfaces")) {
    std::string nics;
    for (const json& i : t["network"]["interfaces"]) {
      if (!i.is_object() || !i.value("up", false) || i.value("loopback", false)) continue;
      const double mbps = i.value("speed_mbps", -1.0);
      nics += (nics.empty() ? "" : ", ") + js(i, "name") + (mbps > 0 ? fmt::format(" {:.0f} Mb/s", mbps) : "");
    }
    if (!nics.empty()) parts.push_back("NICs up: " + nics);
    const json& ib = t["network"].value("infiniband", json::array());
    if (ib.is_array() && !ib.empty()) parts.push_back(fmt::format("{} InfiniBand port(s)", ib.size()));
  }
  std::string s;
  for (const auto& p : parts) s += (s.empty() ? "" : " · ") + p;
  return s;
}

std::string map_line(const std::map<std::string, std::string>& m) {
  std::string s;
  for (const auto& [k, v] : m) s += (s.empty() ? "" : ", ") + k + " " + v;
  return s;
}

std::string dl(const std::vector<std::pair<std::string, std::string>>& rows) {
  std::string h = "<dl class=\"env\">\n";
  for (const auto& [k, v] : rows)
    if (!v.empty()) h += "<dt>" + escape(k) + "</dt><dd>" + escape(v) + "</dd>\n";
  return h + "</dl>\n";
}

std::string result_environment(const ResultInput& in) {
  const RunResult& r = in.result;
  const Environment& e = r.env;
  std::map<std::string, int> devs;
  for (const DeviceInfo& d : e.devices) ++devs[d.name];
  std::string devices;
  for (const auto& [n, c] : devs) devices += (devices.empty() ? "" : ", ") + fmt::format("{} × {}", c, n);
  std::map<std::string, std::string> env_vars = e.env_vars;
  const RunConfig& c = r.config;
  return "<h3>" + escape(in.label) + "</h3>\n" +
         dl({{"file", in.path},
             {"kind", r.kind == "prediction" ? "prediction (simulated, not measured)" : "training (measured)"},
             {"mgbench", e.mgbench_version + " (commit " + e.git_commit + ")"},
             {"host", e.host},
             {"CPU", e.cpu},
             {"devices", devices},
             {"libraries", map_line(e.versions)},
             {"launcher", fmt::format("{}, world size {}", e.launcher, e.world_size)},
             {"topology", topology_summary(e.topology)},
             {"workload", fmt::format("{} {} on {}, batch {} per device ({} scaling), {} steps after {} warm-up, "
                                      "repeat {}, runs {}",
                                      c.model, precision_name(c.precision), device_kind_name(c.device), c.batch_size,
                                      kScalingNames.name(c.scaling), c.steps, c.warmup, c.repeat,
                                      c.runs)},
             {"environment variables", map_line(env_vars)},
             {"command line", e.command_line}});
}

std::string comm_environment(const CommInput& in) {
  const CommResult& r = in.result;
  const Environment& e = r.env;
  const std::string devices =
      r.local_devices.empty() ? "" : fmt::format("{} × {} per process", r.local_devices.size(), r.local_devices[0]);
  std::string transport_env;
  for (const auto& [t, vars] : r.transport_env) {
    std::string vs;
    for (const auto& [k, v] : vars) vs += (vs.empty() ? "" : " ") + k + "=" + v;
    transport_env += (transport_env.empty() ? "" : "; ") + t + (vs.empty() ? "" : ": " + vs);
  }
  return "<h3>" + escape(in.label) + "</h3>\n" +
         dl({{"file", in.path},
             {"kind", "collective benchmark (mgbench comm)"},
             {"mgbench", e.mgbench_version + " (commit " + e.git_commit + ")"},
             {"host", e.host},
             {"CPU", e.cpu},
             {"device", r.device},
             {"devices", devices},
             {"ranks", fmt::format("{} ({} process(es), launcher {})", e.world_size, r.processes, e.launcher)},
             {"libraries", map_line(e.versions)},
             {"topology", topology_summary(e.topology)},
             {"transports", transport_env},
             {"environment variables", map_line(e.env_vars)},
             {"command line", e.command_line}});
}

std::string compare_environment(const CompareInput& in) {
  auto join = [](const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
    return s;
  };
  return "<h3>" + escape(in.label) + "</h3>\n" +
         dl({{"file", in.path},
             {"kind", "comparison (mgbench compare)"},
             {"BASE", join(in.result.base_files)},
             {"NEW", join(in.result.new_files)},
             {"threshold", fmt::format("{:.1f} %", 100 * in.result.options.threshold)},
             {"environment warnings", join(in.result.warnings)}});
}

// Results from different machines or builds side by side: say so at the top, naming what differs.
std::string differences(const ReportInputs& in) {
  std::map<std::string, std::set<std::string>> seen;
  for (const auto& r : in.results) {
    seen["host"].insert(r.result.env.host);
    seen["CPU"].insert(r.result.env.cpu);
    seen["mgbench commit"].insert(r.result.env.git_commit);
    std::string devs;
    for (const auto& d : r.result.env.devices) devs += d.name + ";";
    seen["devices"].insert(devs);
  }
  for (const auto& c : in.comms) {
    seen["host"].insert(c.result.env.host);
    seen["mgbench commit"].insert(c.result.env.git_commit);
  }
  std::string s;
  for (const auto& [k, v] : seen)
    if (v.size() > 1) s += (s.empty() ? "" : ", ") + fmt::format("{} ({} different)", k, v.size());
  if (s.empty()) return "";
  return "<p class=\"warn\">These inputs come from different environments: " + escape(s) +
         ". Each file's environment is listed at the end; series are labelled by file.</p>\n";
}

}  // namespace

std::string render_html_report(const ReportInputs& in) {
  std::string inputs;
  for (const auto& r : in.results) inputs += (inputs.empty() ? "" : ", ") + r.label;
  for (const auto& c : in.comms) inputs += (inputs.empty() ? "" : ", ") + c.label;
  for (const auto& c : in.compares) inputs += (inputs.empty() ? "" : ", ") + c.label;
  std::string h =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<title>mgbench report: " + escape(inputs) + "</title>\n<style>" + kStyle + "</style>\n</head>\n<body>\n";
  h += "<h1>mgbench report</h1>\n<p class=\"meta\">" +
       escape(fmt::format("Made by mgbench {} (commit {}) from: {}.", mgbench_version(), mgbench_git_commit(), inputs)) +
       "</p>\n";
  bool predicted = false;
  for (const auto& r : in.results) predicted = predicted || r.result.kind == "prediction";
  if (predicted)
    h += "<p class=\"warn\">Series marked “predicted” are simulated by <code>mgbench predict</code>, not measured.</p>\n";
  h += differences(in);

  if (!in.results.empty()) {
    h += "<h2>Training throughput and scaling</h2>\n";
    h += figures_html(plot::scaling_figures(in.results));
    h += figures_html(plot::breakdown_figures(in.results));
    h += figures_html(plot::sample_figures(in.results));
  }
  if (!in.comms.empty()) h += "<h2>Collective communication</h2>\n" + figures_html(plot::comm_figures(in.comms));
  if (!in.compares.empty()) {
    h += "<h2>Comparison</h2>\n";
    for (const auto& c : in.compares)
      for (const auto& w : c.result.warnings) h += "<p class=\"warn\">" + escape(c.label + ": " + w) + "</p>\n";
    h += figures_html(plot::compare_figures(in.compares));
  }
  h += "<h2>Environment</h2>\n";
  for (const auto& r : in.results) h += result_environment(r);
  for (const auto& c : in.comms) h += comm_environment(c);
  for (const auto& c : in.compares) h += compare_environment(c);
  return h + "</body>\n</html>\n";
}

void write_html_report(const std::string& path, const ReportInputs& in) {
  if (in.empty()) throw UsageError("report: nothing to show (no results, comm or compare output)");
  write_file_atomic(path, render_html_report(in));
}

}  // namespace mg
