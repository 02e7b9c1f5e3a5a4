// Shapes and non-owning tensor views shared by models, backends and the trainer.
//
// Layout contract (both backends): 4-D activations are stored NHWC in memory while Shape lists them in the
// logical order {N, C, H, W}; 2-D tensors are {N, F} row-major. NHWC is what tensor-core cuDNN kernels and
// oneDNN's nhwc JIT kernels run fastest on, and one layout for both lets tests compare backends directly.
// Parameter tensors are flat fp32 arrays in a layout each backend documents (see LayerOp::params()).
#pragma once
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "core/dtype.h"

namespace mg {

struct Shape {
  std::vector<int64_t> dims;

  Shape() = default;
  Shape(std::initializer_list<int64_t> d) : dims(d) {}
  explicit Shape(std::vector<int64_t> d) : dims(std::move(d)) {}

  size_t rank() const { return dims.size(); }
  int64_t operator[](size_t i) const { return dims[i]; }
  int64_t numel() const {
    return std::accumulate(dims.begin(), dims.end(), int64_t{1}, [](int64_t a, int64_t b) { return a * b; });
  }
  // For 4-D {N,C,H,W}; 2-D {N,F} reads as C=F, H=W=1.
  int64_t n() const { return dims.empty() ? 0 : dims[0]; }
  int64_t c() const { return dims.size() > 1 ? dims[1] : 1; }
  int64_t h() const { return dims.size() > 2 ? dims[2] : 1; }
  int64_t w() const { return dims.size() > 3 ? dims[3] : 1; }
  bool operator==(const Shape& o) const { return dims == o.dims; }
  bool operator!=(const Shape& o) const { return dims != o.dims; }
  std::string str() const {
    std::string s = "[";
    for (size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + std::to_string(dims[i]);
    return s + "]";
  }
};

// A view of memory owned elsewhere (a backend allocation). data may be device memory.
struct Tensor {
  void* data = nullptr;
  Shape shape;
  DType dtype = DType::F32;

  int64_t numel() const { return shape.numel(); }
  size_t bytes() const { return static_cast<size_t>(numel()) * dtype_size(dtype); }
  template <typename T>
  T* as() const { return static_cast<T*>(data); }
};

}  // namespace mg
