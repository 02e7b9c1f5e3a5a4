#include <chrono>
#include <cstdio>
#include <vector>
#include <cmath>
#include "backend/cpu/bn_kernels.h"
using namespace mg::cpu;
int main(int argc, char** argv) {
  const int64_t n = 16, c = atoi(argv[1]), hw = atoi(argv[2]) * atoi(argv[2]), rows = n * hw;
  const size_t sz = rows * c;
  std::vector<float> x(sz, 1.f), y(sz), dy(sz, 0.5f), dx(sz), mean(c, 0.1f), var(c, 1.f), scale(c, 1.f), shift(c, 0.1f), g(c), b(c);
  for (size_t i = 0; i < sz; ++i) x[i] = (i % 97) * 0.01f;
  std::vector<char> scr(bn::scratch_bytes(c, 2));
  bn::Scratch sc{scr.data(), 2};
  auto time = [&](const char* name, bn::Blocked bl) {
    double best[3] = {1e9, 1e9, 1e9};
    for (int rep = 0; rep < 7; ++rep) {
      auto t0 = std::chrono::steady_clock::now();
      bn::statistics(x.data(), rows, c, mean.data(), var.data(), sc, bl);
      auto t1 = std::chrono::steady_clock::now();
      bn::normalize(x.data(), y.data(), rows, c, mean.data(), scale.data(), shift.data(), true, nullptr, bl);
      auto t2 = std::chrono::steady_clock::now();
      bn::backward(x.data(), dy.data(), dx.data(), rows, c, mean.data(), scale.data(), var.data(), 1e-5f, scale.data(), shift.data(), true, g.data(), b.data(), sc, bl);
      auto t3 = std::chrono::steady_clock::now();
      double d[3] = {std::chrono::duration<double, std::milli>(t1 - t0).count(), std::chrono::duration<double, std::milli>(t2 - t1).count(), std::chrono::duration<double, std::milli>(t3 - t2).count()};
      for (int k = 0; k < 3; ++k) best[k] = std::min(best[k], d[k]);
    }
    printf("%-22s stats %6.2f  norm %6.2f  bwd %6.2f ms\n", name, best[0], best[1], best[2]);
  };
  for (int round = 0; round < 2; ++round) {
    time("nhwc", bn::Blocked{});
    time("x blk", bn::Blocked{hw, true, false, true, false});
    time("y blk (bn1)", bn::Blocked{hw, false, true, true, false});
    time("x blk (bn2)", bn::Blocked{hw, true, false, false, true});
    time("all blk", bn::Blocked{hw, true, true, true, true});
  }
}
