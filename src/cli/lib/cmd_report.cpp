// `mgbench report FILE|DIR... [-o report.html]`: one self-contained HTML page from result, prediction, comm and
// compare JSON files (src/report/html_report.h). Unusable input: one line, exit 2, no file written.
#include <cstdio>
#include <string>
#include <vector>

#include "cli/lib/command.h"
#include "report/html_report.h"

namespace mg {

namespace {

class ReportCommand final : public Command {
 public:
  void setup(CLI::App& sub) override {
    sub.description(
        "Write one self-contained HTML page (inline SVG plots, tables, environment; no network access when "
        "opened) from result files of training runs or predictions, `mgbench comm --json` and `mgbench compare "
        "--json` outputs");
    sub.add_option("files", files_, "Result, comm or compare JSON files, or folders of them");
    sub.add_option("-o,--output", output_, "HTML file to write")->capture_default_str();
  }

  int run() override {
    const ReportInputs in = load_report_inputs(files_);
    write_html_report(output_, in);
    std::printf("wrote %s\n", output_.c_str());
    return 0;
  }

 private:
  std::vector<std::string> files_;
  std::string output_ = "report.html";
};

}  // namespace

std::unique_ptr<Command> make_report_command() { return std::make_unique<ReportCommand>(); }

}  // namespace mg
