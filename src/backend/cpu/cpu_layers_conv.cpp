// Convolution (stride, padding, groups incl. depthwise, optional bias) through oneDNN's direct convolution.
// Activations stay NHWC; weights are handed to oneDNN as format_tag::any so it picks its blocked JIT/brgemm
// layout, with the master OHWI copy reordered into it (see WeightedLayer).
#include "backend/cpu/cpu_layers.h"

namespace mg::cpu {

namespace {

class ConvLayer final : public WeightedLayer {
 public:
  ConvLayer(CpuBackend& be, const LayerDesc& d, const std::vector<Shape>& in, const LayerOptions& opt)
      : WeightedLayer(be, d, in, opt) {
    const ConvParams& c = d.conv;
    const Shape& x = in_shapes_[0];
    const int64_t g = c.groups, o = c.out_channels, ig = x.c() / g;

    // Canonical OHWI = {G, O/G, KH, KW, I/G} in memory, described with strides over oneDNN's (g)oihw dims.
    memory::dims wdims, wstrides;
    if (g > 1) {
      wdims = {g, o / g, ig, c.kh, c.kw};
      wstrides = {o / g * c.kh * c.kw * ig, c.kh * c.kw * ig, 1, c.kw * ig, ig};
    } else {
      wdims = {o, ig, c.kh, c.kw};
      wstrides = {c.kh * c.kw * ig, 1, c.kw * ig, ig};
    }
    const memory::desc canonical(wdims, DT::f32, wstrides);
    const DT adt = to_dnnl(dt_);
    const memory::desc src = act_desc(x, dt_), dst = act_desc(out_shape_, dt_);
    const memory::desc w_any(wdims, adt, Tag::any), dw_any(wdims, DT::f32, Tag::any);
    const memory::desc bias_md = c.bias ? memory::desc({o}, DT::f32, Tag::a) : memory::desc();
    const memory::dims strides{c.stride_h, c.stride_w}, pad{c.pad_h, c.pad_w};
    // oneDNN floors the output size like torch, so symmetric padding describes the same convolution.
    const memory::dims& pad_r = pad;
    const auto algo = dnnl::algorithm::convolution_direct;

    dnnl::convolution_forward::primitive_desc fwd;
    dnnl::convolution_backward_data::primitive_desc bwd_data;
    dnnl::convolution_backward_weights::primitive_desc bwd_w;
    MG_CHECK_DNNL(fwd = dnnl::convolution_forward::primitive_desc(
                      dnnl::convolution_forward::desc(dnnl::prop_kind::forward_training, algo, src, w_any, bias_md,
                                                      dst, strides, pad, pad_r),
                      attr(), be.engine()));
    MG_CHECK_DNNL(bwd_data = dnnl::convolution_backward_data::primitive_desc(
                      dnnl::convolution_backward_data::desc(algo, src, w_any, dst, strides, pad, pad_r), attr(),
                      be.engine(), fwd));
    MG_CHECK_DNNL(bwd_w = dnnl::convolution_backward_weights::primitive_desc(
                      dnnl::convolution_backward_weights::desc(algo, src, dw_any, bias_md, dst, strides, pad, pad_r),
                      attr(), be.engine(), fwd));
    build(fwd, bwd_data, bwd_w, canonical, src, dst, c.bias ? o : 0);
  }
};

}  // namespace

LayerRows<CpuBackend> conv_layers() { return {layer_row<ConvLayer, CpuBackend>(LayerKind::Conv)}; }

}  // namespace mg::cpu
