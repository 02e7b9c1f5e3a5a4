#include "report/compare.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "core/error.h"
#include "report/mann_whitney.h"
#include "result/result_json.h"
#include "result/stats.h"
#include "result/summary.h"

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
  return std::tie(model, device, precision, mode, data, transport, devices) <
         std::tie(o.model, o.device, o.precision, o.mode, o.data, o.transport, o.devices);
}

bool RunKey::operator==(const RunKey& o) const { return !(*this < o) && !(o < *this); }

RunKey run_key(const RunConfig& c, const DeviceCountResult& r) {
  RunKey k;
  k.model = c.model;
  k.device = device_kind_name(c.device);
  k.precision = precision_name(c.precision);
  k.mode = c.input_only || r.input_only ? "input-only" : c.forward_only ? "forward-only" : "train";
  k.data = c.data == "synthetic" ? "synthetic-" + c.synthetic_source : c.data;
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

std::map<RunKey, Located> index_runs(const std::vector<LoadedResult>& side, const char* which) {
  std::map<RunKey, Located> out;
  for (const LoadedResult& f : side) {
    for (const DeviceCountResult& r : f.result.runs) {
      const RunKey k = run_key(f.result.config, r);
      auto [it, inserted] = out.emplace(k, Located{&f, &r});
      if (!inserted) {
        throw UsageError(fmt::format("{} side holds run '{}' twice: in {} and in {}", which, k.label(),
                                     it->second.file->path, f.path));
      }
    }
  }
  return out;
}

// Derived figures (throughput, efficiency) recomputed from each file's raw samples, so a summary that was
// edited by hand or written by an older mgbench cannot disagree with the samples the U test judges.
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

SideSummary summarize_side(const Located& l) {
  const DeviceCountResult& r = *l.run;
  SideSummary s;
  s.file = l.file->path;
  s.batch_per_device = r.batch_per_device;
  s.scaling_efficiency = r.scaling_efficiency;
  // Recomputed from the raw samples rather than trusted from the file, so a hand-edited summary cannot
  // disagree with the data the test runs on.
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
  double exposed = 0;
  for (const StepBreakdown& b : r.samples) exposed += b.comm_exposed;
  s.comm_exposed_s = r.samples.empty() ? r.breakdown.comm_exposed : exposed / r.samples.size();
  return s;
}

PairComparison judge(const RunKey& key, const Located& b, const Located& n, const CompareOptions& opt) {
  PairComparison p;
  p.key = key;
  p.base = summarize_side(b);
  p.next = summarize_side(n);
  p.ratio = p.base.median_ips > 0 ? p.next.median_ips / p.base.median_ips : 0;
  if (p.base.batch_per_device != p.next.batch_per_device)
    p.notes.push_back(fmt::format("batch per device differs ({} vs {})", p.base.batch_per_device,
                                  p.next.batch_per_device));

  if (p.base.samples < opt.min_samples || p.next.samples < opt.min_samples) {
    p.verdict = Verdict::InsufficientSamples;
    p.notes.push_back(fmt::format("{} and {} step samples; at least {} per side are needed for a verdict",
                                  p.base.samples, p.next.samples, opt.min_samples));
  } else {
    const MannWhitneyResult mw = mann_whitney_u(step_totals(*b.run), step_totals(*n.run));
    p.p_value = mw.p_value;
    p.exact = mw.exact;
    const bool significant = mw.p_value < opt.alpha;
    if (significant && p.ratio < 1 - opt.threshold) p.verdict = Verdict::Regression;
    else if (significant && p.ratio > 1 + opt.threshold) p.verdict = Verdict::Improvement;
    else p.verdict = Verdict::NoChange;

    // Exposed communication that grew noticeably explains a slowdown (or hides inside a no-change) and points
    // at the interconnect or the bucket schedule rather than the kernels.
    std::vector<double> be, ne;
    for (const StepBreakdown& s : b.run->samples) be.push_back(s.comm_exposed);
    for (const StepBreakdown& s : n.run->samples) ne.push_back(s.comm_exposed);
    const double growth = p.next.comm_exposed_s - p.base.comm_exposed_s;
    if (key.devices > 1 && growth > opt.threshold * p.base.step_median_s &&
        mann_whitney_u(be, ne).p_value < opt.alpha)
      p.comm_exposed_growth = true;
  }

  // Like the verdict, an efficiency claim needs enough steps behind it.
  if (p.verdict != Verdict::InsufficientSamples && key.devices > 1 && p.base.scaling_efficiency > 0 &&
      p.next.scaling_efficiency > 0 &&
      p.base.scaling_efficiency - p.next.scaling_efficiency > opt.efficiency_threshold)
    p.efficiency_drop = true;
  return p;
}

// A prediction as BASE (`mgbench predict --json`): it has no step samples, so there is no U test; the measured
// median images/s is judged against the predicted images/s with --threshold alone, and the pair says so.
bool is_prediction(const Located& l) { return l.file->result.kind == "prediction"; }

PairComparison judge_against_prediction(const RunKey& key, const Located& b, const Located& n,
                                        const CompareOptions& opt) {
  PairComparison p;
  p.key = key;
  p.base = summarize_side(b);
  p.next = summarize_side(n);
  p.ratio = p.base.median_ips > 0 ? p.next.median_ips / p.base.median_ips : 0;
  p.notes.push_back(fmt::format("baseline is a prediction (link {}): measured images/s against the predicted "
                                "value with the threshold only, no U test",
                                b.run->transport));
  if (p.ratio < 1 - opt.threshold) p.verdict = Verdict::Regression;
  else if (p.ratio > 1 + opt.threshold) p.verdict = Verdict::Improvement;
  else p.verdict = Verdict::NoChange;
  if (key.devices > 1 && p.base.scaling_efficiency > 0 && p.next.scaling_efficiency > 0 &&
      p.base.scaling_efficiency - p.next.scaling_efficiency > opt.efficiency_threshold)
    p.efficiency_drop = true;
  return p;
}

// A predicted run names its link as transport; it pairs with the one measured run that matches in all else.
std::map<RunKey, Located>::const_iterator find_measured(const std::map<RunKey, Located>& ni, const RunKey& key) {
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
  const std::map<RunKey, Located> bi = index_runs(base_fresh, "BASE");
  const std::map<RunKey, Located> ni = index_runs(next_fresh, "NEW");

  std::set<std::pair<const LoadedResult*, const LoadedResult*>> file_pairs;
  std::set<RunKey> paired;
  for (const auto& [key, b] : bi) {
    auto it = is_prediction(b) ? find_measured(ni, key) : ni.find(key);
    if (it == ni.end()) {
      rep.only_base.push_back({key, b.file->path});
      continue;
    }
    rep.pairs.push_back(is_prediction(b) ? judge_against_prediction(key, b, it->second, opt)
                                         : judge(key, b, it->second, opt));
    paired.insert(it->first);
    file_pairs.insert({b.file, it->second.file});
  }
  for (const auto& [key, n] : ni)
    if (!paired.count(key)) rep.only_new.push_back({key, n.file->path});
  for (const auto& [b, n] : file_pairs) environment_warnings(*b, *n, rep.warnings);
  return rep;
}

}  // namespace mg
