#include "comm/peer_monitor.h"

#include <algorithm>
#include <chrono>
#include <thread>

namespace mg {

PeerMonitor::PeerMonitor(int first_local_rank, int local_count, std::function<std::vector<int>()> lost_processes)
    : first_(first_local_rank),
      local_(local_count),
      lost_processes_(std::move(lost_processes)),
      seq_(new std::atomic<uint64_t>[local_count]),
      gone_(new std::atomic<bool>[local_count]) {
  for (int i = 0; i < local_count; ++i) {
    seq_[i].store(0);
    gone_[i].store(false);
  }
}

void PeerMonitor::entered(int rank, uint64_t seq) { seq_[rank - first_].store(seq); }

void PeerMonitor::left(int rank) { gone_[rank - first_].store(true); }

std::vector<int> PeerMonitor::lost(int rank, uint64_t seq, double settle_s) {
  std::vector<int> out;
  // A process that died is the firmer evidence: a replica of ours that has not reached this collective yet
  // may only be slow, so it is named only when no process is known to be gone.
  if (lost_processes_) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(settle_s);
    std::vector<int> procs;
    while (true) {
      procs = lost_processes_();
      if (!procs.empty() || std::chrono::steady_clock::now() >= deadline) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    for (int p : procs) {
      for (int i = 0; i < local_; ++i) out.push_back(p * local_ + i);
    }
  }
  if (out.empty()) {
    for (int i = 0; i < local_; ++i) {
      if (first_ + i == rank) continue;
      if (gone_[i].load() || seq_[i].load() < seq) out.push_back(first_ + i);
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::string describe_lost(const std::vector<int>& ranks) {
  std::string s = ranks.size() == 1 ? "rank " : "ranks ";
  for (size_t i = 0; i < ranks.size(); ++i) s += (i ? ", " : "") + std::to_string(ranks[i]);
  return s + " lost";
}

}  // namespace mg
