// Result files as compare, predict and report read them (read_result_file: JSON parse, then every field).
#include <cstdio>

#include "fuzz_input.h"
#include "result/result_json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = mg::fuzz::input_file(data, size, ".json");
  mg::fuzz::expect_only_mg_errors([&] {
    const mg::RunResult r = mg::read_result_file(path);
    // What the readers do next with a result that parsed: write it back.
    (void)mg::to_json(r).dump();
  });
  std::remove(path.c_str());
  return 0;
}
