#include "report/report_input.h"

#include <algorithm>
#include <filesystem>
#include <map>

#include "core/error.h"
#include "result/comm_result_json.h"
#include "result/compare_result_json.h"
#include "result/result_json.h"

namespace mg {

using nlohmann::json;

namespace {

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
  c.result = compare_result_from_json(j, path);
  for (const CompareResult::Pair& p : c.result.pairs) c.pairs.push_back(compare_pair_view(p));
  return c;
}

// A usable interval of positive values.
bool positive_interval(double lo, double hi) { return hi >= lo && lo > 0; }

}  // namespace

ComparePair compare_pair_view(const CompareResult::Pair& p) {
  ComparePair out;
  out.label = p.key.label;
  out.verdict = p.verdict;
  out.ratio = p.ratio;
  out.base_ips = p.base.median_images_per_sec;
  out.new_ips = p.next.median_images_per_sec;
  out.tokens_per_sample = p.base.tokens_per_sample;
  if (positive_interval(p.ratio_ci95_lo, p.ratio_ci95_hi)) {
    out.lo = p.ratio_ci95_lo;
    out.hi = p.ratio_ci95_hi;
  } else if (positive_interval(p.base.images_per_sec_ci95_lo, p.base.images_per_sec_ci95_hi) &&
             positive_interval(p.next.images_per_sec_ci95_lo, p.next.images_per_sec_ci95_hi)) {
    out.lo = p.next.images_per_sec_ci95_lo / p.base.images_per_sec_ci95_hi;
    out.hi = p.next.images_per_sec_ci95_hi / p.base.images_per_sec_ci95_lo;
    out.interval_from_sides = true;
  }
  out.regression = p.verdict == "regression" || p.efficiency_drop;
  std::string notes;
  for (const std::string& n : p.notes) notes += (notes.empty() ? "" : "; ") + n;
  if (p.efficiency_drop) notes = "scaling efficiency dropped" + std::string(notes.empty() ? "" : "; ") + notes;
  out.notes = notes;
  return out;
}

void add_report_json(ReportInputs& in, const json& j, const std::string& path) {
  if (j.is_object() && j.contains("schema_version") && j.contains("runs")) {
    in.results.push_back({"", path, result_from_json(j, path)});
  } else if (j.is_object() && j.contains("tool") && j["tool"] == kCommTool) {
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
