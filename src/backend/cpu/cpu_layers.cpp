// Placeholder until the oneDNN layers land (being written now); replaced wholesale.
#include "backend/cpu/cpu_backend.h"
#include "core/error.h"

namespace mg {
std::unique_ptr<LayerOp> create_cpu_layer(CpuBackend&, const LayerDesc& desc, const std::vector<Shape>&,
                                          const LayerOptions&) {
  throw Error(std::string("CPU layer not available yet: ") + desc.name);
}
}  // namespace mg
