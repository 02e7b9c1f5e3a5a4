// `mgbench comm`: nccl-tests-style collective sweep on the communicators the trainer uses. Replicas are
// threads of this process (--devices N), or one per process under mpirun / srun / RANK+WORLD_SIZE. Each
// --transport entry builds a fresh world with that transport's environment; rank 0 prints and writes JSON.
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>

#include <cstdio>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "backend/backend.h"
#include "cli/lib/command.h"
#include "cli/lib/child_runs.h"
#include "comm/bench/comm_bench.h"
#include "comm/transport.h"
#include "comm/world.h"
#include "core/build_info.h"
#include "core/error.h"
#include "core/host_info.h"
#include "report/html_report.h"
#include "result/comm_result_json.h"
#include "result/result_json.h"
#include "train/device_plan.h"
#include "train/environment.h"

namespace mg {

namespace {

class CommCommand : public Command {
 public:
  void setup(CLI::App& sub) override {
    sub.add_option("--op", op_, "collective: allreduce, reducescatter, allgather, broadcast, reduce")->capture_default_str();
    sub.add_option("--allreduce", strategy_, "how allreduce runs: ring (the library's) or ps (reduce to rank 0, then "
                                             "broadcast, as a parameter server)")->capture_default_str();
    sub.add_option("-b,--minbytes", min_, "smallest size (bytes, K/M/G suffixes)")->capture_default_str();
    sub.add_option("-e,--maxbytes", max_, "largest size (bytes, K/M/G suffixes)")->capture_default_str();
    sub.add_option("-f,--stepfactor", factor_, "multiply the size by this between steps")->capture_default_str();
    devices_opt_ = sub.add_option("--devices,--gpus,-g", devices_,
                                  "replicas (threads) in this process; default 2 on CPU, every GPU on CUDA, 1 per "
                                  "process under a launcher");
    sub.add_option("--device", device_, "cpu | cuda | auto (cuda when a GPU is present; gpu means cuda)");
    sub.add_option("--warmup", warmup_, "untimed iterations per size")->capture_default_str();
    sub.add_option("--iters,-n", iters_, "timed iterations per size")->capture_default_str();
    sub.add_option("--min-time", min_time_s_,
                   "seconds each size's timed loop lasts at least: small sizes get more than --iters iterations "
                   "(0: exactly --iters); the count used is in the JSON rows' iters")
        ->capture_default_str();
    sub.add_option("--gap", gap_s_,
                   "also time every size as a training step issues it: each collective alone, after SECONDS of busy "
                   "work on the issuing thread (the rows' gap_time_us; mgbench predict prices an all-reduce that "
                   "starts on an idle comm stream with it). 0: back to back only")
        ->capture_default_str();
    sub.add_option("--dtype", dtype_, "fp32, fp16 or bf16")->capture_default_str();
    sub.add_option("--root", root_, "broadcast root rank")->capture_default_str();
    sub.add_option("--transport", transport_,
                   "comma list run side by side: auto,p2p,shm,net (cuda/NCCL) or auto,local,tcp (cpu: shared "
                   "memory between replica threads, Gloo TCP)");
    sub.add_option("--comm-timeout", timeout_s_, "seconds before a lost peer fails the run")->capture_default_str();
    sub.add_option("--gloo-iface", gloo_iface_, "network interface for Gloo (default: loopback, or the route to "
                                                "MASTER_ADDR)");
    sub.add_option("--threads-per-replica", threads_per_replica_, "CPU threads per replica (default cores/N)");
    sub.add_option("--json", json_path_, "write results and environment as JSON to FILE");
    sub.add_option("--html", html_path_, "write a self-contained HTML report (busbw and time vs size) to FILE");
  }

  int run() override {
    CommBenchOptions bench;
    bench.op = parse_collective(op_);
    bench.dtype = parse_comm_dtype(dtype_);
    bench.min_bytes = parse_size(min_, "-b");
    bench.max_bytes = parse_size(max_, "-e");
    bench.factor = factor_;
    size_sweep(bench.min_bytes, bench.max_bytes, bench.factor);
    if (warmup_ < 0) throw UsageError("--warmup must be >= 0");
    if (iters_ < 1) throw UsageError("--iters must be >= 1");
    if (!(min_time_s_ >= 0) || !std::isfinite(min_time_s_)) throw UsageError("--min-time must be a number of seconds >= 0");
    if (strategy_ != "ring" && strategy_ != "ps") throw UsageError("--allreduce '" + strategy_ + "' is not one of: ring, ps");
    if (strategy_ == "ps" && op_ != "allreduce") throw UsageError("--allreduce ps applies to --op allreduce");
    bench.ps = strategy_ == "ps";
    if (!(timeout_s_ > 0)) throw UsageError("--comm-timeout must be positive");
    bench.warmup = warmup_;
    bench.iters = iters_;
    bench.min_time_s = min_time_s_;
    if (!(gap_s_ >= 0) || !std::isfinite(gap_s_)) throw UsageError("--gap must be a number of seconds >= 0");
    bench.gap_s = gap_s_;
    bench.root = root_;

    const DeviceKind kind = device_kind_option(device_);
    const bool transport_given = !transport_.empty();
    const std::vector<Transport> transports =
        transport_given ? parse_transports(transport_, kind) : std::vector<Transport>{Transport::Auto};
    if (!gloo_iface_.empty() && kind == DeviceKind::Cuda) {
      throw UsageError("--gloo-iface applies to --device cpu (Gloo); NCCL reads NCCL_SOCKET_IFNAME");
    }

    const LaunchInfo launch = detect_launch();
    const bool launched = launch.launched();
    if (transports.size() > 1) {
      // NCCL reads NCCL_* once per process (its parameters are cached on first use), so a second entry in the
      // same process would silently measure the first one's transport: every entry gets a fresh process.
      refuse_children_under_launcher(launch, "--transport with several entries");
      return run_entries_in_children(transports);
    }
    require_device_present(kind);
    // Collectives need two ranks to measure anything: two CPU replicas even on one core.
    int local = devices_opt_->count() ? devices_
                : launched            ? 1
                : kind == DeviceKind::Cuda ? default_device_counts(kind, 0).back()
                                           : 2;
    if (local < 1) throw UsageError("--devices must be at least 1");
    if (threads_per_replica_ < 0) throw UsageError("--threads-per-replica must be >= 0");
    if (bench.op == CollectiveOp::Broadcast && (root_ < 0 || root_ >= local * launch.world_size)) {
      throw UsageError("--root " + std::to_string(root_) + " is outside the world of " +
                       std::to_string(local * launch.world_size) + " ranks");
    }

    DeviceRequest asked;
    asked.kind = kind;
    asked.replicas = local;
    asked.threads_per_replica = threads_per_replica_;
    const DevicePlan plan = plan_devices(asked, launch);
    std::vector<std::unique_ptr<Backend>> owned;
    std::vector<Backend*> backends;
    for (int ordinal : plan.ordinals) {
      owned.push_back(make_backend(kind, ordinal, plan.backend));
      backends.push_back(owned.back().get());
    }

    CommResult result;
    for (Transport t : transports) {
      const std::string name = transport_name(t);
      ScopedTransport env(t, kind);
      CommOptions co;
      co.library = plan.comm_library;
      co.timeout_s = timeout_s_;
      co.gloo_iface = gloo_iface_;
      co.transport = t;
      co.job_key = "comm/" + name;
      co.config_fingerprint = fingerprint(kind, local);
      auto comms = create_communicators(launch, backends, co);
      std::vector<Communicator*> raw;
      for (auto& c : comms) raw.push_back(c.get());
      bench.transport = name;
      const auto part = run_comm_bench(raw, backends, bench);
      result.rows.insert(result.rows.end(), part.begin(), part.end());
      // Without --transport the user's own NCCL_* choices decide the path: record them.
      result.transport_env[name] =
          (transport_given || kind == DeviceKind::Cpu) ? env.vars() : nccl_environment();
      if (launch.rank == 0) print_table(part, name, kind, raw[0]->size(), raw[0]->library());
    }

    int64_t wrong = 0;
    for (const auto& r : result.rows) wrong += r.wrong;
    if (launch.rank == 0 && (!json_path_.empty() || !html_path_.empty())) {
      describe_sweep(result, launch, kind, local, backends);
      write_outputs(result);
    }
    if (wrong > 0) throw Error(std::to_string(wrong) + " wrong elements in collective results (see #wrong)");
    return 0;
  }

 private:

  // One child process per transport entry (each prints its own table), then one merged JSON result.
  int run_entries_in_children(const std::vector<Transport>& transports) const {
    std::vector<std::vector<std::string>> extra;
    for (Transport t : transports) extra.push_back({"--transport", transport_name(t)});
    const ChildResults children = run_children(extra, {"--transport", "--html"}, /*quiet=*/false);
    if (children.status != 0) return children.status;
    std::optional<CommResult> merged;
    for (size_t i = 0; i < children.parts.size(); ++i) {
      CommResult part = comm_result_from_json(children.parts[i], std::string("transport ") + transport_name(transports[i]));
      if (!merged) {
        merged = std::move(part);
        continue;
      }
      merged->rows.insert(merged->rows.end(), part.rows.begin(), part.rows.end());
      for (auto& [k, v] : part.transport_env) merged->transport_env[k] = std::move(v);
    }
    if (!merged) throw Error("comm: the transport entries' processes wrote no results");
    merged->env.command_line = own_command_line();
    write_outputs(*merged);
    return 0;
  }

  void write_outputs(const CommResult& r) const {
    if (!json_path_.empty()) write_json_atomic(json_path_, to_json(r));
    if (html_path_.empty()) return;
    ReportInputs in;
    in.comms.push_back({"comm " + op_, json_path_, r});
    write_html_report(html_path_, in);
  }

  // Processes launched with different options would time different things or deadlock: compare them.
  std::string fingerprint(DeviceKind kind, int local) const {
    return fmt::format("op={}\nminbytes={}\nmaxbytes={}\nstepfactor={}\nwarmup={}\niters={}\ndtype={}\nroot={}\n"
                       "transport={}\ndevice={}\nreplicas-per-process={}\nallreduce={}\nmin-time={}\ngap={}",
                       op_, min_, max_, factor_, warmup_, iters_, dtype_, root_, transport_, device_kind_name(kind),
                       local, strategy_, min_time_s_, gap_s_);
  }

  void print_table(const std::vector<CommRow>& rows, const std::string& transport, DeviceKind kind, int ranks,
                   const std::string& library) const {
    std::printf("# mgbench comm: %s, %s, %d ranks (%s, %s), transport %s, %d warm-up + %d timed iterations%s\n",
                (op_ == "allreduce" && strategy_ == "ps" ? "allreduce as ps (reduce to rank 0 + broadcast)" : op_.c_str()), dtype_.c_str(), ranks, device_kind_name(kind), library.c_str(), transport.c_str(),
                warmup_, iters_,
                min_time_s_ > 0 ? fmt::format(" (more while a size's loop is shorter than {:g} s)", min_time_s_).c_str() : "");
    std::printf("#%47s %31s\n", "out-of-place", "in-place");
    std::printf("#%12s %12s %5s %9s %7s %7s %6s %9s %7s %7s %6s\n", "size", "count", "type", "time", "algbw",
                "busbw", "#wrong", "time", "algbw", "busbw", "#wrong");
    std::printf("#%12s %12s %5s %9s %7s %7s %6s %9s %7s %7s %6s\n", "(B)", "(elements)", "", "(us)", "(GB/s)",
                "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "");
    double bus_sum = 0;
    int bus_n = 0;
    for (size_t i = 0; i + 1 < rows.size(); i += 2) {
      const CommRow& o = rows[i];
      const CommRow& p = rows[i + 1];
      std::printf(" %12zu %12zu %5s %9.1f %7.3f %7.3f %6lld %9.1f %7.3f %7.3f %6lld\n", o.bytes, o.count,
                  o.dtype.c_str(), o.time_us, o.algbw_GBps, o.busbw_GBps, static_cast<long long>(o.wrong),
                  p.time_us, p.algbw_GBps, p.busbw_GBps, static_cast<long long>(p.wrong));
      bus_sum += o.busbw_GBps + p.busbw_GBps;
      bus_n += 2;
    }
    std::printf("# Avg bus bandwidth    : %.4f GB/s\n", bus_n ? bus_sum / bus_n : 0.0);
    if (gap_s_ > 0) {
      // The same sizes, each collective alone after --gap seconds of busy work, as a training step issues it.
      std::printf("# after a gap of %g s of busy work, one collective at a time:\n", gap_s_);
      std::printf("#%12s %12s %9s %7s %9s %7s\n", "size", "count", "oop time", "iters", "ip time", "iters");
      std::printf("#%12s %12s %9s %7s %9s %7s\n", "(B)", "(elements)", "(us)", "", "(us)", "");
      for (size_t i = 0; i + 1 < rows.size(); i += 2) {
        std::printf(" %12zu %12zu %9.1f %7d %9.1f %7d\n", rows[i].bytes, rows[i].count, rows[i].gap_time_us,
                    rows[i].gap_iters, rows[i + 1].gap_time_us, rows[i + 1].gap_iters);
      }
    }
    std::printf("\n");
    std::fflush(stdout);
  }

  // The sweep's options and where it ran, captured only where a file is written (topology discovery is slow).
  void describe_sweep(CommResult& r, const LaunchInfo& launch, DeviceKind kind, int local,
                      const std::vector<Backend*>& backends) const {
    r.op = op_;
    r.allreduce = strategy_;
    r.dtype = dtype_;
    r.warmup = warmup_;
    r.iters = iters_;
    r.min_time_s = min_time_s_;
    r.gap_s = gap_s_;
    // The same capture as a training result (train/environment.h).
    r.env = capture_environment(own_command_line(), launch, local);
    r.device = device_kind_name(kind);
    r.processes = launch.world_size;
    r.replicas_per_process = local;
    r.gloo_iface = gloo_iface_;
    r.comm_timeout_s = timeout_s_;
    for (Backend* b : backends) r.local_devices.push_back(b->info().name);
  }

  std::string op_ = "allreduce";
  std::string strategy_ = "ring";
  std::string min_ = "8";
  std::string max_ = "32M";
  double factor_ = 2;
  CLI::Option* devices_opt_ = nullptr;
  int devices_ = 0;
  std::string device_;
  int warmup_ = 5;
  int iters_ = 20;
  double min_time_s_ = 0;
  double gap_s_ = 0;
  std::string dtype_ = "fp32";
  int root_ = 0;
  std::string transport_;
  double timeout_s_ = 300;
  std::string gloo_iface_;
  int threads_per_replica_ = 0;
  std::string json_path_, html_path_;
};

}  // namespace

std::unique_ptr<Command> make_comm_command() { return std::make_unique<CommCommand>(); }

}  // namespace mg
