#include "backend/cpu/cpu_layers.h"

namespace mg::cpu {

EltwiseLayer::EltwiseLayer(const CpuLayerArgs& args, dnnl::algorithm alg, bool backward_reads_dst)
    : CpuLayer(args), from_dst_(backward_reads_dst) {
  const memory::desc md = act_desc(out_shape_, dt_);
  dnnl::eltwise_forward::primitive_desc fwd_pd;
  MG_CHECK_DNNL(fwd_pd = dnnl::eltwise_forward::primitive_desc(
                    dnnl::eltwise_forward::desc(dnnl::prop_kind::forward_training, alg, md, 0.f, 0.f), attr(),
                    be_.engine()));
  fwd_ = primitive_of<dnnl::eltwise_forward>(fwd_pd);
  if (opt_.backward) {
    dnnl::eltwise_backward::primitive_desc bwd_pd;
    MG_CHECK_DNNL(bwd_pd = dnnl::eltwise_backward::primitive_desc(
                      dnnl::eltwise_backward::desc(alg, md, md, 0.f, 0.f), attr(), be_.engine(), fwd_pd));
    bwd_ = primitive_of<dnnl::eltwise_backward>(bwd_pd);
  }
  allocate_scratch();
  a_ = mem(md);
  b_ = mem(md);
  c_ = mem(md);
}

void EltwiseLayer::forward(const std::vector<Tensor>& in, const Tensor& out, bool) {
  check_io(in, out);
  set(a_, in[0].data);
  set(b_, out.data);
  run(fwd_, {{DNNL_ARG_SRC, a_}, {DNNL_ARG_DST, b_}});
}

void EltwiseLayer::backward(const std::vector<Tensor>& in, const Tensor& out, const Tensor& dout,
                            const std::vector<Tensor>& din, bool) {
  check_io(in, out);
  if (!din[0].data) return;
  MG_ENSURE(opt_.backward, where() + "backward on a layer built for inference");
  set(a_, from_dst_ ? out.data : in[0].data);
  set(b_, dout.data);
  set(c_, din[0].data);
  run(bwd_, {{from_dst_ ? DNNL_ARG_DST : DNNL_ARG_SRC, a_}, {DNNL_ARG_DIFF_DST, b_}, {DNNL_ARG_DIFF_SRC, c_}});
}

}  // namespace mg::cpu
