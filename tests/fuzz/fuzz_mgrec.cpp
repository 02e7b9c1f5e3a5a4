// .mgrec record files (open_record_file validates header, class table and index; then every record is read).
#include <cstdio>
#include <vector>

#include "data/record_file.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = mg::fuzz::input_file(data, size, ".mgrec");
  mg::fuzz::expect_only_mg_errors([&] {
    auto store = mg::open_record_file(path);
    std::vector<uint8_t> bytes;
    for (int64_t i = 0; i < store->size() && i < 64; ++i) {
      store->read(i, bytes);
      (void)store->label(i);
      (void)store->name(i);
    }
    (void)store->describe();
  });
  std::remove(path.c_str());
  return 0;
}
