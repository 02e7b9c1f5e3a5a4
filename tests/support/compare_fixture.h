// A fully populated CompareResult for the result and report tests: every field set to a distinct, non-default
// value so a writer or reader that drops one is caught.
#pragma once
#include "result/compare_result.h"

namespace mg::test {

inline CompareResult::Key make_compare_key(int devices) {
  return {"resnet50", "cpu", "fp32", "train", "synthetic-device", "local", devices,
          "resnet50 fp32 cpu train synthetic-device local x" + std::to_string(devices)};
}

// One pair (resnet50 x2, a regression at ratio 0.8 with its interval), one run on each side only.
inline CompareResult make_compare_result() {
  CompareResult c;
  c.options = {0.01, 0.05, 0.03, 7, true, true, true};
  c.base_files = {"base/a.json", "base/b.json"};
  c.new_files = {"new/a.json"};
  CompareResult::Pair p;
  p.key = make_compare_key(2);
  CompareResult::Side& b = p.base;
  b.file = "base/a.json, base/b.json";
  b.samples = 40;
  b.runs = 4;
  b.run_images_per_sec = {99.0, 100.0, 101.0, 102.0};
  b.threads_per_replica = 3;
  b.inject_slowdown = 0.1;
  b.batch_per_device = 16;
  b.median_images_per_sec = 100.5;
  b.images_per_sec_ci95_lo = 95.5;
  b.images_per_sec_ci95_hi = 105.5;
  b.step_time_median_s = 0.125;
  b.step_time_ci95_lo_s = 0.12;
  b.step_time_ci95_hi_s = 0.13;
  b.scaling_efficiency = 0.9;
  b.comm_exposed_s = 0.002;
  p.next = b;
  p.next.file = "new/a.json";
  p.next.samples = 41;
  p.next.runs = 5;
  p.next.run_images_per_sec = {80.0, 80.5, 81.0, 79.0, 79.5};
  p.next.inject_slowdown = 0;
  p.next.median_images_per_sec = 80.25;
  p.next.images_per_sec_ci95_lo = 78.5;
  p.next.images_per_sec_ci95_hi = 82.5;
  p.next.step_time_median_s = 0.15;
  p.next.scaling_efficiency = 0.8;
  p.ratio = 0.8;
  p.ratio_ci95_lo = 0.75;
  p.ratio_ci95_hi = 0.85;
  p.ratio_ci_coverage = 0.968;
  p.method = "paired run medians (Wilcoxon signed-rank)";
  p.significance_judged = true;
  p.significance_note = "a note";
  p.p_value = 0.0123;
  p.exact = true;
  p.verdict = "regression";
  p.noise = {true, 0.021, 0.034, 0.045, true};
  p.per_step_diagnostic = {"old method", 0.0001, "improvement"};
  p.efficiency_drop = true;
  p.comm_exposed_growth = true;
  p.notes = {"different batch per device", "calibration"};
  c.pairs = {p};
  c.only_base = {{make_compare_key(1), "base/a.json"}};
  c.only_new = {{make_compare_key(4), "new/a.json"}};
  c.warnings = {"device differs"};
  c.noise_warnings = {"threshold below the noise floor"};
  c.strict_failure = "--strict: significance not judged";
  c.regression = true;
  c.exit_status = 2;
  return c;
}

}  // namespace mg::test
