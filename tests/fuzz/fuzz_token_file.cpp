// Token files (make_token_file_source validates header, length and vocabulary; then batches are read).
#include <cstdio>
#include <vector>

#include "data/token_file.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = mg::fuzz::input_file(data, size, ".bin");
  mg::fuzz::expect_only_mg_errors([&] {
    mg::DataSpec spec;
    spec.path = path;
    spec.batch_size = 2;
    spec.seq_len = 4;
    spec.num_classes = 300;  // some 16-bit tokens inside the vocabulary, some outside
    auto src = mg::make_token_file_source(spec);
    std::vector<int32_t> ids(8), labels(8);
    for (int step = 0; step < 3; ++step) src->next(ids.data(), labels.data());
    (void)src->describe();
  });
  std::remove(path.c_str());
  return 0;
}
