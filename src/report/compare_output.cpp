#include "report/compare_output.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include <fmt/format.h>

#include "result/rate_unit.h"

namespace mg {

namespace {

std::string ips_with_ci(const SideSummary& s) {
  if (s.ips_ci_lo > 0 && s.ips_ci_hi > 0)
    return fmt::format("{:.1f} [{:.1f}, {:.1f}]", s.median_ips, s.ips_ci_lo, s.ips_ci_hi);
  return fmt::format("{:.1f}", s.median_ips);
}

std::string p_cell(const PairComparison& p) {
  if (p.verdict != Verdict::InsufficientSamples && !p.significance_judged) return "n/a";
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
  if (p.verdict != Verdict::InsufficientSamples && !p.significance_judged)
    return std::string(verdict_name(p.verdict)) + " (threshold only)";
  return verdict_name(p.verdict);
}

std::string ratio_cell(const PairComparison& p) {
  if (p.change.coverage > 0)
    return fmt::format("{:.3f} [{:.3f}, {:.3f}]", p.ratio, p.change.lo, p.change.hi);
  return fmt::format("{:.3f}", p.ratio);
}

// The throughput columns' unit: images/s, or sequences/s for language models (their samples are sequences).
const char* rate_column_unit(const CompareReport& r) {
  std::vector<RateUnit> units;
  for (const PairComparison& p : r.pairs) units.push_back(rate_unit(p.base.tokens_per_sample));
  return common_rate_unit(units).samples_short;
}

std::string runs_cell(const PairComparison& p) { return fmt::format("{}/{}", p.base.runs, p.next.runs); }

// One line per pair on what the comparison can see: the gate's own noise.
std::string noise_line(const PairComparison& p, double alpha) {
  if (p.verdict == Verdict::InsufficientSamples) return "";
  if (!p.noise.known)
    return fmt::format("noise {}: unknown with {} vs {} run(s); significance not judged, verdict on the threshold "
                       "alone",
                       p.key.label(), p.base.runs, p.next.runs);
  const std::string floor = std::isfinite(p.noise.min_detectable)
                                ? fmt::format("{:.1f}%", 100 * p.noise.min_detectable)
                                : std::string("none (too few runs for the test)");
  return fmt::format("noise {}: one run varies by {:.1f}% ({}), A vs A stays within +-{:.1f}% at {} vs {} runs "
                     "(95%), smallest detectable slowdown {} (80% power, alpha {})",
                     p.key.label(), 100 * p.noise.run_spread,
                     p.paired ? "sd of the pair log-ratios / sqrt 2" : "sd of log run medians", 100 * p.noise.a_vs_a_band,
                     p.base.runs, p.next.runs, floor, alpha);
}

const char* kAcrossTime =
    "BASE is a committed baseline: this compares across time and possibly machines, so a slow or fast period of "
    "the runner counts as a change; the interleaved mode (scripts/ci-regression.sh --base BIN --new BIN) does not";

std::string summary_line(const CompareReport& r) {
  const bool threshold_only = std::any_of(r.pairs.begin(), r.pairs.end(), [](const PairComparison& p) {
    return p.verdict != Verdict::InsufficientSamples && !p.significance_judged;
  });
  return fmt::format(
      "{} regression(s), {} improvement(s), {} no change, {} insufficient samples; {} only in BASE, {} only in "
      "NEW (alpha {}, threshold {:.1f}%, efficiency threshold {:.1f} points; {})",
      r.count(Verdict::Regression), r.count(Verdict::Improvement), r.count(Verdict::NoChange),
      r.count(Verdict::InsufficientSamples), r.only_base.size(), r.only_new.size(), r.options.alpha,
      100 * r.options.threshold, 100 * r.options.efficiency_threshold,
      threshold_only   ? "significance NOT judged for some runs: threshold only"
      : r.options.paired ? "tested on pairs of process-run medians"
                         : "tested on process-run medians");
}

CompareResult::Side side_result(const SideSummary& s) {
  CompareResult::Side out;
  out.file = s.file;
  out.samples = s.samples;
  out.runs = s.runs;
  out.run_images_per_sec = s.run_ips;
  out.threads_per_replica = s.threads_per_replica;
  out.inject_slowdown = s.inject_slowdown;
  out.batch_per_device = s.batch_per_device;
  out.tokens_per_sample = s.tokens_per_sample;
  out.median_images_per_sec = s.median_ips;
  out.images_per_sec_ci95_lo = s.ips_ci_lo;
  out.images_per_sec_ci95_hi = s.ips_ci_hi;
  out.step_time_median_s = s.step_median_s;
  out.step_time_ci95_lo_s = s.step_ci_lo_s;
  out.step_time_ci95_hi_s = s.step_ci_hi_s;
  out.scaling_efficiency = s.scaling_efficiency;
  out.comm_exposed_s = s.comm_exposed_s;
  return out;
}

CompareResult::Key key_result(const RunKey& k) {
  return {k.model, k.device, k.precision, k.mode, k.data, k.transport, k.devices, k.label()};
}

std::optional<double> unless_negative(double p) { return p < 0 ? std::nullopt : std::optional<double>(p); }

CompareResult::Pair pair_result(const PairComparison& p) {
  CompareResult::Pair out;
  out.key = key_result(p.key);
  out.base = side_result(p.base);
  out.next = side_result(p.next);
  out.ratio = p.ratio;
  out.ratio_ci95_lo = p.change.lo;
  out.ratio_ci95_hi = p.change.hi;
  out.ratio_ci_coverage = p.change.coverage;
  out.method = !p.significance_judged ? "threshold only"
               : p.paired              ? "paired run medians (Wilcoxon signed-rank)"
                                       : "run medians (Mann-Whitney)";
  out.significance_judged = p.significance_judged;
  out.significance_note = p.significance_note;
  out.p_value = unless_negative(p.p_value);
  out.exact = p.exact;
  out.verdict = verdict_name(p.verdict);
  out.noise.known = p.noise.known;
  out.noise.run_spread = p.noise.run_spread;
  out.noise.a_vs_a_band = p.noise.a_vs_a_band;
  if (std::isfinite(p.noise.min_detectable)) out.noise.min_detectable_slowdown = p.noise.min_detectable;
  out.noise.test_can_reject = p.noise.test_can_reject;
  out.per_step_diagnostic.note = "old method (U test over pooled step times); not used for the verdict";
  out.per_step_diagnostic.p_value = unless_negative(p.per_step_p);
  out.per_step_diagnostic.verdict = verdict_name(p.per_step_verdict);
  out.efficiency_drop = p.efficiency_drop;
  out.comm_exposed_growth = p.comm_exposed_growth;
  out.notes = p.notes;
  return out;
}

}  // namespace

std::string format_compare_table(const CompareReport& r) {
  size_t wk = 3;
  for (const PairComparison& p : r.pairs) wk = std::max(wk, p.key.label().size());
  std::string out;
  if (r.options.across_time) out += std::string("note: ") + kAcrossTime + "\n";
  const char* unit = rate_column_unit(r);
  out += fmt::format("{:<{}}  {:>26}  {:>26}  {:>5}  {:>23}  {:>8}  {:<28}  {}\n", "run", wk,
                     fmt::format("BASE {} [95% CI]", unit), fmt::format("NEW {} [95% CI]", unit), "runs",
                     "ratio [95% CI]", "p", "verdict", "flags");
  for (const PairComparison& p : r.pairs)
    out += fmt::format("{:<{}}  {:>26}  {:>26}  {:>5}  {:>23}  {:>8}  {:<28}  {}\n", p.key.label(), wk,
                       ips_with_ci(p.base), ips_with_ci(p.next), runs_cell(p), ratio_cell(p), p_cell(p),
                       verdict_cell(p), flags(p));
  for (const PairComparison& p : r.pairs) {
    const std::string n = noise_line(p, r.options.alpha);
    if (!n.empty()) out += n + "\n";
  }
  for (const std::string& w : r.noise_warnings) out += "warning: " + w + "\n";
  for (const auto& [k, f] : r.only_base) out += fmt::format("only in BASE: {} ({})\n", k.label(), f);
  for (const auto& [k, f] : r.only_new) out += fmt::format("only in NEW: {} ({})\n", k.label(), f);
  for (const std::string& w : r.warnings) out += "warning: " + w + "\n";
  out += summary_line(r) + "\n";
  return out;
}

std::string format_compare_markdown(const CompareReport& r) {
  std::string out = fmt::format("### mgbench compare: {}\n\n", r.regression() ? "regression" : "no regression");
  if (r.options.across_time) out += std::string("> ") + kAcrossTime + ".\n\n";
  out += fmt::format("| run | BASE {0} [95% CI] | NEW {0} [95% CI] | runs | ratio [95% CI] | p | verdict | flags |\n",
                     rate_column_unit(r));
  out += "|---|---:|---:|---:|---:|---:|---|---|\n";
  for (const PairComparison& p : r.pairs) {
    const std::string verdict = p.verdict == Verdict::Regression || p.efficiency_drop
                                    ? "**" + verdict_cell(p) + "**"
                                    : verdict_cell(p);
    out += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} |\n", p.key.label(), ips_with_ci(p.base),
                       ips_with_ci(p.next), runs_cell(p), ratio_cell(p), p_cell(p), verdict, flags(p));
  }
  out += "\n";
  for (const PairComparison& p : r.pairs) {
    const std::string n = noise_line(p, r.options.alpha);
    if (!n.empty()) out += "- " + n + "\n";
  }
  for (const std::string& w : r.noise_warnings) out += "- **warning**: " + w + "\n";
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

CompareResult compare_result(const CompareReport& r) {
  CompareResult out;
  out.options = {r.options.alpha,  r.options.threshold,   r.options.efficiency_threshold, r.options.min_samples,
                 r.options.strict, r.options.across_time, r.options.paired};
  out.base_files = r.base_files;
  out.new_files = r.new_files;
  for (const PairComparison& p : r.pairs) out.pairs.push_back(pair_result(p));
  for (const auto& [k, f] : r.only_base) out.only_base.push_back({key_result(k), f});
  for (const auto& [k, f] : r.only_new) out.only_new.push_back({key_result(k), f});
  out.warnings = r.warnings;
  out.noise_warnings = r.noise_warnings;
  out.strict_failure = r.strict_failure;
  out.regression = r.regression();
  out.exit_status = r.exit_status();
  return out;
}

}  // namespace mg
