// `mgbench comm`: nccl-tests-style collective sweep on the communicators the trainer uses. The options become a
// CommRequest, comm/bench/comm_sweep.h's runner measures it, and rank 0 prints each entry's table and writes the
// result (JSON, HTML).
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli/lib/command.h"
#include "comm/bench/comm_sweep.h"
#include "core/error.h"
#include "report/html_report.h"
#include "result/comm_result_json.h"
#include "result/result_json.h"

namespace mg {

namespace {

class CommCommand : public Command {
 public:
  void setup(CLI::App& sub) override {
    sub.add_option("--op", req_.op, "collective: allreduce, reducescatter, allgather, broadcast, reduce")
        ->capture_default_str();
    sub.add_option("--allreduce", req_.allreduce,
                   "how allreduce runs: ring (the library's) or ps (reduce to rank 0, then broadcast, as a parameter "
                   "server)")
        ->capture_default_str();
    sub.add_option("-b,--minbytes", req_.min_bytes, "smallest size (bytes, K/M/G suffixes)")->capture_default_str();
    sub.add_option("-e,--maxbytes", req_.max_bytes, "largest size (bytes, K/M/G suffixes)")->capture_default_str();
    sub.add_option("-f,--stepfactor", req_.factor, "multiply the size by this between steps")->capture_default_str();
    devices_opt_ = sub.add_option("--devices,--gpus,-g", devices_,
                                  "replicas (threads) in this process; default 2 on CPU, every GPU on CUDA, 1 per "
                                  "process under a launcher");
    sub.add_option("--device", req_.device, "cpu | cuda | auto (cuda when a GPU is present; gpu means cuda)");
    sub.add_option("--warmup", req_.warmup, "untimed iterations per size")->capture_default_str();
    sub.add_option("--iters,-n", req_.iters, "timed iterations per size")->capture_default_str();
    sub.add_option("--min-time", req_.min_time_s,
                   "seconds each size's timed loop lasts at least: small sizes get more than --iters iterations "
                   "(0: exactly --iters); the count used is in the JSON rows' iters")
        ->capture_default_str();
    sub.add_option("--gap", req_.gap_s,
                   "also time every size as a training step issues it: each collective alone, after SECONDS of busy "
                   "work on the issuing thread (the rows' gap_time_us; mgbench predict prices an all-reduce that "
                   "starts on an idle comm stream with it). 0: back to back only")
        ->capture_default_str();
    sub.add_option("--dtype", req_.dtype, "fp32, fp16 or bf16")->capture_default_str();
    sub.add_option("--root", req_.root, "broadcast root rank")->capture_default_str();
    sub.add_option("--transport", req_.transport,
                   "comma list run side by side: auto,p2p,shm,net (cuda/NCCL) or auto,local,tcp (cpu: shared "
                   "memory between replica threads, Gloo TCP)");
    sub.add_option("--comm-timeout", req_.timeout_s, "seconds before a lost peer fails the run")->capture_default_str();
    sub.add_option("--gloo-iface", req_.gloo_iface,
                   "network interface for Gloo (default: loopback, or the route to MASTER_ADDR)");
    sub.add_option("--threads-per-replica", req_.threads_per_replica, "CPU threads per replica (default cores/N)");
    sub.add_option("--json", json_path_, "write results and environment as JSON to FILE");
    sub.add_option("--html", html_path_, "write a self-contained HTML report (busbw and time vs size) to FILE");
  }

  int run() override {
    if (devices_opt_->count()) req_.devices = devices_;
    req_.describe = !json_path_.empty() || !html_path_.empty();
    CommSweepHooks hooks;
    hooks.part_measured = [this](const CommPart& part) { print_table(part); };
    const CommSweepOutcome out = run_comm_sweep(req_, hooks);
    if (out.child_status != 0) return out.child_status;
    if (out.lead) write_outputs(out.result);
    int64_t wrong = 0;
    for (const auto& r : out.result.rows) wrong += r.wrong;
    if (wrong > 0) throw Error(fmt::format("{} wrong elements in collective results (see #wrong)", wrong));
    return 0;
  }

 private:
  void write_outputs(const CommResult& r) const {
    if (!json_path_.empty()) write_json_atomic(json_path_, to_json(r));
    if (html_path_.empty()) return;
    ReportInputs in;
    in.comms.push_back({"comm " + req_.op, json_path_, r});
    write_html_report(html_path_, in);
  }

  void print_table(const CommPart& part) const {
    const std::vector<CommRow>& rows = part.rows;
    const bool ps = req_.op == "allreduce" && req_.allreduce == "ps";
    std::printf("# mgbench comm: %s, %s, %d ranks (%s, %s), transport %s, %d warm-up + %d timed iterations%s\n",
                ps ? "allreduce as ps (reduce to rank 0 + broadcast)" : req_.op.c_str(), req_.dtype.c_str(),
                part.ranks, device_kind_name(part.kind), part.library.c_str(), part.transport.c_str(), req_.warmup,
                req_.iters,
                req_.min_time_s > 0
                    ? fmt::format(" (more while a size's loop is shorter than {:g} s)", req_.min_time_s).c_str()
                    : "");
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
    if (req_.gap_s > 0) {
      // The same sizes, each collective alone after --gap seconds of busy work, as a training step issues it.
      std::printf("# after a gap of %g s of busy work, one collective at a time:\n", req_.gap_s);
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

  CommRequest req_;
  CLI::Option* devices_opt_ = nullptr;
  int devices_ = 0;
  std::string json_path_, html_path_;
};

}  // namespace

std::unique_ptr<Command> make_comm_command() { return std::make_unique<CommCommand>(); }

}  // namespace mg
