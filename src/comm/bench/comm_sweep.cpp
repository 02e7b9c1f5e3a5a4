#include "comm/bench/comm_sweep.h"

#include <memory>
#include <optional>

#include <fmt/format.h>

#include "comm/rendezvous/child_runs.h"
#include "comm/transport.h"
#include "comm/world.h"
#include "core/error.h"
#include "result/comm_result_json.h"
#include "train/device_plan.h"
#include "train/environment.h"

namespace mg {

namespace {

// Processes launched with different options would time different things or deadlock: compare them.
std::string sweep_fingerprint(const CommRequest& req, DeviceKind kind, int local) {
  return fmt::format("op={}\nminbytes={}\nmaxbytes={}\nstepfactor={}\nwarmup={}\niters={}\ndtype={}\nroot={}\n"
                     "transport={}\ndevice={}\nreplicas-per-process={}\nallreduce={}\nmin-time={}\ngap={}",
                     req.op, req.min_bytes, req.max_bytes, req.factor, req.warmup, req.iters, req.dtype, req.root,
                     req.transport, device_kind_name(kind), local, req.allreduce, req.min_time_s, req.gap_s);
}

// Collectives need two ranks to measure anything: two CPU replicas even on one core.
int local_replicas(const CommRequest& req, const CommSweepSettings& s, const LaunchInfo& launch) {
  const int local = req.devices                    ? *req.devices
                    : launch.launched()            ? 1
                    : s.kind == DeviceKind::Cuda   ? default_device_counts(s.kind, 0).back()
                                                   : 2;
  if (local < 1) throw UsageError("--devices must be at least 1");
  if (req.threads_per_replica < 0) throw UsageError("--threads-per-replica must be >= 0");
  const int ranks = local * launch.world_size;
  if (collective_spec(s.bench.op).rooted && (req.root < 0 || req.root >= ranks)) {
    throw UsageError("--root " + std::to_string(req.root) + " is outside the world of " + std::to_string(ranks) +
                     " ranks");
  }
  return local;
}

// The sweep's options and where it ran, captured only where a file is written (topology discovery is slow).
void describe_sweep(CommResult& r, const CommRequest& req, const LaunchInfo& launch, DeviceKind kind, int local,
                    const std::vector<Backend*>& backends) {
  r.op = req.op;
  r.allreduce = req.allreduce;
  r.dtype = req.dtype;
  r.warmup = req.warmup;
  r.iters = req.iters;
  r.min_time_s = req.min_time_s;
  r.gap_s = req.gap_s;
  // The same capture as a training result (train/environment.h).
  r.env = capture_environment(own_command_line(), launch, local);
  r.device = device_kind_name(kind);
  r.processes = launch.world_size;
  r.replicas_per_process = local;
  r.gloo_iface = req.gloo_iface;
  r.comm_timeout_s = req.timeout_s;
  for (Backend* b : backends) r.local_devices.push_back(b->info().name);
}

// One child process per transport entry (each prints its own table), then one merged result.
CommSweepOutcome run_entries_in_children(const std::vector<Transport>& transports) {
  std::vector<std::vector<std::string>> extra;
  for (Transport t : transports) extra.push_back({"--transport", transport_name(t)});
  const ChildResults children = run_children(extra, {"--transport", "--html"}, /*quiet=*/false);
  CommSweepOutcome out;
  out.child_status = children.status;
  if (children.status != 0) return out;
  out.result = merge_transport_parts(children.parts, transports);
  out.result.env.command_line = own_command_line();
  return out;
}

// Every entry in this process, one world each, on the same backends.
CommSweepOutcome run_entries_here(const CommRequest& req, const CommSweepSettings& s, const LaunchInfo& launch,
                                  const CommSweepHooks& hooks) {
  require_device_present(s.kind);
  const int local = local_replicas(req, s, launch);
  DeviceRequest asked;
  asked.kind = s.kind;
  asked.replicas = local;
  asked.threads_per_replica = req.threads_per_replica;
  const DevicePlan plan = plan_devices(asked, launch);
  std::vector<std::unique_ptr<Backend>> owned;
  std::vector<Backend*> backends;
  for (int ordinal : plan.ordinals) {
    owned.push_back(make_backend(s.kind, ordinal, plan.backend));
    backends.push_back(owned.back().get());
  }

  CommSweepOutcome out;
  CommBenchOptions bench = s.bench;
  for (Transport t : s.transports) {
    const std::string name = transport_name(t);
    ScopedTransport env(t, s.kind);
    CommOptions co;
    co.library = plan.comm_library;
    co.timeout_s = req.timeout_s;
    co.gloo_iface = req.gloo_iface;
    co.transport = t;
    co.job_key = "comm/" + name;
    co.config_fingerprint = sweep_fingerprint(req, s.kind, local);
    auto comms = create_communicators(launch, backends, co);
    std::vector<Communicator*> raw;
    for (auto& c : comms) raw.push_back(c.get());
    bench.transport = name;
    CommPart part{name, s.kind, raw[0]->size(), raw[0]->library(), run_comm_bench(raw, backends, bench)};
    out.result.rows.insert(out.result.rows.end(), part.rows.begin(), part.rows.end());
    // Without --transport the user's own NCCL_* choices decide the path: record them.
    out.result.transport_env[name] =
        (s.transport_given || s.kind == DeviceKind::Cpu) ? env.vars() : nccl_environment();
    if (launch.rank == 0 && hooks.part_measured) hooks.part_measured(part);
  }
  out.lead = launch.rank == 0;
  if (out.lead && req.describe) describe_sweep(out.result, req, launch, s.kind, local, backends);
  return out;
}

}  // namespace

CommResult merge_transport_parts(const std::vector<nlohmann::json>& parts, const std::vector<Transport>& transports) {
  std::optional<CommResult> merged;
  for (size_t i = 0; i < parts.size(); ++i) {
    CommResult part = comm_result_from_json(parts[i], std::string("transport ") + transport_name(transports.at(i)));
    if (!merged) {
      merged = std::move(part);
      continue;
    }
    merged->rows.insert(merged->rows.end(), part.rows.begin(), part.rows.end());
    for (auto& [k, v] : part.transport_env) merged->transport_env[k] = std::move(v);
  }
  if (!merged) throw Error("comm: the transport entries' processes wrote no results");
  return std::move(*merged);
}

CommSweepOutcome run_comm_sweep(const CommRequest& req, const CommSweepHooks& hooks) {
  const CommSweepSettings s = check_comm_request(req);
  const LaunchInfo launch = detect_launch();
  if (s.transports.size() > 1) {
    // NCCL reads NCCL_* once per process (its parameters are cached on first use), so a second entry in the
    // same process would silently measure the first one's transport: every entry gets a fresh process.
    refuse_children_under_launcher(launch, "--transport with several entries");
    return run_entries_in_children(s.transports);
  }
  return run_entries_here(req, s, launch, hooks);
}

}  // namespace mg
