#include "check/reference_layers.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "core/counter_rng.h"
#include "core/error.h"

namespace mg::check {

namespace {

using D = std::vector<double>;

Vec to_float(const D& v) { return Vec(v.begin(), v.end()); }

// NHWC index of logical (n, c, h, w).
struct Nhwc {
  int64_t C, H, W;
  explicit Nhwc(const Shape& s) : C(s.c()), H(s.h()), W(s.w()) {}
  int64_t operator()(int64_t n, int64_t c, int64_t h, int64_t w) const { return ((n * H + h) * W + w) * C + c; }
};

ReferenceRun conv(const LayerDesc& d, const Shape& xs, const Shape& ys, const Vec& x, const std::vector<Vec>& p,
                  const Vec& dy) {
  const ConvParams& c = d.conv;
  const int64_t N = xs.n(), O = ys.c(), G = c.groups, IG = xs.c() / G, OG = O / G;
  const Nhwc xi(xs), yi(ys);
  const Vec& w = p[0];
  auto widx = [&](int64_t o, int64_t kh, int64_t kw, int64_t ci) { return ((o * c.kh + kh) * c.kw + kw) * IG + ci; };
  D y(static_cast<size_t>(ys.numel())), dx(x.size()), dw(w.size()), db(static_cast<size_t>(O));
  for (int64_t n = 0; n < N; ++n)
    for (int64_t oh = 0; oh < ys.h(); ++oh)
      for (int64_t ow = 0; ow < ys.w(); ++ow)
        for (int64_t o = 0; o < O; ++o) {
          const int64_t g = o / OG;
          const size_t yk = static_cast<size_t>(yi(n, o, oh, ow));
          double acc = c.bias ? p[1][static_cast<size_t>(o)] : 0.0;
          const double gy = dy[yk];
          db[static_cast<size_t>(o)] += gy;
          for (int64_t kh = 0; kh < c.kh; ++kh) {
            const int64_t ih = oh * c.stride_h - c.pad_h + kh;
            if (ih < 0 || ih >= xs.h()) continue;
            for (int64_t kw = 0; kw < c.kw; ++kw) {
              const int64_t iw = ow * c.stride_w - c.pad_w + kw;
              if (iw < 0 || iw >= xs.w()) continue;
              for (int64_t ci = 0; ci < IG; ++ci) {
                const size_t xk = static_cast<size_t>(xi(n, g * IG + ci, ih, iw));
                const size_t wk = static_cast<size_t>(widx(o, kh, kw, ci));
                acc += static_cast<double>(x[xk]) * w[wk];
                dx[xk] += gy * w[wk];
                dw[wk] += gy * x[xk];
              }
            }
          }
          y[yk] = acc;
        }
  ReferenceRun r;
  r.out = to_float(y);
  r.out_inference = r.out;
  r.din = {to_float(dx)};
  r.dparams = {to_float(dw)};
  if (c.bias) r.dparams.push_back(to_float(db));
  return r;
}

ReferenceRun linear(const LayerDesc& d, const Shape& xs, const Vec& x, const std::vector<Vec>& p, const Vec& dy) {
  // Rows: N samples, or N*T tokens of a 3-D input.
  const int64_t F = xs.rank() == 3 ? xs[2] : xs.numel() / xs.n(), N = xs.numel() / F, O = d.linear.out_features;
  const Vec& w = p[0];
  D y(static_cast<size_t>(N * O)), dx(x.size()), dw(w.size()), db(static_cast<size_t>(O));
  for (int64_t n = 0; n < N; ++n)
    for (int64_t o = 0; o < O; ++o) {
      double acc = d.linear.bias ? p[1][static_cast<size_t>(o)] : 0.0;
      const double gy = dy[static_cast<size_t>(n * O + o)];
      db[static_cast<size_t>(o)] += gy;
      for (int64_t f = 0; f < F; ++f) {
        const size_t xk = static_cast<size_t>(n * F + f), wk = static_cast<size_t>(o * F + f);
        acc += static_cast<double>(x[xk]) * w[wk];
        dx[xk] += gy * w[wk];
        dw[wk] += gy * x[xk];
      }
      y[static_cast<size_t>(n * O + o)] = acc;
    }
  ReferenceRun r;
  r.out = to_float(y);
  r.out_inference = r.out;
  r.din = {to_float(dx)};
  r.dparams = {to_float(dw)};
  if (d.linear.bias) r.dparams.push_back(to_float(db));
  return r;
}

ReferenceRun batchnorm(const LayerDesc& d, const Shape& xs, const Vec& x, const std::vector<Vec>& p, const Vec& dy) {
  const int64_t C = xs.c(), M = xs.numel() / C;  // NHWC: channel is the fastest index
  const double eps = d.bn.eps, mom = d.bn.momentum;
  D y(x.size()), yi(x.size()), dx(x.size()), dg(static_cast<size_t>(C)), dbeta(static_cast<size_t>(C));
  for (int64_t c = 0; c < C; ++c) {
    double mean = 0, var = 0;
    for (int64_t m = 0; m < M; ++m) mean += x[static_cast<size_t>(m * C + c)];
    mean /= static_cast<double>(M);
    for (int64_t m = 0; m < M; ++m) {
      const double t = x[static_cast<size_t>(m * C + c)] - mean;
      var += t * t;
    }
    var /= static_cast<double>(M);
    const double inv = 1.0 / std::sqrt(var + eps), g = p[0][static_cast<size_t>(c)], b = p[1][static_cast<size_t>(c)];
    // Running statistics start at 0 and 1; one training forward moves them by the momentum.
    const double rmean = mom * mean;
    const double rvar = (1 - mom) + mom * var * static_cast<double>(M) / static_cast<double>(std::max<int64_t>(M - 1, 1));
    double sdy = 0, sdyx = 0;
    for (int64_t m = 0; m < M; ++m) {
      const size_t k = static_cast<size_t>(m * C + c);
      const double xh = (x[k] - mean) * inv;
      y[k] = g * xh + b;
      yi[k] = g * (x[k] - rmean) / std::sqrt(rvar + eps) + b;
      sdy += dy[k];
      sdyx += dy[k] * xh;
    }
    dg[static_cast<size_t>(c)] = sdyx;
    dbeta[static_cast<size_t>(c)] = sdy;
    for (int64_t m = 0; m < M; ++m) {
      const size_t k = static_cast<size_t>(m * C + c);
      const double xh = (x[k] - mean) * inv;
      dx[k] = g * inv * (dy[k] - sdy / static_cast<double>(M) - xh * sdyx / static_cast<double>(M));
    }
  }
  ReferenceRun r;
  r.out = to_float(y);
  r.out_inference = to_float(yi);
  r.din = {to_float(dx)};
  r.dparams = {to_float(dg), to_float(dbeta)};
  return r;
}

ReferenceRun pool(const LayerDesc& d, const Shape& xs, const Shape& ys, const Vec& x, const Vec& dy) {
  const PoolParams& q = d.pool;
  const bool is_max = d.kind == LayerKind::MaxPool;
  const Nhwc xi(xs), yi(ys);
  D y(static_cast<size_t>(ys.numel())), dx(x.size());
  for (int64_t n = 0; n < xs.n(); ++n)
    for (int64_t c = 0; c < xs.c(); ++c)
      for (int64_t oh = 0; oh < ys.h(); ++oh)
        for (int64_t ow = 0; ow < ys.w(); ++ow) {
          const int64_t hs = oh * q.stride_h - q.pad_h, ws = ow * q.stride_w - q.pad_w;
          // torch's count_include_pad divisor: the window clipped to the padded input, not to the input.
          const int64_t he = std::min(hs + q.kh, xs.h() + q.pad_h), we = std::min(ws + q.kw, xs.w() + q.pad_w);
          const double divisor = static_cast<double>((he - hs) * (we - ws));
          const size_t yk = static_cast<size_t>(yi(n, c, oh, ow));
          double best = -std::numeric_limits<double>::infinity(), sum = 0;
          size_t arg = 0;
          for (int64_t h = std::max<int64_t>(hs, 0); h < std::min(hs + q.kh, xs.h()); ++h)
            for (int64_t w = std::max<int64_t>(ws, 0); w < std::min(ws + q.kw, xs.w()); ++w) {
              const size_t xk = static_cast<size_t>(xi(n, c, h, w));
              sum += x[xk];
              if (x[xk] > best) {
                best = x[xk];
                arg = xk;
              }
            }
          if (is_max) {
            y[yk] = best;
            dx[arg] += dy[yk];
          } else {
            y[yk] = sum / divisor;
            for (int64_t h = std::max<int64_t>(hs, 0); h < std::min(hs + q.kh, xs.h()); ++h)
              for (int64_t w = std::max<int64_t>(ws, 0); w < std::min(ws + q.kw, xs.w()); ++w)
                dx[static_cast<size_t>(xi(n, c, h, w))] += dy[yk] / divisor;
          }
        }
  ReferenceRun r;
  r.out = to_float(y);
  r.out_inference = r.out;
  r.din = {to_float(dx)};
  return r;
}

ReferenceRun global_avg_pool(const Shape& xs, const Vec& x, const Vec& dy) {
  const int64_t C = xs.c(), HW = xs.h() * xs.w();
  D y(static_cast<size_t>(xs.n() * C)), dx(x.size());
  for (int64_t n = 0; n < xs.n(); ++n)
    for (int64_t c = 0; c < C; ++c) {
      double s = 0;
      for (int64_t i = 0; i < HW; ++i) s += x[static_cast<size_t>((n * HW + i) * C + c)];
      y[static_cast<size_t>(n * C + c)] = s / static_cast<double>(HW);
      for (int64_t i = 0; i < HW; ++i)
        dx[static_cast<size_t>((n * HW + i) * C + c)] = dy[static_cast<size_t>(n * C + c)] / static_cast<double>(HW);
    }
  ReferenceRun r;
  r.out = to_float(y);
  r.out_inference = r.out;
  r.din = {to_float(dx)};
  return r;
}

ReferenceRun concat(const std::vector<Shape>& shapes, const std::vector<Vec>& in, const Vec& dy) {
  int64_t C = 0;
  for (const Shape& s : shapes) C += s.c();
  const int64_t pixels = shapes[0].n() * shapes[0].h() * shapes[0].w();
  ReferenceRun r;
  r.out.resize(static_cast<size_t>(pixels * C));
  int64_t off = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    const int64_t ci = shapes[i].c();
    Vec din(in[i].size());
    for (int64_t px = 0; px < pixels; ++px)
      for (int64_t c = 0; c < ci; ++c) {
        r.out[static_cast<size_t>(px * C + off + c)] = in[i][static_cast<size_t>(px * ci + c)];
        din[static_cast<size_t>(px * ci + c)] = dy[static_cast<size_t>(px * C + off + c)];
      }
    r.din.push_back(std::move(din));
    off += ci;
  }
  r.out_inference = r.out;
  return r;
}

ReferenceRun done(D y, std::vector<D> din, std::vector<D> dparams) {
  ReferenceRun r;
  r.out = to_float(y);
  r.out_inference = r.out;
  for (const D& v : din) r.din.push_back(to_float(v));
  for (const D& v : dparams) r.dparams.push_back(to_float(v));
  return r;
}

// ids arrive as floats holding integers; the ids get no gradient.
ReferenceRun embedding(const LayerDesc& d, const Shape& xs, const Vec& ids, const std::vector<Vec>& p, const Vec& dy) {
  const int64_t N = xs[0], T = xs[1], C = d.embedding.dim;
  D y(static_cast<size_t>(N * T * C)), dwte(p[0].size()), dwpe(p[1].size());
  for (int64_t n = 0; n < N; ++n)
    for (int64_t t = 0; t < T; ++t) {
      const int64_t id = static_cast<int64_t>(ids[static_cast<size_t>(n * T + t)]);
      for (int64_t c = 0; c < C; ++c) {
        const size_t k = static_cast<size_t>((n * T + t) * C + c);
        y[k] = static_cast<double>(p[0][static_cast<size_t>(id * C + c)]) + p[1][static_cast<size_t>(t * C + c)];
        dwte[static_cast<size_t>(id * C + c)] += dy[k];
        dwpe[static_cast<size_t>(t * C + c)] += dy[k];
      }
    }
  return done(y, {}, {dwte, dwpe});
}

ReferenceRun layernorm(const LayerDesc& d, const Shape& xs, const Vec& x, const std::vector<Vec>& p, const Vec& dy) {
  const int64_t C = xs.dims.back(), R = xs.numel() / C;
  D y(x.size()), dx(x.size()), dg(static_cast<size_t>(C)), db(static_cast<size_t>(C));
  for (int64_t r = 0; r < R; ++r) {
    auto at = [&](int64_t c) { return static_cast<size_t>(r * C + c); };
    double mean = 0, var = 0;
    for (int64_t c = 0; c < C; ++c) mean += x[at(c)];
    mean /= static_cast<double>(C);
    for (int64_t c = 0; c < C; ++c) var += (x[at(c)] - mean) * (x[at(c)] - mean);
    const double inv = 1.0 / std::sqrt(var / static_cast<double>(C) + d.ln.eps);
    double s1 = 0, s2 = 0;  // means of dxhat and dxhat * xhat
    for (int64_t c = 0; c < C; ++c) {
      const double xh = (x[at(c)] - mean) * inv, g = dy[at(c)] * static_cast<double>(p[0][static_cast<size_t>(c)]);
      y[at(c)] = xh * p[0][static_cast<size_t>(c)] + p[1][static_cast<size_t>(c)];
      dg[static_cast<size_t>(c)] += dy[at(c)] * xh;
      db[static_cast<size_t>(c)] += dy[at(c)];
      s1 += g / static_cast<double>(C);
      s2 += g * xh / static_cast<double>(C);
    }
    for (int64_t c = 0; c < C; ++c) {
      const double xh = (x[at(c)] - mean) * inv;
      dx[at(c)] = inv * (dy[at(c)] * static_cast<double>(p[0][static_cast<size_t>(c)]) - s1 - xh * s2);
    }
  }
  return done(y, {dx}, {dg, db});
}

ReferenceRun gelu(const LayerDesc& d, const Vec& x, const Vec& dy) {
  const double k = std::sqrt(2.0 / M_PI), a = 0.044715;
  D y(x.size()), dx(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const double v = x[i];
    if (d.gelu.tanh) {
      const double t = std::tanh(k * (v + a * v * v * v));
      y[i] = 0.5 * v * (1 + t);
      dx[i] = dy[i] * (0.5 * (1 + t) + 0.5 * v * (1 - t * t) * k * (1 + 3 * a * v * v));
    } else {
      const double cdf = 0.5 * (1 + std::erf(v / std::sqrt(2.0)));
      y[i] = v * cdf;
      dx[i] = dy[i] * (cdf + v * std::exp(-0.5 * v * v) / std::sqrt(2 * M_PI));
    }
  }
  return done(y, {dx}, {});
}

// out[n,0] = class + position[0], out[n,1+p] = patch[n,p] + position[1+p], over the {N,h*w,C} patch memory.
ReferenceRun patch_tokens(const LayerDesc& d, const Shape& xs, const Vec& x, const std::vector<Vec>& p, const Vec& dy) {
  const int64_t N = xs.n(), P = d.patch_tokens.patches, C = xs.c(), T = P + 1;
  D y(static_cast<size_t>(N * T * C)), dx(x.size()), dcls(p[0].size()), dpos(p[1].size());
  for (int64_t n = 0; n < N; ++n)
    for (int64_t t = 0; t < T; ++t)
      for (int64_t c = 0; c < C; ++c) {
        const size_t k = static_cast<size_t>((n * T + t) * C + c), pc = static_cast<size_t>(t * C + c);
        const size_t xi = static_cast<size_t>((n * P + t - 1) * C + c);
        y[k] = static_cast<double>(p[1][pc]) + (t == 0 ? p[0][static_cast<size_t>(c)] : x[xi]);
        dpos[pc] += dy[k];
        if (t == 0) dcls[static_cast<size_t>(c)] += dy[k];
        else dx[xi] = dy[k];
      }
  return done(y, {dx}, {dcls, dpos});
}

// out[n] = in[n,0]; the other tokens get no gradient.
ReferenceRun class_token(const Shape& xs, const Vec& x, const Vec& dy) {
  const int64_t N = xs[0], T = xs[1], C = xs[2];
  D y(static_cast<size_t>(N * C)), dx(x.size());
  for (int64_t n = 0; n < N; ++n)
    for (int64_t c = 0; c < C; ++c) {
      y[static_cast<size_t>(n * C + c)] = x[static_cast<size_t>(n * T * C + c)];
      dx[static_cast<size_t>(n * T * C + c)] = dy[static_cast<size_t>(n * C + c)];
    }
  return done(y, {dx}, {});
}

// Per sample and head: S = Q K^T / sqrt(d) (masked above the diagonal when causal), P = softmax(S), O = P V.
ReferenceRun attention(const LayerDesc& d, const Shape& xs, const Vec& x, const Vec& dy) {
  const int64_t N = xs[0], T = xs[1], C = xs[2] / 3, H = d.attention.heads, Dh = C / H;
  const double scale = 1.0 / std::sqrt(static_cast<double>(Dh));
  auto qkv = [&](int64_t n, int64_t t, int64_t which, int64_t h, int64_t j) {
    return static_cast<size_t>((n * T + t) * 3 * C + which * C + h * Dh + j);
  };
  auto o_at = [&](int64_t n, int64_t t, int64_t h, int64_t j) { return static_cast<size_t>((n * T + t) * C + h * Dh + j); };
  D y(static_cast<size_t>(N * T * C)), dx(x.size());
  for (int64_t n = 0; n < N; ++n)
    for (int64_t h = 0; h < H; ++h)
      for (int64_t i = 0; i < T; ++i) {
        const int64_t len = d.attention.causal ? i + 1 : T;
        D p(static_cast<size_t>(len)), dp(static_cast<size_t>(len));
        double mx = -INFINITY, sum = 0, dot = 0;
        for (int64_t j = 0; j < len; ++j) {
          double s = 0;
          for (int64_t e = 0; e < Dh; ++e) s += static_cast<double>(x[qkv(n, i, 0, h, e)]) * x[qkv(n, j, 1, h, e)];
          p[static_cast<size_t>(j)] = s * scale;
          mx = std::max(mx, s * scale);
        }
        for (double& v : p) sum += (v = std::exp(v - mx));
        for (double& v : p) v /= sum;
        for (int64_t j = 0; j < len; ++j)
          for (int64_t e = 0; e < Dh; ++e) {
            y[o_at(n, i, h, e)] += p[static_cast<size_t>(j)] * x[qkv(n, j, 2, h, e)];
            dp[static_cast<size_t>(j)] += static_cast<double>(dy[o_at(n, i, h, e)]) * x[qkv(n, j, 2, h, e)];
            dx[qkv(n, j, 2, h, e)] += p[static_cast<size_t>(j)] * dy[o_at(n, i, h, e)];
          }
        for (int64_t j = 0; j < len; ++j) dot += p[static_cast<size_t>(j)] * dp[static_cast<size_t>(j)];
        for (int64_t j = 0; j < len; ++j) {
          const double ds = p[static_cast<size_t>(j)] * (dp[static_cast<size_t>(j)] - dot) * scale;
          for (int64_t e = 0; e < Dh; ++e) {
            dx[qkv(n, i, 0, h, e)] += ds * x[qkv(n, j, 1, h, e)];
            dx[qkv(n, j, 1, h, e)] += ds * x[qkv(n, i, 0, h, e)];
          }
        }
      }
  return done(y, {dx}, {});
}

}  // namespace

ReferenceRun reference_layer(const LayerDesc& d, const std::vector<Shape>& shapes, const std::vector<Vec>& in,
                             const std::vector<Vec>& params, const Vec& dout, uint64_t seed) {
  check_layer_inputs(d, shapes.size());
  MG_ENSURE(in.size() == shapes.size(), "reference_layer: one input vector per shape");
  const Shape& xs = shapes[0];
  switch (d.kind) {
    case LayerKind::Conv: return conv(d, xs, layer_shapes(d, shapes).out, in[0], params, dout);
    case LayerKind::Linear: return linear(d, xs, in[0], params, dout);
    case LayerKind::BatchNorm: return batchnorm(d, xs, in[0], params, dout);
    case LayerKind::MaxPool:
    case LayerKind::AvgPool: return pool(d, xs, layer_shapes(d, shapes).out, in[0], dout);
    case LayerKind::GlobalAvgPool: return global_avg_pool(xs, in[0], dout);
    case LayerKind::Relu: {
      ReferenceRun r;
      r.out = in[0];
      Vec dx(in[0].size());
      for (size_t i = 0; i < in[0].size(); ++i) {
        r.out[i] = std::max(in[0][i], 0.0f);
        dx[i] = in[0][i] > 0 ? dout[i] : 0.0f;
      }
      r.out_inference = r.out;
      r.din = {dx};
      return r;
    }
    case LayerKind::Add: {
      ReferenceRun r;
      r.out.resize(in[0].size());
      for (size_t i = 0; i < in[0].size(); ++i) r.out[i] = static_cast<float>(double(in[0][i]) + in[1][i]);
      r.out_inference = r.out;
      r.din = {dout, dout};
      return r;
    }
    case LayerKind::Concat: return concat(shapes, in, dout);
    case LayerKind::Embedding: return embedding(d, xs, in[0], params, dout);
    case LayerKind::LayerNorm: return layernorm(d, xs, in[0], params, dout);
    case LayerKind::Gelu: return gelu(d, in[0], dout);
    case LayerKind::PatchTokens: return patch_tokens(d, xs, in[0], params, dout);
    case LayerKind::ClassToken: return class_token(xs, in[0], dout);
    case LayerKind::Attention: return attention(d, xs, in[0], dout);
    case LayerKind::TokenFlatten:
    case LayerKind::Flatten: {  // NHWC (and {N,T,V}) memory is already the flattened order
      ReferenceRun r;
      r.out = r.out_inference = in[0];
      r.din = {dout};
      return r;
    }
    case LayerKind::Dropout: {
      const float p = d.dropout.p;
      const double scale = 1.0 / (1.0 - p);
      const uint64_t stream = splitmix64(seed);  // the first training forward, as both backends draw it
      ReferenceRun r;
      r.out.resize(in[0].size());
      Vec dx(in[0].size());
      for (size_t i = 0; i < in[0].size(); ++i) {
        const bool keep = counter_uniform(stream, static_cast<uint64_t>(i)) >= p;
        r.out[i] = keep ? static_cast<float>(in[0][i] * scale) : 0.0f;
        dx[i] = keep ? static_cast<float>(dout[i] * scale) : 0.0f;
      }
      r.out_inference = in[0];
      r.din = {dx};
      return r;
    }
    default: break;
  }
  throw UsageError(std::string("no reference for layer kind ") + layer_kind_name(d.kind));
}

ReferenceXent reference_softmax_xent(const Vec& logits, const std::vector<int32_t>& targets, int64_t vocab,
                                     double grad_scale) {
  const int64_t rows = static_cast<int64_t>(targets.size());
  MG_ENSURE(rows > 0 && vocab > 0 && static_cast<int64_t>(logits.size()) == rows * vocab,
            "reference_softmax_xent: logits must be {targets, vocab}");
  D d(logits.size());
  double total = 0;
  for (int64_t r = 0; r < rows; ++r) {
    auto at = [&](int64_t j) { return static_cast<size_t>(r * vocab + j); };
    const int32_t y = targets[static_cast<size_t>(r)];
    MG_ENSURE(y >= 0 && y < vocab, "reference_softmax_xent: target " + std::to_string(y) + " outside the vocabulary");
    double mx = -INFINITY, sum = 0;
    for (int64_t j = 0; j < vocab; ++j) mx = std::max(mx, static_cast<double>(logits[at(j)]));
    for (int64_t j = 0; j < vocab; ++j) sum += std::exp(logits[at(j)] - mx);
    const double logz = mx + std::log(sum);
    total += logz - logits[at(y)];
    for (int64_t j = 0; j < vocab; ++j)
      d[at(j)] = grad_scale * (std::exp(logits[at(j)] - logz) - (j == y ? 1.0 : 0.0)) / static_cast<double>(rows);
  }
  return {static_cast<float>(total / static_cast<double>(rows)), to_float(d)};
}

ReferenceAdamW reference_adamw(const Vec& params, const Vec& grads, const Vec& m, const Vec& v, const AdamWStep& s) {
  const size_t n = params.size();
  MG_ENSURE(grads.size() == n && m.size() == n && v.size() == n,
            "reference_adamw: params, grads, m and v differ in size");
  MG_ENSURE(s.step >= 1, "reference_adamw: step counts from 1");
  const double b1 = s.beta1, b2 = s.beta2, lr = s.lr, steps = static_cast<double>(s.step);
  const double c1 = 1 - std::pow(b1, steps), c2 = 1 - std::pow(b2, steps);
  D p(n), mn(n), vn(n), delta(n);
  for (size_t i = 0; i < n; ++i) {
    const double g = static_cast<double>(grads[i]) * s.grad_scale;
    mn[i] = b1 * m[i] + (1 - b1) * g;
    vn[i] = b2 * v[i] + (1 - b2) * g * g;
    delta[i] = -lr * s.weight_decay * params[i] - lr * (mn[i] / c1) / (std::sqrt(vn[i] / c2) + s.eps);
    p[i] = params[i] + delta[i];
  }
  return {to_float(p), to_float(mn), to_float(vn), to_float(delta)};
}

}  // namespace mg::check
