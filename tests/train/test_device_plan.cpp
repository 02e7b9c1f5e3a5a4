// Device policy: ordinals, CPU threads per replica, the collective library and the default sweep, decided once.
#include <catch2/catch.hpp>

#include "comm/rendezvous/launch.h"
#include "core/error.h"
#include "core/host_info.h"
#include "train/device_plan.h"

using namespace mg;

TEST_CASE("device plan: a slot per replica, continued across a host's processes, through --gpu-ids", "[train][devices]") {
  DeviceRequest req;
  req.kind = DeviceKind::Cuda;
  req.replicas = 2;
  LaunchInfo launch;
  REQUIRE(plan_devices(req, launch).ordinals == std::vector<int>{0, 1});
  REQUIRE(plan_devices(req, launch).comm_library == "nccl");
  REQUIRE(plan_devices(req, launch).backend.threads == 0);
  launch.local_rank = 1;
  REQUIRE(plan_devices(req, launch).ordinals == std::vector<int>{2, 3});
  req.gpu_ids = {6, 4, 2, 0};
  REQUIRE(plan_devices(req, launch).ordinals == std::vector<int>{2, 0});
  req.gpu_ids = {6, 4, 2};
  REQUIRE_THROWS_WITH(plan_devices(req, launch), Catch::Contains("--gpu-ids lists 3 devices but 4 are needed"));
}

TEST_CASE("device plan: CPU replicas share this process's cores, never below one thread", "[train][devices]") {
  DeviceRequest req;
  req.kind = DeviceKind::Cpu;
  req.replicas = 2;
  req.threads = 8;
  LaunchInfo launch;
  DevicePlan p = plan_devices(req, launch);
  REQUIRE(p.comm_library == "gloo");
  REQUIRE(p.backend.threads == 4);
  req.cpu_core_slots = 4;  // the sweep's largest count: the same share in every entry
  REQUIRE(plan_devices(req, launch).backend.threads == 2);
  req.threads_per_replica = 3;
  REQUIRE(plan_devices(req, launch).backend.threads == 3);
  req.threads_per_replica = 0;
  req.threads = 0;
  req.cpu_core_slots = 64;
  REQUIRE(plan_devices(req, launch).backend.threads == 1);
  // Without --threads, a process under a launcher counts only its share of the host.
  launch.launcher = Launcher::Env;
  launch.local_size = 2;
  req.cpu_core_slots = 1;
  req.replicas = 1;
  REQUIRE(plan_devices(req, launch).backend.threads == process_core_share(launch));
  REQUIRE(process_cores(0, launch) == process_core_share(launch));
  REQUIRE(process_cores(5, launch) == 5);
}

TEST_CASE("device plan: the default CPU sweep and the library per device kind", "[train][devices]") {
  REQUIRE(default_device_counts(DeviceKind::Cpu, 1) == std::vector<int>{1});
  REQUIRE(default_device_counts(DeviceKind::Cpu, 2) == std::vector<int>{1, 2});
  REQUIRE(default_device_counts(DeviceKind::Cpu, 64) == std::vector<int>{1, 2});
  REQUIRE(comm_library(DeviceKind::Cpu) == "gloo");
  REQUIRE(comm_library(DeviceKind::Cuda) == "nccl");
  REQUIRE(resolve_device_kind(DeviceKind::Cpu) == DeviceKind::Cpu);
  REQUIRE(resolve_device_kind(std::nullopt) == (cuda_device_count() > 0 ? DeviceKind::Cuda : DeviceKind::Cpu));
  REQUIRE_NOTHROW(require_device_present(DeviceKind::Cpu));
  if (cuda_device_count() == 0) {
    REQUIRE_THROWS_AS(require_device_present(DeviceKind::Cuda), UsageError);
    REQUIRE_THROWS_WITH(require_device_present(DeviceKind::Cuda), Catch::Contains("use --device cpu"));
  }
}

TEST_CASE("a backend names why it cannot train at a precision, and require_precision says it once", "[train][devices]") {
  auto cpu = make_backend(DeviceKind::Cpu, 0, BackendOptions{1});
  REQUIRE(cpu->unsupported_reason(Precision::FP32).empty());
  REQUIRE(cpu->supports(Precision::FP32));
  for (Precision p : {Precision::FP16, Precision::TF32}) {
    REQUIRE_FALSE(cpu->supports(p));
    REQUIRE_THAT(cpu->unsupported_reason(p), Catch::Contains("needs a GPU"));
    REQUIRE_THROWS_AS(require_precision(*cpu, p), UsageError);
  }
  try {
    require_precision(*cpu, Precision::FP16);
  } catch (const UsageError& e) {
    REQUIRE_THAT(e.what(), Catch::StartsWith("--precision fp16 is not supported on cpu:0 (") &&
                               Catch::Contains("use fp32 or bf16"));
  }
  REQUIRE(cpu->supports(Precision::BF16) == cpu->unsupported_reason(Precision::BF16).empty());
  REQUIRE_NOTHROW(require_precision(*cpu, Precision::FP32));
}
