// The devices and communicators of this process's replicas for one sweep entry: one backend per replica where
// the device plan places it, each able to train at the run's precision, and, when the job has more than one
// replica, one communicator per replica in one world (every process of the launcher joins it).
#pragma once
#include <memory>
#include <vector>

#include "backend/backend.h"
#include "comm/world.h"
#include "train/device_plan.h"

namespace mg {

struct ReplicaGroup {
  DevicePlan plan;
  std::vector<std::unique_ptr<Backend>> backends;
  std::vector<std::unique_ptr<Communicator>> comms;  // empty for a world of one replica

  int size() const { return static_cast<int>(backends.size()); }
  Communicator* comm(int i) const { return comms.empty() ? nullptr : comms[static_cast<size_t>(i)].get(); }
  std::vector<DeviceInfo> devices() const;
};

// Throws UsageError when a device cannot train at `precision` (require_precision) or the plan does not fit.
// comm: everything but the library, which the plan decides; collective across processes like
// create_communicators.
ReplicaGroup create_replica_group(const DevicePlan& plan, Precision precision, const LaunchInfo& launch,
                                  CommOptions comm);

}  // namespace mg
