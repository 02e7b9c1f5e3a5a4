#include "train/replica_group.h"

namespace mg {

std::vector<DeviceInfo> ReplicaGroup::devices() const {
  std::vector<DeviceInfo> out;
  for (const auto& b : backends) out.push_back(b->info());
  return out;
}

ReplicaGroup create_replica_group(const DevicePlan& plan, Precision precision, const LaunchInfo& launch,
                                  CommOptions comm) {
  ReplicaGroup g;
  g.plan = plan;
  for (int ordinal : plan.ordinals) {
    g.backends.push_back(make_backend(plan.kind, ordinal, plan.backend));
    require_precision(*g.backends.back(), precision);
  }
  if (launch.world_size * g.size() > 1) {
    comm.library = plan.comm_library;
    std::vector<Backend*> raw;
    for (auto& b : g.backends) raw.push_back(b.get());
    g.comms = create_communicators(launch, raw, comm);
  }
  return g;
}

}  // namespace mg
