// `mgbench report` on a fuzzed file: recognised as a result, comm or compare output (load_report_inputs), then
// every figure and the whole page rendered (render_html_report), and a result's stdout table.
#include <cstdio>

#include "fuzz_input.h"
#include "report/html_report.h"
#include "report/report_input.h"
#include "report/table.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = mg::fuzz::input_file(data, size, ".json");
  mg::fuzz::expect_only_mg_errors([&] {
    const mg::ReportInputs in = mg::load_report_inputs({path});
    (void)mg::render_html_report(in);
    for (const mg::ResultInput& r : in.results) (void)mg::format_table(r.result);
  });
  std::remove(path.c_str());
  return 0;
}
