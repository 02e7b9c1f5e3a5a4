#include "topo/topology.h"

#include "core/error.h"
#include "core/host_info.h"
#include "topo/topo_parts.h"

namespace mg {

nlohmann::json discover_topology() {
  nlohmann::json report = {{"host", hostname()}};
  report.update(topo::discover_gpus());
  report.update(topo::discover_cpu());
  report["network"] = topo::discover_network();
  report.update(topo::gpu_nic_affinity(report["gpus"], report["network"]));
  return report;
}

}  // namespace mg
