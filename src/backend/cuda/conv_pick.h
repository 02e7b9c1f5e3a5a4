// Which cuDNN algorithm result a convolution pass runs, as a pure function, so the rules are tested without a GPU.
#pragma once

#include <cstddef>
#include <vector>

namespace mg::cuda {

// The math a result was timed (or predicted) under, as far as the choice needs it.
enum class ConvMath { Default, TensorOp, Fma };

struct ConvCandidate {
  int algo = 0;
  bool ok = false;  // cuDNN's status for this result was CUDNN_STATUS_SUCCESS
  ConvMath math = ConvMath::Default;
  size_t workspace = 0;
  float ms = -1.0f;  // Find's time; heuristics give -1
};

enum class ConvReject { None, Failed, TensorOp, TimedWithTf32, Workspace };

inline const char* conv_reject_name(ConvReject r) {
  switch (r) {
    case ConvReject::None: return "usable";
    case ConvReject::Failed: return "failed";
    case ConvReject::TensorOp: return "tensor-op math";
    case ConvReject::TimedWithTf32: return "timed with TF32";
    case ConvReject::Workspace: return "over the workspace limit";
  }
  return "?";
}

// Why result i may not run (ConvReject::None: it may).
inline ConvReject conv_reject(const std::vector<ConvCandidate>& c, size_t i, bool fp32_strict,
                              size_t workspace_limit) {
  const ConvCandidate& r = c[i];
  if (!r.ok) return ConvReject::Failed;
  if (fp32_strict && r.math == ConvMath::TensorOp) return ConvReject::TensorOp;
  // Find retries FMA-capable algorithms under DEFAULT math, TF32 for fp32 tensors: that time is not what fp32 runs.
  if (fp32_strict && r.math == ConvMath::Default) {
    for (const ConvCandidate& o : c)
      if (o.algo == r.algo && o.math == ConvMath::Fma) return ConvReject::TimedWithTf32;
  }
  if (r.workspace > workspace_limit) return ConvReject::Workspace;
  return ConvReject::None;
}

// The first usable result (cuDNN sorts them fastest first), or -1.
inline int pick_conv_candidate(const std::vector<ConvCandidate>& c, bool fp32_strict, size_t workspace_limit) {
  for (size_t i = 0; i < c.size(); ++i)
    if (conv_reject(c, i, fp32_strict, workspace_limit) == ConvReject::None) return static_cast<int>(i);
  return -1;
}

}  // namespace mg::cuda
