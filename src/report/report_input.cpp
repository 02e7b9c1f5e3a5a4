#include "report/report_input.h"

#include <algorithm>
#include <filesystem>
#include <map>

#include "core/error.h"
#include "result/comm_result_json.h"
#include "result/result_json.h"

namespace mg {

using nlohmann::json;

namespace {

double number(const json& j, const char* key, double fallback = 0) {
  const auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : fallback;
}

std::string text(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// A field of another type reads as false, as number() and text() fall back: json::value would throw type_error.
bool flag(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_boolean() && it->get<bool>();
}

// A member that is not an object reads as an empty one (json::value on a non-object throws type_error).
json object(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_object() ? *it : json::object();
}

std::vector<std::string> strings(const json& j, const char* key) {
  std::vector<std::string> out;
  const auto it = j.find(key);
  if (it == j.end() || !it->is_array()) return out;
  for (const json& v : *it)
    if (v.is_string()) out.push_back(v.get<std::string>());
  return out;
}

bool interval(const json& v, double& lo, double& hi) {
  if (v.is_array() && v.size() == 2 && v[0].is_number() && v[1].is_number()) {
    lo = v[0].get<double>();
    hi = v[1].get<double>();
    return hi >= lo && lo > 0;
  }
  return false;
}

CommInput comm_from_json(const json& j, const std::string& path) {
  CommInput c;
  c.path = path;
  c.result = comm_result_from_json(j, path);
  if (c.result.rows.empty()) throw UsageError(path + ": mgbench comm output with no results");
  return c;
}

CompareInput compare_from_json(const json& j, const std::string& path) {
  CompareInput c;
  c.path = path;
  const auto pairs = j.find("pairs");
  if (pairs == j.end() || !pairs->is_array())
    throw UsageError(path + ": mgbench compare output without a \"pairs\" array");
  for (const json& p : *pairs) {
    if (!p.is_object()) throw UsageError(path + ": pairs: an entry is not an object");
    c.pairs.push_back(compare_pair_from_json(p));
  }
  const json opts = j.value("options", json::object());
  c.threshold = number(opts, "threshold");
  c.base_files = strings(j, "base_files");
  c.new_files = strings(j, "new_files");
  c.warnings = strings(j, "warnings");
  c.regression = flag(j, "regression");
  return c;
}

}  // namespace

ComparePair compare_pair_from_json(const json& p) {
  ComparePair out;
  out.label = text(object(p, "key"), "label");
  out.verdict = text(p, "verdict");
  const json base = object(p, "base"), next = object(p, "new");
  out.ratio = number(p, "ratio");
  interval(p.value("ratio_ci95", json()), out.lo, out.hi);
  out.base_ips = number(base, "median_images_per_sec");
  out.new_ips = number(next, "median_images_per_sec");
  if (!(out.hi >= out.lo && out.lo > 0)) {
    out.lo = out.hi = 0;
    double blo, bhi, nlo, nhi;
    if (interval(base.value("images_per_sec_ci95", json()), blo, bhi) &&
        interval(next.value("images_per_sec_ci95", json()), nlo, nhi)) {
      out.lo = nlo / bhi;
      out.hi = nhi / blo;
      out.interval_from_sides = true;
    }
  }
  out.regression = out.verdict == "regression" || flag(p, "efficiency_drop");
  std::string notes;
  for (const std::string& n : strings(p, "notes")) notes += (notes.empty() ? "" : "; ") + n;
  if (flag(p, "efficiency_drop")) notes = "scaling efficiency dropped" + std::string(notes.empty() ? "" : "; ") + notes;
  out.notes = notes;
  return out;
}

void add_report_json(ReportInputs& in, const json& j, const std::string& path) {
  if (j.is_object() && j.contains("schema_version") && j.contains("runs")) {
    in.results.push_back({"", path, result_from_json(j, path)});
  } else if (j.is_object() && text(j, "tool") == kCommTool) {
    in.comms.push_back(comm_from_json(j, path));
  } else if (j.is_object() && j.contains("compare_schema_version")) {
    in.compares.push_back(compare_from_json(j, path));
  } else {
    throw UsageError(path + ": not an mgbench result, comm or compare output");
  }
}

namespace {

// A folder stands for the *.json files directly inside it, sorted by name (as `mgbench compare` reads them).
std::vector<std::string> expand_folders(const std::vector<std::string>& paths) {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  for (const std::string& p : paths) {
    std::error_code ec;
    if (!fs::is_directory(p, ec)) {
      out.push_back(p);
      continue;
    }
    std::vector<std::string> files;
    for (const auto& e : fs::directory_iterator(p, ec))
      if (e.is_regular_file() && e.path().extension() == ".json") files.push_back(e.path().string());
    if (files.empty()) throw UsageError(p + ": a folder without .json files");
    std::sort(files.begin(), files.end());
    out.insert(out.end(), files.begin(), files.end());
  }
  return out;
}

}  // namespace

ReportInputs load_report_inputs(const std::vector<std::string>& given) {
  if (given.empty()) throw UsageError("report: no input files (give result, comm or compare JSON files)");
  const std::vector<std::string> paths = expand_folders(given);
  ReportInputs in;
  for (const std::string& p : paths) add_report_json(in, read_json_file(p), p);
  // Labels: the file name without .json; the parent folder too when two files share a name.
  std::map<std::string, int> seen;
  auto stem = [](const std::string& p) { return std::filesystem::path(p).stem().string(); };
  for (const std::string& p : paths) ++seen[stem(p)];
  auto label = [&](const std::string& p) {
    const std::filesystem::path fp(p);
    if (seen[stem(p)] < 2 || fp.parent_path().empty()) return stem(p);
    return (fp.parent_path().filename() / fp.stem()).string();
  };
  for (auto& r : in.results) r.label = label(r.path);
  for (auto& c : in.comms) c.label = label(c.path);
  for (auto& c : in.compares) c.label = label(c.path);
  return in;
}

}  // namespace mg
