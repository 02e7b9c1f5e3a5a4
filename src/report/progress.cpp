#include "report/progress.h"

#include <unistd.h>

#include <fmt/format.h>

namespace mg {

Progress::Progress(std::string label, std::FILE* out)
    : Progress(std::move(label), out, out != nullptr && isatty(fileno(out)) != 0) {}

Progress::Progress(std::string label, std::FILE* out, bool enabled)
    : label_(std::move(label)), out_(out), enabled_(enabled && out != nullptr) {}

Progress::~Progress() { finish(); }

void Progress::update(int64_t done, int64_t total, double samples_per_sec) {
  if (!enabled_) return;
  std::string line = fmt::format("{}: {} {}/{}  {:.1f} {}", label_, unit_, done, total, samples_per_sec, rate_label_);
  // Pad over the previous text: a shorter line would otherwise leave its tail on screen.
  const size_t width = line.size();
  if (width < last_width_) line.append(last_width_ - width, ' ');
  last_width_ = width;
  std::fputs(("\r" + line).c_str(), out_);
  std::fflush(out_);
}

void Progress::finish() {
  if (!enabled_ || last_width_ == 0) return;
  std::fputs(("\r" + std::string(last_width_, ' ') + "\r").c_str(), out_);
  std::fflush(out_);
  last_width_ = 0;
}

}  // namespace mg
