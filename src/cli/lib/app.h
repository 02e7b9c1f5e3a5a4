// The mgbench command line: parses argv into a RunConfig (or a subcommand) and runs it. Returns the exit
// status: 0 success, 1 run failure (or regression for compare), 2 bad input.
#pragma once
namespace mg {
int run_cli(int argc, char** argv);
}
