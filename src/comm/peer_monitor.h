// Answers "which rank is gone?" after a collective failed, so errors name the lost rank instead of a socket.
// Two sources of evidence: replicas of this process record each collective they enter (a replica that never
// entered the failed one is the one missing), and for multi-process worlds the rendezvous store reports
// processes that dropped their connection without a goodbye (killed, crashed).
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace mg {

class PeerMonitor {
 public:
  // Ranks first_local_rank .. +local_count-1 live in this process; every process drives local_count ranks.
  // lost_processes may be empty (single process).
  PeerMonitor(int first_local_rank, int local_count, std::function<std::vector<int>()> lost_processes);

  void entered(int rank, uint64_t seq);  // rank started its collective number seq
  void left(int rank);                   // rank's communicator is gone (destroyed or aborted)
  // Ranks believed lost when `rank` failed in collective seq; waits up to settle_s for a dead process to be
  // noticed by the store, since its sockets may close a moment after ours reported the failure.
  std::vector<int> lost(int rank, uint64_t seq, double settle_s);

 private:
  int first_, local_;
  std::function<std::vector<int>()> lost_processes_;
  std::unique_ptr<std::atomic<uint64_t>[]> seq_;
  std::unique_ptr<std::atomic<bool>[]> gone_;
};

// "rank 1 lost" / "ranks 2, 3 lost".
std::string describe_lost(const std::vector<int>& ranks);

}  // namespace mg
