// Which ranks a failure is blamed on: dead processes first, then replicas of this process that never arrived.
#include <catch2/catch.hpp>

#include "comm/peer_monitor.h"

using namespace mg;

TEST_CASE("peer monitor names the ranks of a lost process, else the local replicas behind") {
  std::vector<int> dead;
  PeerMonitor m(2, 2, [&] { return dead; });  // this process holds ranks 2 and 3, two per process
  m.entered(2, 5);
  m.entered(3, 4);  // rank 3 has not reached collective 5
  CHECK(m.lost(2, 5, 0.0) == std::vector<int>{3});
  dead = {0};
  CHECK(m.lost(2, 5, 0.0) == std::vector<int>{0, 1});  // a dead process outranks a slow neighbour
  CHECK(describe_lost({0, 1}) == "ranks 0, 1 lost");
  CHECK(describe_lost({3}) == "rank 3 lost");
}

TEST_CASE("peer monitor: a departed replica is lost even if it had reached the collective") {
  PeerMonitor m(0, 3, nullptr);
  for (int r = 0; r < 3; ++r) m.entered(r, 7);
  CHECK(m.lost(0, 7, 0.0).empty());
  m.left(1);
  CHECK(m.lost(0, 7, 0.0) == std::vector<int>{1});
}
