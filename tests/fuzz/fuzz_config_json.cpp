// The --config preset reader (JSON through CLI11's config interface) on arbitrary bytes.
#include <sstream>

#include <CLI/CLI.hpp>

#include "cli/lib/json_config.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  mg::fuzz::expect_only_mg_errors([&] {
    const auto items = mg::JsonConfig().from_config(in);
    for (const auto& item : items) (void)item.fullname();
  });
  return 0;
}
