#include "stats/compare.h"

#include <algorithm>
#include <filesystem>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "core/error.h"
#include "result/result_json.h"
#include "result/run_config_fields.h"
#include "stats/alternation.h"
#include "stats/mann_whitney.h"
#include "stats/noise_floor.h"
#include "stats/run_medians.h"
#include "stats/signed_rank.h"
#include "stats/step_stats.h"
#include "stats/summary.h"

namespace mg {

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::NoChange: return "no change";
    case Verdict::Regression: return "regression";
    case Verdict::Improvement: return "improvement";
    case Verdict::InsufficientSamples: return "insufficient samples";
  }
  return "?";
}

std::string RunKey::label() const {
  return fmt::format("{} {} {} {} {} {} x{}", model, precision, device, mode, data, transport, devices);
}

bool RunKey::operator<(const RunKey& o) const {
  // mode as well: a result entry can be input-only where its config is not (older files).
  return std::tie(identity, mode, transport, devices) < std::tie(o.identity, o.mode, o.transport, o.devices);
}

bool RunKey::operator==(const RunKey& o) const { return !(*this < o) && !(o < *this); }

RunKey run_key(const RunConfig& c, const DeviceCountResult& r) {
  RunKey k;
  k.identity = compare_identity(c);
  k.model = c.model;
  k.device = device_kind_name(c.device);
  k.precision = precision_name(c.precision);
  k.mode = c.input_only || r.input_only ? "input-only" : c.forward_only ? "forward-only" : "train";
  k.data = c.data == "synthetic" ? std::string("synthetic-") + kSyntheticSourceNames.name(c.synthetic_source) : c.data;
  k.transport = r.transport;
  k.devices = r.devices;
  return k;
}

std::vector<LoadedResult> load_results(const std::string& file_or_dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(file_or_dir, ec);
  if (ec || !fs::exists(st)) throw UsageError("cannot read " + file_or_dir + ": no such file or folder");
  std::vector<LoadedResult> out;
  if (!fs::is_directory(st)) {
    out.push_back({file_or_dir, read_result_file(file_or_dir)});
    return out;
  }
  std::vector<std::string> files;
  for (const fs::directory_entry& e : fs::directory_iterator(file_or_dir, ec))
    if (e.path().extension() == ".json" && e.is_regular_file()) files.push_back(e.path().string());
  if (ec) throw UsageError("cannot list " + file_or_dir + ": " + ec.message());
  if (files.empty()) throw UsageError(file_or_dir + ": folder holds no .json result files");
  std::sort(files.begin(), files.end());
  for (const std::string& f : files) out.push_back({f, read_result_file(f)});
  return out;
}

int CompareReport::count(Verdict v) const {
  return static_cast<int>(std::count_if(pairs.begin(), pairs.end(),
                                        [v](const PairComparison& p) { return p.verdict == v; }));
}

bool CompareReport::regression() const {
  return std::any_of(pairs.begin(), pairs.end(), [](const PairComparison& p) {
    return p.verdict == Verdict::Regression || p.efficiency_drop;
  });
}

namespace {

struct Located {
  const LoadedResult* file;
  const DeviceCountResult* run;
};

// One side of one key: the files it came from and their runs pooled (samples concatenated, run_samples marking
// each process run).
struct Pooled {
  std::vector<Located> parts;
  DeviceCountResult run;
  double efficiency = 0;  // mean over the files (each computed against its own 1-device entry)
};

// The settings that define what a preset measures (ConfigField::preset); runs that differ in one of them are not
// the same benchmark. Tuning knobs that a user may A/B on purpose (bucket size, overlap, wire dtype) are not.
std::string preset_differences(const RunConfig& a, const RunConfig& b) {
  std::string out;
  for (const ConfigField& f : run_config_fields()) {
    if (!f.preset || f.write(a) == f.write(b)) continue;
    out += fmt::format("{}{} {} vs {}", out.empty() ? "" : ", ", f.option, field_text(f, a), field_text(f, b));
  }
  return out;
}

std::string entry_differences(const DeviceCountResult& a, const DeviceCountResult& b) {
  std::string out;
  if (a.batch_per_device != b.batch_per_device)
    out += fmt::format("batch per device {} vs {}", a.batch_per_device, b.batch_per_device);
  if (a.threads_per_replica > 0 && b.threads_per_replica > 0 && a.threads_per_replica != b.threads_per_replica)
    out += fmt::format("{}threads per replica {} vs {}", out.empty() ? "" : ", ", a.threads_per_replica,
                       b.threads_per_replica);
  return out;
}

void require_same_preset(const Located& a, const Located& b, const std::string& what) {
  std::string d = preset_differences(a.file->result.config, b.file->result.config);
  const std::string e = entry_differences(*a.run, *b.run);
  if (!e.empty()) d += (d.empty() ? "" : ", ") + e;
  if (!d.empty())
    throw UsageError(fmt::format("{} ran different presets ({}: {} vs {}); compare runs of one preset", what, d,
                                 a.file->path, b.file->path));
}

std::map<RunKey, Pooled> index_runs(const std::vector<LoadedResult>& side, const char* which) {
  std::map<RunKey, Pooled> out;
  for (const LoadedResult& f : side) {
    for (const DeviceCountResult& r : f.result.runs) {
      const RunKey k = run_key(f.result.config, r);
      Pooled& p = out[k];
      const Located here{&f, &r};
      if (!p.parts.empty()) {
        require_same_preset(p.parts.front(), here, fmt::format("{} files of run '{}'", which, k.label()));
        if (f.result.config.inject_slowdown != p.parts.front().file->result.config.inject_slowdown)
          throw UsageError(fmt::format("{} files {} and {} differ in --inject-slowdown", which,
                                       p.parts.front().file->path, f.path));
      }
      p.parts.push_back(here);
    }
  }
  for (auto& [k, p] : out) {
    p.run = *p.parts.front().run;
    p.run.samples.clear();
    p.run.run_samples.clear();
    for (const Located& l : p.parts) {
      const DeviceCountResult& r = *l.run;
      p.run.samples.insert(p.run.samples.end(), r.samples.begin(), r.samples.end());
      if (r.run_samples.empty()) p.run.run_samples.push_back(static_cast<int64_t>(r.samples.size()));
      else p.run.run_samples.insert(p.run.run_samples.end(), r.run_samples.begin(), r.run_samples.end());
      p.efficiency += r.scaling_efficiency / static_cast<double>(p.parts.size());
    }
    if (p.run.run_samples.size() < 2) p.run.run_samples.clear();
  }
  return out;
}

// Derived figures (throughput, efficiency) recomputed from each file's raw samples, so a summary that was
// edited by hand or written by an older mgbench cannot disagree with the samples the test runs on.
std::vector<LoadedResult> rederive(const std::vector<LoadedResult>& side) {
  std::vector<LoadedResult> out = side;
  for (LoadedResult& f : out) {
    for (DeviceCountResult& r : f.result.runs)
      if (!r.samples.empty()) summarize(r);
    if (f.result.kind != "prediction") compute_scaling(f.result.runs);  // a prediction has no samples to redo
  }
  return out;
}

std::vector<double> step_totals(const DeviceCountResult& r) {
  std::vector<double> v;
  v.reserve(r.samples.size());
  for (const StepBreakdown& s : r.samples) v.push_back(s.total);
  return v;
}

SideSummary summarize_side(const Pooled& p) {
  const DeviceCountResult& r = p.run;
  SideSummary s;
  for (const Located& l : p.parts) s.file += (s.file.empty() ? "" : ", ") + l.file->path;
  s.batch_per_device = r.batch_per_device;
  s.tokens_per_sample = r.tokens_per_sample;
  s.threads_per_replica = r.threads_per_replica;
  s.inject_slowdown = p.parts.front().file->result.config.inject_slowdown;
  s.scaling_efficiency = p.efficiency;
  const StepStats st = compute_step_stats(step_totals(r), r.run_samples);
  s.samples = st.samples;
  s.step_median_s = st.median_s;
  s.step_ci_lo_s = st.ci95_lo_s;
  s.step_ci_hi_s = st.ci95_hi_s;
  const double images = static_cast<double>(r.global_batch);
  if (st.median_s > 0) {
    s.median_ips = images / st.median_s;
    s.ips_ci_lo = st.ci95_hi_s > 0 ? images / st.ci95_hi_s : 0;  // slow end of step time = low throughput
    s.ips_ci_hi = st.ci95_lo_s > 0 ? images / st.ci95_lo_s : 0;
  } else {
    s.median_ips = r.images_per_sec;
  }
  for (double t : run_median_step_times(r))
    if (t > 0) s.run_ips.push_back(images / t);
  s.runs = static_cast<int64_t>(s.run_ips.size());
  double exposed = 0;
  for (const StepBreakdown& b : r.samples) exposed += b.comm_exposed;
  s.comm_exposed_s = r.samples.empty() ? r.breakdown.comm_exposed : exposed / r.samples.size();
  return s;
}

std::vector<TimedFile> timed_files(const Pooled& p) {
  std::vector<TimedFile> out;
  for (const Located& l : p.parts) out.push_back({l.file->path, l.file->result.process_runs});
  return out;
}

Verdict decide(bool significant, double ratio, const CompareOptions& opt) {
  if (significant && ratio < 1 - opt.threshold) return Verdict::Regression;
  if (significant && ratio > 1 + opt.threshold) return Verdict::Improvement;
  return Verdict::NoChange;
}

PairComparison judge(const RunKey& key, const Pooled& b, const Pooled& n, const CompareOptions& opt) {
  PairComparison p;
  p.key = key;
  p.base = summarize_side(b);
  p.next = summarize_side(n);
  p.paired = opt.paired;
  if (opt.paired && p.base.run_ips.size() != p.next.run_ips.size())
    throw UsageError(fmt::format("--paired: run '{}' has {} BASE runs and {} NEW runs; pairs need as many of each",
                                 key.label(), p.base.run_ips.size(), p.next.run_ips.size()));
  if (opt.paired) require_alternation(timed_files(b), timed_files(n));
  p.change = opt.paired ? paired_ratio(p.base.run_ips, p.next.run_ips)
                        : hodges_lehmann_ratio(p.base.run_ips, p.next.run_ips);
  p.ratio = p.change.estimate;
  p.noise = opt.paired ? paired_noise_floor(p.base.run_ips, p.next.run_ips, opt.alpha)
                       : noise_floor(p.base.run_ips, p.next.run_ips, opt.alpha);
  if (p.base.inject_slowdown > 0 || p.next.inject_slowdown > 0)
    p.notes.push_back(fmt::format("calibration: --inject-slowdown {:g} in BASE, {:g} in NEW", p.base.inject_slowdown,
                                  p.next.inject_slowdown));

  if (p.base.samples < opt.min_samples || p.next.samples < opt.min_samples || p.base.runs == 0 ||
      p.next.runs == 0) {
    p.verdict = Verdict::InsufficientSamples;
    p.notes.push_back(fmt::format("{} and {} step samples; at least {} per side are needed for a verdict",
                                  p.base.samples, p.next.samples, opt.min_samples));
    return p;
  }

  const int64_t m = p.base.runs, k = p.next.runs;
  if (m < 2 || k < 2) {
    p.significance_note = fmt::format("significance not judged: {} vs {} process run(s), a test needs 2 or more per "
                                      "side; verdict on the threshold alone",
                                      m, k);
  } else if (!p.noise.test_can_reject) {
    p.significance_note = fmt::format("significance not judged: with {} vs {} runs{} the smallest possible p is {:.3g}, "
                                      "not below alpha {}; verdict on the threshold alone",
                                      m, k, opt.paired ? " (paired)" : "",
                                      opt.paired ? smallest_signed_rank_p(m) : smallest_two_sided_p(m, k), opt.alpha);
  } else {
    p.significance_judged = true;
  }
  if (p.significance_judged) {
    if (opt.paired) {
      std::vector<double> d;
      for (size_t i = 0; i < p.base.run_ips.size(); ++i) d.push_back(std::log(p.next.run_ips[i] / p.base.run_ips[i]));
      const SignedRankResult sr = wilcoxon_signed_rank(d);
      p.p_value = sr.p_value;
      p.exact = sr.exact;
    } else {
      const MannWhitneyResult mw = mann_whitney_u(p.base.run_ips, p.next.run_ips);
      p.p_value = mw.p_value;
      p.exact = mw.exact;
    }
    p.verdict = decide(p.p_value < opt.alpha, p.ratio, opt);
  } else {
    p.verdict = decide(true, p.ratio, opt);
  }

  // The old method, over all pooled step times: a diagnostic only.
  const MannWhitneyResult steps = mann_whitney_u(step_totals(b.run), step_totals(n.run));
  p.per_step_p = steps.p_value;
  p.per_step_verdict =
      decide(steps.p_value < opt.alpha, p.base.median_ips > 0 ? p.next.median_ips / p.base.median_ips : 0, opt);

  // Exposed communication that grew noticeably explains a slowdown (or hides inside a no-change) and points
  // at the interconnect or the bucket schedule rather than the kernels. Judged over runs like the verdict.
  const double growth = p.next.comm_exposed_s - p.base.comm_exposed_s;
  if (key.devices > 1 && growth > opt.threshold * p.base.step_median_s)
    p.comm_exposed_growth = !p.significance_judged ||
                            mann_whitney_u(run_means(b.run, &StepBreakdown::comm_exposed),
                                           run_means(n.run, &StepBreakdown::comm_exposed))
                                    .p_value < opt.alpha;

  if (key.devices > 1 && p.base.scaling_efficiency > 0 && p.next.scaling_efficiency > 0 &&
      p.base.scaling_efficiency - p.next.scaling_efficiency > opt.efficiency_threshold)
    p.efficiency_drop = true;
  return p;
}

// A prediction as BASE (`mgbench predict --json`): it has no step samples, so there is no U test; the measured
// median images/s is judged against the predicted images/s with --threshold alone, and the pair says so.
bool is_prediction(const Pooled& p) { return p.parts.front().file->result.kind == "prediction"; }

// A prediction as BASE (`mgbench predict --json`): it has no step samples or process runs, so nothing can be
// tested; the measured median images/s is judged against the predicted images/s with --threshold alone, and the
// pair says so.
PairComparison judge_against_prediction(const RunKey& key, const Pooled& b, const Pooled& n,
                                        const CompareOptions& opt) {
  PairComparison p;
  p.key = key;
  p.base = summarize_side(b);
  p.next = summarize_side(n);
  p.ratio = p.base.median_ips > 0 ? p.next.median_ips / p.base.median_ips : 0;
  p.change.estimate = p.ratio;
  p.significance_note = fmt::format("baseline is a prediction (link {}): measured images/s against the predicted "
                                    "value, verdict on the threshold alone",
                                    b.run.transport);
  p.notes.push_back(p.significance_note);
  p.verdict = decide(true, p.ratio, opt);
  if (key.devices > 1 && p.base.scaling_efficiency > 0 && p.next.scaling_efficiency > 0 &&
      p.base.scaling_efficiency - p.next.scaling_efficiency > opt.efficiency_threshold)
    p.efficiency_drop = true;
  return p;
}

// A predicted run names its link as transport; it pairs with the one measured run that matches in all else.
std::map<RunKey, Pooled>::const_iterator find_measured(const std::map<RunKey, Pooled>& ni, const RunKey& key) {
  auto found = ni.end();
  for (auto it = ni.begin(); it != ni.end(); ++it) {
    RunKey k = it->first;
    k.transport = key.transport;
    if (k == key) {
      if (found != ni.end()) return ni.end();  // ambiguous: leave it unpaired
      found = it;
    }
  }
  return found;
}

std::string device_names(const Environment& e) {
  std::vector<std::string> names;
  for (const DeviceInfo& d : e.devices) names.push_back(d.name);
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out.empty() ? "(none recorded)" : out;
}

// Differences in what the numbers depend on besides the code under test: hardware and library versions.
void environment_warnings(const LoadedResult& b, const LoadedResult& n, std::vector<std::string>& out) {
  const Environment& be = b.result.env;
  const Environment& ne = n.result.env;
  const std::string where = b.path == n.path ? b.path : b.path + " vs " + n.path;
  auto add = [&](const std::string& what, const std::string& x, const std::string& y) {
    if (x != y) out.push_back(fmt::format("{}: {} differs: '{}' vs '{}'", where, what, x, y));
  };
  add("device model", device_names(be), device_names(ne));
  add("CPU model", be.cpu, ne.cpu);
  std::set<std::string> keys;
  for (const auto& [k, v] : be.versions) keys.insert(k);
  for (const auto& [k, v] : ne.versions) keys.insert(k);
  for (const std::string& k : keys) {
    auto bi = be.versions.find(k), ni = ne.versions.find(k);
    add(k + " version", bi == be.versions.end() ? "(none)" : bi->second,
        ni == ne.versions.end() ? "(none)" : ni->second);
  }
}

}  // namespace

CompareReport compare_results(const std::vector<LoadedResult>& base, const std::vector<LoadedResult>& next,
                              const CompareOptions& opt) {
  if (!(opt.alpha > 0 && opt.alpha < 1)) throw UsageError(fmt::format("--alpha {} is not in (0, 1)", opt.alpha));
  if (opt.threshold < 0) throw UsageError(fmt::format("--threshold {} is negative", opt.threshold));
  if (opt.efficiency_threshold < 0)
    throw UsageError(fmt::format("--efficiency-threshold {} is negative", opt.efficiency_threshold));

  CompareReport rep;
  rep.options = opt;
  for (const LoadedResult& f : base) rep.base_files.push_back(f.path);
  for (const LoadedResult& f : next) rep.new_files.push_back(f.path);
  const std::vector<LoadedResult> base_fresh = rederive(base), next_fresh = rederive(next);
  const std::map<RunKey, Pooled> bi = index_runs(base_fresh, "BASE");
  const std::map<RunKey, Pooled> ni = index_runs(next_fresh, "NEW");

  std::set<std::pair<const LoadedResult*, const LoadedResult*>> file_pairs;
  std::set<RunKey> paired;
  for (const auto& [key, b] : bi) {
    auto it = is_prediction(b) ? find_measured(ni, key) : ni.find(key);
    if (it == ni.end()) {
      rep.only_base.push_back({key, b.parts.front().file->path});
      continue;
    }
    // A prediction is not a run of the preset (its steps and warm-up are the profile's): only measured pairs
    // must have been made alike.
    if (!is_prediction(b)) require_same_preset(b.parts.front(), it->second.parts.front(), "BASE and NEW");
  }
  for (const auto& [key, b] : bi) {
    auto it = is_prediction(b) ? find_measured(ni, key) : ni.find(key);
    if (it == ni.end()) continue;
    rep.pairs.push_back(is_prediction(b) ? judge_against_prediction(key, b, it->second, opt)
                                         : judge(key, b, it->second, opt));
    paired.insert(it->first);
    file_pairs.insert({b.parts.front().file, it->second.parts.front().file});
  }
  for (const auto& [key, n] : ni)
    if (!paired.count(key)) rep.only_new.push_back({key, n.parts.front().file->path});
  for (const PairComparison& p : rep.pairs) {
    if (p.verdict == Verdict::InsufficientSamples) continue;
    std::string problem;
    if (!p.significance_judged) {
      problem = fmt::format("{}: {}", p.key.label(), p.significance_note);
    } else if (p.noise.known && opt.threshold < p.noise.min_detectable) {
      problem = std::isfinite(p.noise.min_detectable)
                    ? fmt::format("{}: --threshold {:.1f}% is below this comparison's noise floor: the smallest "
                                  "slowdown it detects with 80% power at {} vs {} runs is {:.1f}%",
                                  p.key.label(), 100 * opt.threshold, p.base.runs, p.next.runs,
                                  100 * p.noise.min_detectable)
                    : fmt::format("{}: no slowdown is detectable at {} vs {} runs", p.key.label(), p.base.runs,
                                  p.next.runs);
    }
    if (problem.empty()) continue;
    rep.noise_warnings.push_back(problem);
    if (opt.strict && rep.strict_failure.empty()) rep.strict_failure = "--strict: " + problem;
  }
  for (const auto& [b, n] : file_pairs) environment_warnings(*b, *n, rep.warnings);
  return rep;
}

}  // namespace mg
