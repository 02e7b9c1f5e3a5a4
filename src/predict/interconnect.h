// Where the gradients travel in a prediction: GPUs of one node on one link, nodes joined by another, and the cost
// of one gradient all-reduce on it for each all-reduce mode.
#pragma once
#include <optional>
#include <string>

#include "predict/link_model.h"
#include "result/run_config.h"

namespace mg {

struct Interconnect {
  LinkModel intra;                  // between the GPUs of one node
  std::optional<LinkModel> inter;   // between nodes (per NIC); none: every GPU is in one node
  int gpus_per_node = 0;            // 0: all GPUs in one node
  int nics_per_node = 0;            // NICs (rails) per node; 0: one per GPU, as on DGX/HGX systems
  std::string label() const;        // "nvlink4" or "nvlink4+ib-ndr"
};

// Seconds for one all-reduce of `bytes` (wire bytes per rank) over n ranks.
//  ring, one node: 2(n-1) latency terms + 2(n-1)/n * bytes / bw (or the measured curve).
//  ring, several nodes (NCCL's ring: one ring through every GPU, entering and leaving each node once per
//   channel, one channel per NIC): 2(n-nodes) intra-node and 2(nodes-1) inter-node latency terms (the split
//   NCCL's tuning model uses) + 2(n-1)/n * bytes / min(intra bw, NICs x NIC bw).
//  ps (reduce to rank 0, then broadcast from it, every other rank talking to rank 0 directly): rank 0's link
//   carries (n-1) buffers in and (n-1) out: 2(n-1) (latency + bytes / bw) on the slowest link on the way.
//  none: 0.
// after_gap: issued onto an idle comm stream after compute. A ring within one node reads the link's gap curve
// (LinkModel::gap_curve) where it has one; the other cases add what the gap costs on the measured link (the
// larger of the two links' gap_extra_time): the cost of waking the threads that carry a collective is the
// host's, whatever the path. idle_s: how long the link carried nothing before it (a transport=gloo-tcp ring
// prices TCP's window restart from it; the other forms ignore it).
double allreduce_time(const Interconnect& ic, AllreduceMode s, double bytes, int n, bool after_gap = false,
                      double idle_s = 0);

}  // namespace mg
