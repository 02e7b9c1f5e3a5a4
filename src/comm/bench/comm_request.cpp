#include "comm/bench/comm_request.h"

#include <cmath>

#include "comm/transport.h"
#include "core/error.h"
#include "train/device_plan.h"

namespace mg {

CommSweepSettings check_comm_request(const CommRequest& req) {
  CommSweepSettings s;
  CommBenchOptions& bench = s.bench;
  bench.op = parse_collective(req.op);
  bench.dtype = parse_comm_dtype(req.dtype);
  bench.min_bytes = parse_size(req.min_bytes, "-b");
  bench.max_bytes = parse_size(req.max_bytes, "-e");
  bench.factor = req.factor;
  size_sweep(bench.min_bytes, bench.max_bytes, bench.factor);
  if (req.warmup < 0) throw UsageError("--warmup must be >= 0");
  if (req.iters < 1) throw UsageError("--iters must be >= 1");
  if (!(req.min_time_s >= 0) || !std::isfinite(req.min_time_s))
    throw UsageError("--min-time must be a number of seconds >= 0");
  if (req.allreduce != "ring" && req.allreduce != "ps")
    throw UsageError("--allreduce '" + req.allreduce + "' is not one of: ring, ps");
  bench.ps = req.allreduce == "ps";
  if (bench.ps && !collective_spec(bench.op).ps_form)
    throw UsageError("--allreduce ps applies to --op allreduce");
  if (!(req.timeout_s > 0)) throw UsageError("--comm-timeout must be positive");
  bench.warmup = req.warmup;
  bench.iters = req.iters;
  bench.min_time_s = req.min_time_s;
  if (!(req.gap_s >= 0) || !std::isfinite(req.gap_s)) throw UsageError("--gap must be a number of seconds >= 0");
  bench.gap_s = req.gap_s;
  bench.root = req.root;

  s.kind = device_kind_option(req.device);
  s.transport_given = !req.transport.empty();
  s.transports = s.transport_given ? parse_transports(req.transport, s.kind) : std::vector<Transport>{Transport::Auto};
  if (!req.gloo_iface.empty() && s.kind == DeviceKind::Cuda)
    throw UsageError("--gloo-iface applies to --device cpu (Gloo); NCCL reads NCCL_SOCKET_IFNAME");
  return s;
}

}  // namespace mg
