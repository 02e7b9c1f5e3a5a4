// Facts about the host machine that results and device descriptions record.
#pragma once
#include <string>

namespace mg {

// The processor's model name from /proc/cpuinfo ("unknown" when it cannot be read).
std::string cpu_model_name();

}  // namespace mg
