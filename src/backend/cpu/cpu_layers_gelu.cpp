// GELU in its tanh form, as GPT-2 (and nanoGPT, llm.c) compute it, or, where the description asks (ViT), the
// exact form torch's nn.GELU() computes: oneDNN's eltwise gelu_tanh / gelu_erf, whose vector code computes the
// same formulas (backend/gelu_math.h) where a plain loop calls scalar tanhf and erff. Backward reads the input
// (never the output, so it may be overwritten).
#include "backend/cpu/cpu_layers.h"

namespace mg::cpu {

namespace {

class GeluLayer final : public CpuLayer {
 public:
  explicit GeluLayer(const CpuLayerArgs& args) : CpuLayer(args) {
    const memory::desc md = act_desc(out_shape_, dt_);
    const auto alg = desc_.gelu.tanh ? dnnl::algorithm::eltwise_gelu_tanh : dnnl::algorithm::eltwise_gelu_erf;
    MG_CHECK_DNNL(fwd_pd_ = dnnl::eltwise_forward::primitive_desc(
                      dnnl::eltwise_forward::desc(dnnl::prop_kind::forward_training, alg, md, 0.f, 0.f), attr(),
                      be_.engine()));
    fwd_ = primitive_of<dnnl::eltwise_forward>(fwd_pd_);
    if (opt_.backward) {
      MG_CHECK_DNNL(bwd_pd_ = dnnl::eltwise_backward::primitive_desc(
                        dnnl::eltwise_backward::desc(alg, md, md, 0.f, 0.f), attr(), be_.engine(), fwd_pd_));
      bwd_ = primitive_of<dnnl::eltwise_backward>(bwd_pd_);
    }
    allocate_scratch();
    x_ = mem(md);
    y_ = mem(md);
    dx_ = mem(md);
  }
  void forward(const std::vector<Tensor>& in, const Tensor& out, bool) override {
    check_io(in, out);
    set(x_, in[0].data);
    set(y_, out.data);
    run(fwd_, {{DNNL_ARG_SRC, x_}, {DNNL_ARG_DST, y_}});
  }
  void backward(const std::vector<Tensor>& in, const Tensor& out, const Tensor& dout,
                const std::vector<Tensor>& din, bool) override {
    check_io(in, out);
    if (!din[0].data) return;
    MG_ENSURE(opt_.backward, where() + "backward on a layer built for inference");
    set(x_, in[0].data);
    set(y_, dout.data);
    set(dx_, din[0].data);
    run(bwd_, {{DNNL_ARG_SRC, x_}, {DNNL_ARG_DIFF_DST, y_}, {DNNL_ARG_DIFF_SRC, dx_}});
  }

 private:
  dnnl::eltwise_forward::primitive_desc fwd_pd_;
  dnnl::eltwise_backward::primitive_desc bwd_pd_;
  dnnl::primitive fwd_, bwd_;
  dnnl::memory x_, y_, dx_;
};

}  // namespace

LayerRows<CpuBackend> gelu_layers() { return {layer_row<GeluLayer, CpuBackend>(LayerKind::Gelu)}; }

}  // namespace mg::cpu
