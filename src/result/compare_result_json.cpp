#include "result/compare_result_json.h"

#include "core/error.h"
#include "result/json_reader.h"
#include "result/result_json.h"  // read_json_file

namespace mg {

using nlohmann::json;

namespace {

json nullable(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

json interval_json(double lo, double hi) { return json::array({lo, hi}); }

json key_json(const CompareResult::Key& k) {
  return {{"model", k.model}, {"device", k.device},       {"precision", k.precision}, {"mode", k.mode},
          {"data", k.data},   {"transport", k.transport}, {"devices", k.devices},     {"label", k.label}};
}

json side_json(const CompareResult::Side& s) {
  json j = {{"file", s.file},
            {"samples", s.samples},
            {"runs", s.runs},
            {"run_images_per_sec", s.run_images_per_sec},
            {"threads_per_replica", s.threads_per_replica},
            {"inject_slowdown", s.inject_slowdown},
            {"batch_per_device", s.batch_per_device},
            {"median_images_per_sec", s.median_images_per_sec},
            {"images_per_sec_ci95", interval_json(s.images_per_sec_ci95_lo, s.images_per_sec_ci95_hi)},
            {"step_time_median_s", s.step_time_median_s},
            {"step_time_ci95_s", interval_json(s.step_time_ci95_lo_s, s.step_time_ci95_hi_s)},
            {"scaling_efficiency", s.scaling_efficiency},
            {"comm_exposed_s", s.comm_exposed_s}};
  // Only for language models, so image models' files stay as they were.
  if (s.tokens_per_sample > 0) j["tokens_per_sample"] = s.tokens_per_sample;
  return j;
}

json pair_json(const CompareResult::Pair& p) {
  const CompareResult::Noise& n = p.noise;
  const CompareResult::PerStepDiagnostic& d = p.per_step_diagnostic;
  return {{"key", key_json(p.key)},
          {"base", side_json(p.base)},
          {"new", side_json(p.next)},
          {"ratio", p.ratio},
          {"ratio_ci95", interval_json(p.ratio_ci95_lo, p.ratio_ci95_hi)},
          {"ratio_ci_coverage", p.ratio_ci_coverage},
          {"method", p.method},
          {"significance_judged", p.significance_judged},
          {"significance_note", p.significance_note},
          {"p_value", nullable(p.p_value)},
          {"exact", p.exact},
          {"verdict", p.verdict},
          {"noise",
           {{"known", n.known},
            {"run_spread", n.run_spread},
            {"a_vs_a_band", n.a_vs_a_band},
            {"min_detectable_slowdown", nullable(n.min_detectable_slowdown)},
            {"test_can_reject", n.test_can_reject}}},
          {"per_step_diagnostic", {{"note", d.note}, {"p_value", nullable(d.p_value)}, {"verdict", d.verdict}}},
          {"efficiency_drop", p.efficiency_drop},
          {"comm_exposed_growth", p.comm_exposed_growth},
          {"notes", p.notes}};
}

json one_sided_json(const std::vector<CompareResult::OneSided>& v) {
  json a = json::array();
  for (const CompareResult::OneSided& o : v) a.push_back({{"key", key_json(o.key)}, {"file", o.file}});
  return a;
}

// A number, or null where the writer had none.
std::optional<double> nullable_from(const JsonReader& rd, const json& j, const std::string& w, const char* key) {
  if (rd.at(j, w, key).is_null()) return std::nullopt;
  return rd.get<double>(j, w, key);
}

void interval_from(const JsonReader& rd, const json& j, const std::string& w, const char* key, double& lo,
                   double& hi) {
  const auto v = rd.get<std::vector<double>>(j, w, key);
  if (v.size() != 2) rd.fail(w + "." + key, "expected [lo, hi], found " + j[key].dump());
  lo = v[0];
  hi = v[1];
}

CompareResult::Key key_from(const JsonReader& rd, const json& j, const std::string& w) {
  CompareResult::Key k;
  k.model = rd.get<std::string>(j, w, "model");
  k.device = rd.get<std::string>(j, w, "device");
  k.precision = rd.get<std::string>(j, w, "precision");
  k.mode = rd.get<std::string>(j, w, "mode");
  k.data = rd.get<std::string>(j, w, "data");
  k.transport = rd.get<std::string>(j, w, "transport");
  k.devices = rd.get<int>(j, w, "devices");
  k.label = rd.get<std::string>(j, w, "label");
  return k;
}

CompareResult::Side side_from(const JsonReader& rd, const json& j, const std::string& w) {
  CompareResult::Side s;
  s.file = rd.get<std::string>(j, w, "file");
  s.samples = rd.get<int64_t>(j, w, "samples");
  s.runs = rd.get<int64_t>(j, w, "runs");
  s.run_images_per_sec = rd.get<std::vector<double>>(j, w, "run_images_per_sec");
  s.threads_per_replica = rd.get<int>(j, w, "threads_per_replica");
  s.inject_slowdown = rd.get<double>(j, w, "inject_slowdown");
  s.batch_per_device = rd.get<int64_t>(j, w, "batch_per_device");
  s.tokens_per_sample = rd.get_or<int64_t>(j, w, "tokens_per_sample", 0);  // absent for image models
  s.median_images_per_sec = rd.get<double>(j, w, "median_images_per_sec");
  interval_from(rd, j, w, "images_per_sec_ci95", s.images_per_sec_ci95_lo, s.images_per_sec_ci95_hi);
  s.step_time_median_s = rd.get<double>(j, w, "step_time_median_s");
  interval_from(rd, j, w, "step_time_ci95_s", s.step_time_ci95_lo_s, s.step_time_ci95_hi_s);
  s.scaling_efficiency = rd.get<double>(j, w, "scaling_efficiency");
  s.comm_exposed_s = rd.get<double>(j, w, "comm_exposed_s");
  return s;
}

CompareResult::Pair pair_from(const JsonReader& rd, const json& j, const std::string& w) {
  CompareResult::Pair p;
  p.key = key_from(rd, rd.object(j, w, "key"), w + ".key");
  p.base = side_from(rd, rd.object(j, w, "base"), w + ".base");
  p.next = side_from(rd, rd.object(j, w, "new"), w + ".new");
  p.ratio = rd.get<double>(j, w, "ratio");
  interval_from(rd, j, w, "ratio_ci95", p.ratio_ci95_lo, p.ratio_ci95_hi);
  p.ratio_ci_coverage = rd.get<double>(j, w, "ratio_ci_coverage");
  p.method = rd.get<std::string>(j, w, "method");
  p.significance_judged = rd.get<bool>(j, w, "significance_judged");
  p.significance_note = rd.get<std::string>(j, w, "significance_note");
  p.p_value = nullable_from(rd, j, w, "p_value");
  p.exact = rd.get<bool>(j, w, "exact");
  p.verdict = rd.get<std::string>(j, w, "verdict");
  const std::string wn = w + ".noise";
  const json& n = rd.object(j, w, "noise");
  p.noise.known = rd.get<bool>(n, wn, "known");
  p.noise.run_spread = rd.get<double>(n, wn, "run_spread");
  p.noise.a_vs_a_band = rd.get<double>(n, wn, "a_vs_a_band");
  p.noise.min_detectable_slowdown = nullable_from(rd, n, wn, "min_detectable_slowdown");
  p.noise.test_can_reject = rd.get<bool>(n, wn, "test_can_reject");
  const std::string wd = w + ".per_step_diagnostic";
  const json& d = rd.object(j, w, "per_step_diagnostic");
  p.per_step_diagnostic.note = rd.get<std::string>(d, wd, "note");
  p.per_step_diagnostic.p_value = nullable_from(rd, d, wd, "p_value");
  p.per_step_diagnostic.verdict = rd.get<std::string>(d, wd, "verdict");
  p.efficiency_drop = rd.get<bool>(j, w, "efficiency_drop");
  p.comm_exposed_growth = rd.get<bool>(j, w, "comm_exposed_growth");
  p.notes = rd.get<std::vector<std::string>>(j, w, "notes");
  return p;
}

std::vector<CompareResult::OneSided> one_sided_from(const JsonReader& rd, const json& j, const char* key) {
  std::vector<CompareResult::OneSided> out;
  const json& a = rd.array(j, "(top level)", key);
  for (size_t i = 0; i < a.size(); ++i) {
    const std::string w = std::string(key) + "[" + std::to_string(i) + "]";
    out.push_back({key_from(rd, rd.object(a[i], w, "key"), w + ".key"), rd.get<std::string>(a[i], w, "file")});
  }
  return out;
}

}  // namespace

json to_json(const CompareResult& r) {
  const CompareResult::Options& o = r.options;
  json pairs = json::array();
  for (const CompareResult::Pair& p : r.pairs) pairs.push_back(pair_json(p));
  return {{"compare_schema_version", kCompareSchemaVersion},
          {"options",
           {{"alpha", o.alpha},
            {"threshold", o.threshold},
            {"efficiency_threshold", o.efficiency_threshold},
            {"min_samples", o.min_samples},
            {"strict", o.strict},
            {"across_time", o.across_time},
            {"paired", o.paired}}},
          {"base_files", r.base_files},
          {"new_files", r.new_files},
          {"pairs", pairs},
          {"only_base", one_sided_json(r.only_base)},
          {"only_new", one_sided_json(r.only_new)},
          {"warnings", r.warnings},
          {"noise_warnings", r.noise_warnings},
          {"strict_failure", r.strict_failure},
          {"regression", r.regression},
          {"exit_status", r.exit_status}};
}

CompareResult compare_result_from_json(const json& j, const std::string& source) {
  const JsonReader rd(source);
  const std::string top = "(top level)";
  if (!j.is_object()) rd.fail(top, "expected an object, found " + std::string(j.type_name()));
  const json& v = rd.at(j, top, "compare_schema_version");
  if (!v.is_number_integer() || v.get<int64_t>() != kCompareSchemaVersion)
    throw UsageError(source + ": compare_schema_version " + v.dump() + ", this mgbench reads " +
                     std::to_string(kCompareSchemaVersion));
  CompareResult r;
  const std::string wo = "options";
  const json& o = rd.object(j, top, "options");
  r.options.alpha = rd.get<double>(o, wo, "alpha");
  r.options.threshold = rd.get<double>(o, wo, "threshold");
  r.options.efficiency_threshold = rd.get<double>(o, wo, "efficiency_threshold");
  r.options.min_samples = rd.get<int>(o, wo, "min_samples");
  r.options.strict = rd.get<bool>(o, wo, "strict");
  r.options.across_time = rd.get<bool>(o, wo, "across_time");
  r.options.paired = rd.get<bool>(o, wo, "paired");
  r.base_files = rd.get<std::vector<std::string>>(j, top, "base_files");
  r.new_files = rd.get<std::vector<std::string>>(j, top, "new_files");
  const json& pairs = rd.array(j, top, "pairs");
  for (size_t i = 0; i < pairs.size(); ++i)
    r.pairs.push_back(pair_from(rd, pairs[i], "pairs[" + std::to_string(i) + "]"));
  r.only_base = one_sided_from(rd, j, "only_base");
  r.only_new = one_sided_from(rd, j, "only_new");
  r.warnings = rd.get<std::vector<std::string>>(j, top, "warnings");
  r.noise_warnings = rd.get<std::vector<std::string>>(j, top, "noise_warnings");
  r.strict_failure = rd.get<std::string>(j, top, "strict_failure");
  r.regression = rd.get<bool>(j, top, "regression");
  r.exit_status = rd.get<int>(j, top, "exit_status");
  return r;
}

CompareResult read_compare_result_file(const std::string& path) {
  return compare_result_from_json(read_json_file(path), path);
}

}  // namespace mg
