#include "cli/lib/app.h"

int main(int argc, char** argv) { return mg::run_cli(argc, argv); }
