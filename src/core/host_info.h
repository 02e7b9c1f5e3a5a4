// Facts about the host machine that results, device descriptions and error messages record.
#pragma once
#include <string>

namespace mg {

// The processor's model name from /proc/cpuinfo ("unknown" when it cannot be read).
std::string cpu_model_name();

// The CPUs this process may run on (its affinity mask: what taskset, numactl or a Slurm/cgroup binding leaves
// it), at least 1. Not the machine's total, which would oversubscribe a bound job.
int cpu_core_count();

std::string hostname();

}  // namespace mg
