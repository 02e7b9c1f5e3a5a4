// --device auto / cuda against every combination of what the kernel shows, what CUDA_VISIBLE_DEVICES asks for,
// whether the build has CUDA and what the CUDA runtime says: a visible GPU that CUDA cannot use is named with the
// runtime's own error, never taken for "no GPU" (which would run the CPU and report its figures).
#include <catch2/catch.hpp>

#include "backend/gpu_probe.h"
#include "core/error.h"
#include "support/temp_dir.h"

using namespace mg;

namespace {

const char* kOldDriver = "cudaErrorInsufficientDriver: CUDA driver version is insufficient for CUDA runtime version";

GpuFacts facts(std::vector<std::string> paths, bool built, int count, std::string error) {
  GpuFacts f;
  f.visible_paths = std::move(paths);
  f.cuda_built = built;
  f.runtime_version = built ? "13.0" : "";
  f.runtime_count = count;
  f.runtime_error = std::move(error);
  return f;
}

std::string usage_error(std::optional<DeviceKind> asked, const GpuFacts& f) {
  try {
    resolve_device(asked, probe_gpus(f));
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("gpu probe: a working GPU is used by auto and cuda", "[backend][gpu_probe]") {
  const GpuFacts f = facts({"/proc/driver/nvidia/gpus/0000:1b:00.0"}, true, 2, "");
  const GpuProbe p = probe_gpus(f);
  CHECK(p.state == GpuState::Usable);
  CHECK(p.count == 2);
  CHECK(resolve_device(std::nullopt, p) == DeviceKind::Cuda);
  CHECK(resolve_device(DeviceKind::Cuda, p) == DeviceKind::Cuda);
  CHECK(resolve_device(DeviceKind::Cpu, p) == DeviceKind::Cpu);
  // The runtime's count is enough where the kernel's entries are not mounted (some containers).
  CHECK(probe_gpus(facts({}, true, 1, "")).state == GpuState::Usable);
}

TEST_CASE("gpu probe: no GPU visible runs auto on the CPU and refuses cuda", "[backend][gpu_probe]") {
  for (const GpuFacts& f : {facts({}, true, 0, "cudaErrorNoDevice: no CUDA-capable device is detected"),
                            facts({}, true, 0, kOldDriver), facts({}, false, 0, "")}) {
    const GpuProbe p = probe_gpus(f);
    CHECK(p.state == GpuState::None);
    CHECK(resolve_device(std::nullopt, p) == DeviceKind::Cpu);
    CHECK(usage_error(DeviceKind::Cuda, f).find("no GPU is present") != std::string::npos);
  }
}

TEST_CASE("gpu probe: a visible GPU with a driver too old for the runtime is named, not taken for none",
          "[backend][gpu_probe]") {
  const GpuFacts f = facts({"/proc/driver/nvidia/gpus/0000:1b:00.0", "/dev/nvidia0"}, true, 0, kOldDriver);
  const GpuProbe p = probe_gpus(f);
  CHECK(p.state == GpuState::Unusable);
  CHECK(p.count == 0);
  for (std::optional<DeviceKind> asked : {std::optional<DeviceKind>{}, std::optional<DeviceKind>{DeviceKind::Cuda}}) {
    const std::string e = usage_error(asked, f);
    INFO(e);
    CHECK(e.find(asked ? "--device cuda: " : "--device auto: ") == 0);
    CHECK(e.find("/proc/driver/nvidia/gpus/0000:1b:00.0") != std::string::npos);
    CHECK(e.find(kOldDriver) != std::string::npos);  // the runtime's own words
    CHECK(e.find("supports CUDA 13.0") != std::string::npos);
    CHECK(e.find("--device cpu") != std::string::npos);
    CHECK(e.find('\n') == std::string::npos);  // one line
  }
  CHECK(resolve_device(DeviceKind::Cpu, p) == DeviceKind::Cpu);  // asking for the CPU by name still runs there
  // Other runtime errors are named too, with advice of their own.
  const GpuFacts nodev = facts({"/dev/nvidia0"}, true, 0, "cudaErrorNoDevice: no CUDA-capable device is detected");
  CHECK(usage_error(std::nullopt, nodev).find("cudaErrorNoDevice") != std::string::npos);
  CHECK(usage_error(std::nullopt, nodev).find("/dev/nvidia*") != std::string::npos);
  CHECK(probe_gpus(facts({"/dev/nvidia0"}, true, 0, "")).state == GpuState::Unusable);  // counts none, no error
}

TEST_CASE("gpu probe: a build without CUDA on a machine with a GPU says so under auto", "[backend][gpu_probe]") {
  const GpuFacts f = facts({"/dev/nvidia0"}, false, 0, "");
  CHECK(probe_gpus(f).state == GpuState::Unusable);
  const std::string e = usage_error(std::nullopt, f);
  INFO(e);
  CHECK(e.find("built without the CUDA backend") != std::string::npos);
  CHECK(e.find("--device cpu") != std::string::npos);
  CHECK(usage_error(DeviceKind::Cuda, f).find("built without the CUDA backend") != std::string::npos);
}

TEST_CASE("gpu probe: CUDA_VISIBLE_DEVICES empty or -1 asks for no GPU", "[backend][gpu_probe]") {
  for (const char* v : {"", "-1", "-1,0"}) {
    INFO("CUDA_VISIBLE_DEVICES=" << v);
    GpuFacts f = facts({"/dev/nvidia0"}, true, 0, "cudaErrorNoDevice: no CUDA-capable device is detected");
    f.cuda_visible_devices = v;
    CHECK(probe_gpus(f).state == GpuState::None);
    CHECK(resolve_device(std::nullopt, probe_gpus(f)) == DeviceKind::Cpu);
  }
  GpuFacts listed = facts({"/dev/nvidia0"}, true, 0, kOldDriver);
  listed.cuda_visible_devices = "0";
  CHECK(probe_gpus(listed).state == GpuState::Unusable);
}

TEST_CASE("gpu probe: the driver's /proc and /dev entries are read, other nvidia nodes are not GPUs",
          "[backend][gpu_probe]") {
  test::TempDir root("mg_gpu_probe");
  CHECK(visible_gpu_paths(root.path()).empty());
  root.write("proc/driver/nvidia/gpus/0000:1b:00.0/information", "Model: fake");
  root.write("dev/nvidia0", "");
  root.write("dev/nvidia12", "");
  root.write("dev/nvidiactl", "");
  root.write("dev/nvidia-uvm", "");
  root.write("dev/nvidia-caps/x", "");
  const std::vector<std::string> want{root / "dev/nvidia0", root / "dev/nvidia12",
                                      root / "proc/driver/nvidia/gpus/0000:1b:00.0"};
  CHECK(visible_gpu_paths(root.path()) == want);
}
