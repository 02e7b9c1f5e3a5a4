// Helpers for the CPU layer tests: a layer with host-vector storage, random data, finite differences.
#pragma once
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "backend/cpu/bn_kernels.h"
#include "backend/cpu/cpu_backend.h"
#include "check/host_values.h"
#include "check/layer_check.h"
#include "core/counter_rng.h"
#include "core/error.h"
#include "core/half.h"

namespace mgtest {

using namespace mg;

using check::random_vec;  // the values mgbench check and the GPU tests hold layers to
using check::rel_err;     // the norm-wise error they are held to

inline CpuBackend& backend() {
  static CpuBackend be(0, BackendOptions{});
  return be;
}

inline LayerDesc make_desc(LayerKind k, const std::string& name = "t") {
  LayerDesc d;
  d.kind = k;
  d.name = name;
  return d;
}

// A layer plus fp32 host storage for its inputs, output, parameters and gradients (CPU "device" memory is host
// memory, so plain vectors work). Activations are kept as fp32 here and converted when the layer runs bf16.
struct LayerRig {
  std::unique_ptr<LayerOp> op;
  DType dt = DType::F32;
  std::vector<Shape> in_shapes;
  std::vector<std::vector<float>> x, dx;       // fp32 views of inputs and input gradients
  std::vector<std::vector<float>> p, g;        // parameters and their gradients
  std::vector<float> y;                        // output
  std::vector<std::vector<uint16_t>> x16, dx16;
  std::vector<uint16_t> y16, dy16;

  // relu: the layer's fused ReLU (LayerOptions::relu; BatchNorm and Add).
  LayerRig(const LayerDesc& d, std::vector<Shape> shapes, Precision prec = Precision::FP32, uint64_t seed = 1,
           CpuBackend* on = nullptr, bool relu = false)
      : in_shapes(std::move(shapes)) {
    LayerOptions opt;
    opt.precision = prec;
    opt.seed = seed;
    opt.relu = relu;
    dt = prec == Precision::BF16 ? DType::BF16 : DType::F32;
    op = (on ? *on : backend()).create_layer(d, in_shapes, opt);
    uint64_t s = seed * 1000;
    for (const Shape& sh : in_shapes) {
      x.push_back(random_vec(static_cast<size_t>(sh.numel()), ++s));
      dx.emplace_back(static_cast<size_t>(sh.numel()), 0.f);
    }
    for (const ParamShape& ps : op->params()) {
      p.push_back(random_vec(static_cast<size_t>(ps.shape.numel()), ++s, -0.5f, 0.5f));
      g.emplace_back(static_cast<size_t>(ps.shape.numel()), 0.f);
    }
    y.assign(static_cast<size_t>(op->output_shape().numel()), 0.f);
    std::vector<float*> pp, gg;
    for (size_t i = 0; i < p.size(); ++i) {
      pp.push_back(p[i].data());
      gg.push_back(g[i].data());
    }
    op->bind(pp, gg);
  }

  std::vector<Tensor> in_tensors() {
    std::vector<Tensor> t;
    x16.resize(x.size());
    for (size_t i = 0; i < x.size(); ++i) {
      if (dt == DType::BF16) {
        x16[i].resize(x[i].size());
        for (size_t j = 0; j < x[i].size(); ++j) x16[i][j] = float_to_bf16(x[i][j]);
        t.push_back(Tensor{x16[i].data(), in_shapes[i], dt});
      } else {
        t.push_back(Tensor{x[i].data(), in_shapes[i], dt});
      }
    }
    return t;
  }
  Tensor out_tensor() {
    if (dt == DType::BF16) {
      y16.resize(y.size());
      return Tensor{y16.data(), op->output_shape(), dt};
    }
    return Tensor{y.data(), op->output_shape(), dt};
  }

  const std::vector<float>& forward(bool training = true) {
    auto in = in_tensors();
    Tensor out = out_tensor();
    op->forward(in, out, training);
    if (dt == DType::BF16) {
      for (size_t j = 0; j < y.size(); ++j) y[j] = bf16_to_float(y16[j]);
    }
    return y;
  }

  // Backward with the given dout; need[i] false passes a null din for input i.
  void backward(const std::vector<float>& dy, bool accumulate = false, std::vector<bool> need = {}) {
    auto in = in_tensors();
    Tensor out = out_tensor();
    Tensor dout{const_cast<float*>(dy.data()), op->output_shape(), dt};
    if (dt == DType::BF16) {
      dy16.resize(dy.size());
      for (size_t j = 0; j < dy.size(); ++j) dy16[j] = float_to_bf16(dy[j]);
      dout.data = dy16.data();
    }
    std::vector<Tensor> din;
    dx16.resize(x.size());
    for (size_t i = 0; i < x.size(); ++i) {
      const bool want = need.empty() || need[i];
      void* ptr = dx[i].data();
      if (dt == DType::BF16) {
        dx16[i].assign(dx[i].size(), 0);
        ptr = dx16[i].data();
      }
      din.push_back(Tensor{want ? ptr : nullptr, in_shapes[i], dt});
    }
    op->backward(in, out, dout, din, accumulate);
    if (dt == DType::BF16) {
      for (size_t i = 0; i < x.size(); ++i) {
        for (size_t j = 0; j < dx[i].size(); ++j) dx[i][j] = bf16_to_float(dx16[i][j]);
      }
    }
  }

  double loss(const std::vector<float>& r) {
    const auto& out = forward(true);
    double s = 0;
    for (size_t i = 0; i < out.size(); ++i) s += static_cast<double>(out[i]) * r[i];
    return s;
  }
};

// Checks input and parameter gradients of loss = sum(out * r) against central differences, on up to
// max_checks elements of each tensor (spread evenly). |fd - analytic| <= atol + rtol * |analytic|.
inline void check_gradients(LayerRig& rig, float h, double atol, double rtol, size_t max_checks = 60) {
  const std::vector<float> r = random_vec(rig.y.size(), 777);
  rig.forward(true);
  rig.backward(r);
  auto check_tensor = [&](std::vector<float>& v, const std::vector<float>& analytic, const std::string& what) {
    const size_t n = v.size();
    const size_t step = std::max<size_t>(1, n / max_checks);
    for (size_t j = 0; j < n; j += step) {
      const float keep = v[j];
      v[j] = keep + h;
      const double lp = rig.loss(r);
      v[j] = keep - h;
      const double lm = rig.loss(r);
      v[j] = keep;
      const double fd = (lp - lm) / (2.0 * h);
      INFO(what << " element " << j << ": finite difference " << fd << " vs backward " << analytic[j]);
      CHECK(std::abs(fd - analytic[j]) <= atol + rtol * std::abs(analytic[j]));
    }
  };
  const auto dx = rig.dx;
  const auto g = rig.g;
  for (size_t i = 0; i < rig.x.size(); ++i) check_tensor(rig.x[i], dx[i], "input " + std::to_string(i));
  for (size_t i = 0; i < rig.p.size(); ++i) check_tensor(rig.p[i], g[i], "param " + std::to_string(i));
}

// A CPU backend (device 0) whose convolutions run `algo`.
inline CpuBackend conv_backend(CpuConvAlgo algo) {
  BackendOptions o;
  o.cpu_conv_algo = algo;
  return CpuBackend(0, o);
}

// One convolution of the conv tests: input shape, out channels, kernel, stride, padding, groups and bias.
struct ConvCase {
  Shape in;
  int64_t o, k, s, p, g;
  bool bias;
  LayerDesc desc() const { return conv_layer("conv", o, k, s, p, g, bias); }
  std::string label() const {
    return "input " + in.str() + " out " + std::to_string(o) + " k" + std::to_string(k) + " s" + std::to_string(s) +
           " p" + std::to_string(p) + " g" + std::to_string(g);
  }
};

inline double max_abs_diff(const std::vector<float>& a, const std::vector<double>& b) {
  REQUIRE(a.size() == b.size());
  double m = 0;
  for (size_t i = 0; i < a.size(); ++i) m = std::max(m, std::abs(static_cast<double>(a[i]) - b[i]));
  return m;
}

// ---- plain-loop references over NHWC memory, in double

struct Nhwc {
  int64_t n, c, h, w;
  int64_t at(int64_t b, int64_t ch, int64_t y, int64_t x) const { return ((b * h + y) * w + x) * c + ch; }
};

inline std::vector<double> conv_ref(const std::vector<float>& x, Nhwc xs, const std::vector<float>& wt,
                                    const float* bias, const ConvParams& c, Nhwc ys) {
  std::vector<double> y(static_cast<size_t>(ys.n * ys.c * ys.h * ys.w), 0.0);
  const int64_t ig = xs.c / c.groups, og = c.out_channels / c.groups;
  for (int64_t b = 0; b < ys.n; ++b)
    for (int64_t o = 0; o < ys.c; ++o)
      for (int64_t oy = 0; oy < ys.h; ++oy)
        for (int64_t ox = 0; ox < ys.w; ++ox) {
          double s = bias ? bias[o] : 0.0;
          const int64_t grp = o / og;
          for (int64_t ky = 0; ky < c.kh; ++ky)
            for (int64_t kx = 0; kx < c.kw; ++kx) {
              const int64_t iy = oy * c.stride_h - c.pad_h + ky, ix = ox * c.stride_w - c.pad_w + kx;
              if (iy < 0 || iy >= xs.h || ix < 0 || ix >= xs.w) continue;
              for (int64_t i = 0; i < ig; ++i) {
                s += static_cast<double>(x[xs.at(b, grp * ig + i, iy, ix)]) *
                     wt[((o * c.kh + ky) * c.kw + kx) * ig + i];  // OHWI
              }
            }
          y[ys.at(b, o, oy, ox)] = s;
        }
  return y;
}

// Runs body(isa) once per instruction set fp32 batch norm has loops for on this CPU (bn_kernels.h), the best
// one restored afterwards, so the variants a user's CPU may pick run here too.
template <typename Body>
void for_each_bn_isa(Body body) {
  const std::vector<std::string> isas = cpu::bn::runnable_isas();
  struct Restore {
    std::string best;
    ~Restore() { cpu::bn::use_isa(best); }
  } restore{isas.front()};
  for (const std::string& isa : isas) {
    INFO("batch norm loops: " << isa);
    cpu::bn::use_isa(isa);
    body(isa);
  }
}

}  // namespace mgtest
