// CPU and NUMA layout through hwloc, which already reconciles sysfs, cpuid and cgroups.
#include <hwloc.h>

#include <cstdlib>
#include <string>

#include "topo/topo_parts.h"

namespace mg::topo {

namespace {

std::string cpuset_list(hwloc_const_bitmap_t set) {
  if (!set) return "";
  char* s = nullptr;
  if (hwloc_bitmap_list_asprintf(&s, set) < 0 || !s) return "";
  std::string out = s;
  std::free(s);
  return out;
}

}  // namespace

nlohmann::json discover_cpu() {
  nlohmann::json cpu = {{"model", ""}, {"packages", 0}, {"cores", 0}, {"pus", 0}};
  nlohmann::json numa = nlohmann::json::array();
  hwloc_topology_t topo;
  if (hwloc_topology_init(&topo) != 0) return {{"cpu", cpu}, {"numa", numa}};
  if (hwloc_topology_load(topo) == 0) {
    cpu["packages"] = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE);
    cpu["cores"] = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
    cpu["pus"] = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
    if (hwloc_obj_t pkg = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PACKAGE, 0))
      if (const char* model = hwloc_obj_get_info_by_name(pkg, "CPUModel")) {
        std::string m = model;  // cpuid pads the brand string with blanks
        while (!m.empty() && m.back() == ' ') m.pop_back();
        cpu["model"] = m;
      }
    const int nodes = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
    for (int i = 0; i < nodes; ++i) {
      hwloc_obj_t n = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, i);
      numa.push_back({{"os_index", n->os_index},
                      {"memory_bytes", n->attr ? n->attr->numanode.local_memory : 0},
                      {"cpuset", cpuset_list(n->cpuset)}});
    }
  }
  hwloc_topology_destroy(topo);
  return {{"cpu", cpu}, {"numa", numa}};
}

}  // namespace mg::topo
