// Fully connected layer through oneDNN's inner product. A 4-D input is read as {N, H*W*C}: its NHWC memory
// flattened, which is what Flatten produces, so the weight's input order follows NHWC either way; a 3-D {N,T,C}
// input is N*T rows of C features ({N,T,C} -> {N,T,O}, as torch's Linear on the last dimension).
#include "backend/cpu/cpu_layers.h"

namespace mg::cpu {

namespace {

class LinearLayer final : public WeightedLayer {
 public:
  explicit LinearLayer(const CpuLayerArgs& args) : WeightedLayer(args) {
    const LinearParams& l = desc_.linear;
    // A 4-D input is read as its flattened memory (the weight's shape says how many features), a 3-D {N,T,C}
    // one as N*T rows.
    const int64_t o = l.out_features, n = out_shape_.numel() / o, f = param_shapes_[0].shape[1];

    const DT adt = to_dnnl(dt_);
    const memory::desc src({n, f}, adt, Tag::nc), dst({n, o}, adt, Tag::nc);
    const memory::desc canonical({o, f}, DT::f32, Tag::oi);
    const memory::desc w_any({o, f}, adt, Tag::any), dw_any({o, f}, DT::f32, Tag::any);
    const memory::desc bias_md = l.bias ? memory::desc({o}, DT::f32, Tag::a) : memory::desc();

    dnnl::inner_product_forward::primitive_desc fwd;
    dnnl::inner_product_backward_data::primitive_desc bwd_data;
    dnnl::inner_product_backward_weights::primitive_desc bwd_w;
    MG_CHECK_DNNL(fwd = dnnl::inner_product_forward::primitive_desc(
                      dnnl::inner_product_forward::desc(dnnl::prop_kind::forward_training, src, w_any, bias_md, dst),
                      attr(), be_.engine()));
    MG_CHECK_DNNL(bwd_data = dnnl::inner_product_backward_data::primitive_desc(
                      dnnl::inner_product_backward_data::desc(src, w_any, dst), attr(), be_.engine(), fwd));
    MG_CHECK_DNNL(bwd_w = dnnl::inner_product_backward_weights::primitive_desc(
                      dnnl::inner_product_backward_weights::desc(src, dw_any, bias_md, dst), attr(), be_.engine(),
                      fwd));
    build(fwd, bwd_data, bwd_w, canonical, src, dst, l.bias ? o : 0);
  }
};

}  // namespace

LayerRows<CpuBackend> linear_layers() { return {layer_row<LinearLayer, CpuBackend>(LayerKind::Linear)}; }

}  // namespace mg::cpu
