// Live progress of the timed steps, for a person watching a terminal. Logs (stdout redirected to a file or a
// CI job) get nothing, so they are not flooded with carriage-return lines.
#pragma once
#include <cstdio>
#include <string>
#include <utility>

namespace mg {

class Progress {
 public:
  // Shown only when out is a terminal (isatty).
  explicit Progress(std::string label, std::FILE* out = stdout);
  // Explicit choice, for tests and for --no-progress.
  Progress(std::string label, std::FILE* out, bool enabled);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  bool enabled() const { return enabled_; }
  // What update() counts: "step" unless changed (e.g. "run" for --runs).
  void set_unit(std::string unit) { unit_ = std::move(unit); }
  // The rate's label: "img/s" unless changed (e.g. "seq/s" for a language model).
  void set_rate_label(std::string label) { rate_label_ = std::move(label); }
  // Rewrites the single line: "<label>: <unit> <done>/<total>  <rate> <rate label>".
  void update(int64_t done, int64_t total, double samples_per_sec);
  // Clears the line so the table that follows starts clean. Idempotent; the destructor calls it.
  void finish();

 private:
  std::string label_;
  std::FILE* out_;
  std::string unit_ = "step";
  std::string rate_label_ = "img/s";
  bool enabled_;
  size_t last_width_ = 0;
};

}  // namespace mg
