#include <cstdio>
#include <cstdlib>

#include "cli/lib/app.h"
#include "core/stop.h"

int main(int argc, char** argv) {
  const int status = mg::run_cli(argc, argv);
  // A stopped run has nothing left to write; static destructors (oneDNN's cached JIT kernels: seconds on a busy
  // machine) would outlast the backstop, so it ends here.
  if (mg::stop_requested()) {
    std::fflush(nullptr);
    std::_Exit(status);
  }
  return status;
}
