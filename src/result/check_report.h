// What `mgbench check` (and the check a benchmark runs before timing) found: one row per comparison, with the
// measured error beside its tolerance. Plain data written by src/check, read by the result JSON and tables.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace mg {

struct CheckRow {
  std::string group;      // layer | loss | optimizer | allreduce | broadcast | staging | training
  std::string name;       // the case, e.g. "conv3x3_s1 (conv)"
  std::string precision;  // fp32 | tf32 | fp16 | bf16, or the wire dtype of a collective
  std::string metric;     // what error measures: "rel_err" (norm-wise), "wrong" (#elements), "overlap", ...
  double error = 0;
  double tolerance = 0;   // passes when error <= tolerance (overlap and loss ratio: see detail)
  bool passed = false;
  std::string detail;     // the worst quantity, the reference used, or why it failed
  // Reported but not binding: a model's check runs the per-kind generic cases too, on shapes the model may not run.
  bool advisory = false;
};

struct CheckReport {
  bool ran = false;     // false: skipped (--no-check) or written before the check existed
  std::string device;   // what was checked, e.g. "cuda:0 (NVIDIA ...)" / "cpu:0 (...)"
  std::string reference;  // what it was compared with
  double seconds = 0;
  std::vector<CheckRow> rows;
  bool passed() const {
    for (const CheckRow& r : rows)
      if (!r.passed && !r.advisory) return false;
    return ran;
  }
};

}  // namespace mg
