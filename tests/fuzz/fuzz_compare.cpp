// `mgbench compare` on fuzzed result files: read (load_results), paired and judged (compare_results), then the
// table, markdown and JSON it prints. The input is BASE, a NUL, then NEW (without a NUL, a file against itself).
#include <cstdio>

#include "fuzz_input.h"
#include "report/compare_output.h"
#include "result/compare_result_json.h"
#include "stats/compare.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto [base, next] = mg::fuzz::split_at_nul(data, size);
  const std::string base_path = mg::fuzz::input_file(reinterpret_cast<const uint8_t*>(base.data()), base.size(),
                                                     "-base.json");
  const std::string new_path = mg::fuzz::input_file(reinterpret_cast<const uint8_t*>(next.data()), next.size(),
                                                    "-new.json");
  mg::fuzz::expect_only_mg_errors([&] {
    mg::CompareOptions opt;
    opt.min_samples = 2;  // small fuzzed files still reach the tests, not only "insufficient samples"
    const mg::CompareReport r = mg::compare_results(mg::load_results(base_path), mg::load_results(new_path), opt);
    (void)mg::format_compare_table(r);
    (void)mg::format_compare_markdown(r);
    (void)mg::to_json(mg::compare_result(r)).dump();
    (void)r.exit_status();
  });
  std::remove(base_path.c_str());
  std::remove(new_path.c_str());
  return 0;
}
