// Comma-separated list options of the training command line (--gpus 1,2,4, --gpu-ids, --transport): one
// parser, so every list option accepts the same forms ("1,2", "--gpus 1 --gpus 2", empty items ignored).
#pragma once
#include <string>
#include <vector>

namespace mg {

// Items of repeated and/or comma-separated values, empty items dropped.
std::vector<std::string> split_list(const std::vector<std::string>& items);
// The items as integers; UsageError naming `option` for one that is not an integer (or out of int range).
std::vector<int> parse_ints(const std::vector<std::string>& items, const char* option);

}  // namespace mg
