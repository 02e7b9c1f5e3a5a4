// Option values a user types: sizes (-b 8K, -e 256M), integer lists (--gpus 1,2,4), transport lists, and Slurm
// host lists (SLURM_JOB_NODELIST, gpu[03-06,09]). The first byte picks the parser, the rest is the text.
#include <string>
#include <vector>

#include "cli/lib/option_lists.h"
#include "comm/bench/comm_bench.h"
#include "comm/rendezvous/slurm_hostlist.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  mg::fuzz::expect_only_mg_errors([&] {
    switch (data[0] % 4) {
      case 0:
        (void)mg::parse_size(text, "-b");
        break;
      case 1:
        (void)mg::parse_ints({text}, "--gpus");
        break;
      case 2:
        (void)mg::split_list({text, text});
        break;
      default:
        (void)mg::first_slurm_host(text, "SLURM_JOB_NODELIST");
    }
  });
  return 0;
}
