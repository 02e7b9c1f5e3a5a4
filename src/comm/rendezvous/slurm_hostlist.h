// The first host of a Slurm hostlist ("gpu[03-06,09],cpu1" -> "gpu03"): where task 0 of a step runs under
// Slurm's default distributions, so where process rank 0 serves the rendezvous store when MASTER_ADDR is unset.
#pragma once
#include <string>

namespace mg {

// Throws UsageError naming `variable` for a malformed list.
std::string first_slurm_host(const std::string& nodelist, const std::string& variable);

}  // namespace mg
