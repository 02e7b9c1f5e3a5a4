#include "report/compare_output.h"

#include <fmt/format.h>

namespace mg {

using nlohmann::json;

namespace {

std::string ips_with_ci(const SideSummary& s) {
  if (s.ips_ci_lo > 0 && s.ips_ci_hi > 0)
    return fmt::format("{:.1f} [{:.1f}, {:.1f}]", s.median_ips, s.ips_ci_lo, s.ips_ci_hi);
  return fmt::format("{:.1f}", s.median_ips);
}

std::string p_cell(const PairComparison& p) {
  if (p.p_value < 0) return "-";
  return p.p_value < 1e-4 ? fmt::format("{:.1e}", p.p_value) : fmt::format("{:.4f}", p.p_value);
}

std::string flags(const PairComparison& p) {
  std::string out;
  auto add = [&out](const std::string& s) { out += (out.empty() ? "" : "; ") + s; };
  if (p.efficiency_drop)
    add(fmt::format("efficiency {:.1f} -> {:.1f}%", 100 * p.base.scaling_efficiency,
                    100 * p.next.scaling_efficiency));
  if (p.comm_exposed_growth)
    add(fmt::format("comm exposed {:.2f} -> {:.2f} ms", 1e3 * p.base.comm_exposed_s, 1e3 * p.next.comm_exposed_s));
  for (const std::string& n : p.notes) add(n);
  return out;
}

std::string verdict_cell(const PairComparison& p) {
  if (p.verdict != Verdict::Regression && p.efficiency_drop) return "regression (efficiency)";
  return verdict_name(p.verdict);
}

std::string summary_line(const CompareReport& r) {
  return fmt::format(
      "{} regression(s), {} improvement(s), {} no change, {} insufficient samples; {} only in BASE, {} only in "
      "NEW (alpha {}, threshold {:.1f}%, efficiency threshold {:.1f} points)",
      r.count(Verdict::Regression), r.count(Verdict::Improvement), r.count(Verdict::NoChange),
      r.count(Verdict::InsufficientSamples), r.only_base.size(), r.only_new.size(), r.options.alpha,
      100 * r.options.threshold, 100 * r.options.efficiency_threshold);
}

json side_json(const SideSummary& s) {
  return {{"file", s.file},
          {"samples", s.samples},
          {"batch_per_device", s.batch_per_device},
          {"median_images_per_sec", s.median_ips},
          {"images_per_sec_ci95", {s.ips_ci_lo, s.ips_ci_hi}},
          {"step_time_median_s", s.step_median_s},
          {"step_time_ci95_s", {s.step_ci_lo_s, s.step_ci_hi_s}},
          {"scaling_efficiency", s.scaling_efficiency},
          {"comm_exposed_s", s.comm_exposed_s}};
}

json key_json(const RunKey& k) {
  return {{"model", k.model},         {"device", k.device}, {"precision", k.precision}, {"mode", k.mode},
          {"data", k.data},           {"transport", k.transport}, {"devices", k.devices},
          {"label", k.label()}};
}

}  // namespace

std::string format_compare_table(const CompareReport& r) {
  size_t wk = 3;
  for (const PairComparison& p : r.pairs) wk = std::max(wk, p.key.label().size());
  std::string out = fmt::format("{:<{}}  {:>28}  {:>28}  {:>7}  {:>8}  {:<23}  {}\n", "run", wk,
                                "BASE img/s [95% CI]", "NEW img/s [95% CI]", "ratio", "p", "verdict", "flags");
  for (const PairComparison& p : r.pairs)
    out += fmt::format("{:<{}}  {:>28}  {:>28}  {:>7.3f}  {:>8}  {:<23}  {}\n", p.key.label(), wk,
                       ips_with_ci(p.base), ips_with_ci(p.next), p.ratio, p_cell(p), verdict_cell(p), flags(p));
  for (const auto& [k, f] : r.only_base) out += fmt::format("only in BASE: {} ({})\n", k.label(), f);
  for (const auto& [k, f] : r.only_new) out += fmt::format("only in NEW: {} ({})\n", k.label(), f);
  for (const std::string& w : r.warnings) out += "warning: " + w + "\n";
  out += summary_line(r) + "\n";
  return out;
}

std::string format_compare_markdown(const CompareReport& r) {
  std::string out = fmt::format("### mgbench compare: {}\n\n", r.regression() ? "regression" : "no regression");
  out += "| run | BASE img/s [95% CI] | NEW img/s [95% CI] | ratio | p | verdict | flags |\n";
  out += "|---|---:|---:|---:|---:|---|---|\n";
  for (const PairComparison& p : r.pairs) {
    const std::string verdict = p.verdict == Verdict::Regression || p.efficiency_drop
                                    ? "**" + verdict_cell(p) + "**"
                                    : verdict_cell(p);
    out += fmt::format("| {} | {} | {} | {:.3f} | {} | {} | {} |\n", p.key.label(), ips_with_ci(p.base),
                       ips_with_ci(p.next), p.ratio, p_cell(p), verdict, flags(p));
  }
  if (!r.only_base.empty() || !r.only_new.empty()) {
    out += "\nRuns on one side only:\n\n";
    for (const auto& [k, f] : r.only_base) out += fmt::format("- BASE only: `{}` ({})\n", k.label(), f);
    for (const auto& [k, f] : r.only_new) out += fmt::format("- NEW only: `{}` ({})\n", k.label(), f);
  }
  if (!r.warnings.empty()) {
    out += "\n> **Environments differ** — the comparison may reflect the machine, not the change:\n";
    for (const std::string& w : r.warnings) out += "> - " + w + "\n";
  }
  out += "\n" + summary_line(r) + "\n";
  return out;
}

json compare_to_json(const CompareReport& r) {
  json pairs = json::array();
  for (const PairComparison& p : r.pairs) {
    pairs.push_back({{"key", key_json(p.key)},
                     {"base", side_json(p.base)},
                     {"new", side_json(p.next)},
                     {"ratio", p.ratio},
                     {"p_value", p.p_value < 0 ? json(nullptr) : json(p.p_value)},
                     {"exact", p.exact},
                     {"verdict", verdict_name(p.verdict)},
                     {"efficiency_drop", p.efficiency_drop},
                     {"comm_exposed_growth", p.comm_exposed_growth},
                     {"notes", p.notes}});
  }
  auto one_side = [](const std::vector<std::pair<RunKey, std::string>>& v) {
    json a = json::array();
    for (const auto& [k, f] : v) a.push_back({{"key", key_json(k)}, {"file", f}});
    return a;
  };
  return {{"compare_schema_version", kCompareSchemaVersion},
          {"options",
           {{"alpha", r.options.alpha},
            {"threshold", r.options.threshold},
            {"efficiency_threshold", r.options.efficiency_threshold},
            {"min_samples", r.options.min_samples}}},
          {"base_files", r.base_files},
          {"new_files", r.new_files},
          {"pairs", pairs},
          {"only_base", one_side(r.only_base)},
          {"only_new", one_side(r.only_new)},
          {"warnings", r.warnings},
          {"regression", r.regression()},
          {"exit_status", r.exit_status()}};
}

}  // namespace mg
