#include "predict/interconnect.h"

#include <algorithm>

namespace mg {

std::string Interconnect::label() const { return inter ? intra.label + "+" + inter->label : intra.label; }

double allreduce_time(const Interconnect& ic, AllreduceMode s, double bytes, int n, bool after_gap, double idle_s) {
  if (n <= 1 || bytes <= 0 || s == AllreduceMode::None) return 0;
  const int per_node = ic.gpus_per_node > 0 ? ic.gpus_per_node : n;
  const int nodes = (n + per_node - 1) / per_node;
  if ((nodes <= 1 || !ic.inter) && s == AllreduceMode::Ring)
    return ring_allreduce_time(ic.intra, bytes, n, after_gap, idle_s);
  double extra = 0;
  if (after_gap) {
    extra = gap_extra_time(ic.intra, bytes, n);
    if (ic.inter && nodes > 1) extra = std::max(extra, gap_extra_time(*ic.inter, bytes, n));
  }
  if (nodes <= 1 || !ic.inter) return extra + 2.0 * (n - 1) * (ic.intra.latency_s + bytes / ic.intra.bandwidth_Bps);
  const LinkModel& net = *ic.inter;
  const int nics = ic.nics_per_node > 0 ? ic.nics_per_node : per_node;
  if (s == AllreduceMode::Ps) {
    // Rank 0's node: (n-1) buffers through its NICs (the (per_node-1) local ones cross the intra link).
    const double bw = std::min(ic.intra.bandwidth_Bps, nics * net.bandwidth_Bps);
    return extra + 2.0 * (n - 1) * (std::max(ic.intra.latency_s, net.latency_s) + bytes / bw);
  }
  const double bw = std::min(ic.intra.bandwidth_Bps, nics * net.bandwidth_Bps);
  const int inter_steps = 2 * (nodes - 1), steps = 2 * (n - 1);
  return extra + (steps - inter_steps) * ic.intra.latency_s + inter_steps * net.latency_s +
         2.0 * (n - 1) / n * bytes / bw;
}

}  // namespace mg
