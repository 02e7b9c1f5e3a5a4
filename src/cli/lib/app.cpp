#include "cli/lib/app.h"

#include <cstdio>

namespace mg {
int run_cli(int, char**) {
  std::fprintf(stderr, "mgbench: not yet assembled\n");
  return 1;
}
}  // namespace mg
