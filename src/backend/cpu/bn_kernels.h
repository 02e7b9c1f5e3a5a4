// fp32 batch normalization over NHWC activations, our own loops rather than oneDNN's primitive: these passes are
// memory-bound, and on the development VM oneDNN 2.6's NHWC batch norm took about twice as long as these loops
// on one tensor and, inside a ResNet-50 step, 245 ms against 208 (results/cpu/2026-11-27-resnet50-b16-bn/).
// Used by the CPU batch-norm layer for fp32; bf16 keeps oneDNN's primitive.
//
// A tensor is `rows` x `c` floats (rows = N*H*W). Each call parallelises over rows with OpenMP on the calling
// thread's team (CpuBackend::attach_thread set its size) and runs to completion. Sums accumulate in fp32 over
// short runs of rows and in double beyond, so a channel of millions of values loses no precision to order; the
// statistics sum about a shift, the mean of the first rows, so the variance does not cancel against the mean.
//
// The input is centred before it is scaled, as oneDNN does: folding the mean into the shift would cancel
// catastrophically when the mean is large against the spread. The fused ReLU keeps no mask: backward recomputes
// (x - mean) * scale + shift > 0 from the same input and the same per-channel values the forward used, in the
// same arithmetic (this file is built without FMA contraction), so it gates exactly the elements the forward
// zeroed.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace mg::cpu::bn {

// The loops are compiled for several instruction sets (baseline, avx2, avx512) and the best this CPU runs is
// used. Tests run every variant the machine can (runnable_isas, best first; use_isa picks one, between calls,
// for all later calls), so a user's CPU without AVX-512 runs loops the suite has run too.
std::vector<std::string> runnable_isas();
std::string current_isa();
void use_isa(const std::string& isa);

// Room for the per-thread partial sums and per-channel values of one call, carved from caller-provided memory
// (the CPU layer gives the replica's shared scratchpad, so it counts towards peak memory and no call
// allocates). A call runs on at most `threads` threads, whatever the calling team's size.
struct Scratch {
  void* p = nullptr;
  int threads = 1;
};
size_t scratch_bytes(int64_t c, int threads);

// mean[c] and biased var[c] over the rows.
void statistics(const float* x, int64_t rows, int64_t c, float* mean, float* var, Scratch scratch);

// y = (x - mean[c]) * scale[c] + shift[c], plus residual (same layout as x) unless it is null, then max(y, 0)
// with relu. y may be the same storage as x or as residual.
void normalize(const float* x, float* y, int64_t rows, int64_t c, const float* mean, const float* scale,
               const float* shift, bool relu, const float* residual = nullptr);

// What the training backward reads and writes: the forward's input x, batch mean and biased variance, the
// per-channel scale = gamma / sqrt(var + eps) and shift = beta that normalize() applied, and dy, the gradient of
// the layer's output (of the ReLU's output with relu). x, dy and dx are distinct.
struct BackwardArgs {
  const float* x = nullptr;
  const float* dy = nullptr;
  float* dx = nullptr;  // null: no input gradient
  int64_t rows = 0, c = 0;
  const float* mean = nullptr;
  const float* var = nullptr;
  const float* gamma = nullptr;
  float eps = 0.f;
  const float* scale = nullptr;
  const float* shift = nullptr;
  bool relu = false;
  float* dgamma = nullptr;
  float* dbeta = nullptr;
  Scratch scratch;
};

// Writes dgamma, dbeta and, unless dx is null, dx.
void backward(const BackwardArgs& a);

}  // namespace mg::cpu::bn
