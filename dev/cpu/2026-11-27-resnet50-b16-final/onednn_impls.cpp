// time every oneDNN implementation of one conv pass (nhwc activations, any weights)
#include <dnnl.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>
using namespace dnnl;
using tag = memory::format_tag; using dt = memory::data_type;
int main(int argc, char** argv) {
  int mb = 16, ic = atoi(argv[1]), oc = atoi(argv[2]), ih = atoi(argv[3]), k = atoi(argv[4]), s = atoi(argv[5]);
  int p = k / 2, oh = (ih + 2 * p - k) / s + 1;
  engine eng(engine::kind::cpu, 0); stream st(eng);
  memory::desc src({mb, ic, ih, ih}, dt::f32, tag::nhwc), dst({mb, oc, oh, oh}, dt::f32, tag::nhwc);
  memory::desc wany({oc, ic, k, k}, dt::f32, tag::any);
  auto fwd_d = convolution_forward::desc(prop_kind::forward_training, algorithm::convolution_direct, src, wany, dst, {s, s}, {p, p}, {p, p});
  convolution_forward::primitive_desc fhint(fwd_d, eng);
  auto bw_d = convolution_backward_weights::desc(algorithm::convolution_direct, src, wany, dst, {s, s}, {p, p}, {p, p});
  auto bd_d = convolution_backward_data::desc(algorithm::convolution_direct, src, wany, dst, {s, s}, {p, p}, {p, p});
  double gflop = 2.0 * mb * oc * ic * k * k * oh * oh / 1e9;
  std::vector<float> a(mb * ic * ih * ih, 0.1f), b(mb * oc * oh * oh, 0.2f), w(oc * ic * k * k * 2, 0.01f), sc(1 << 26);
  auto timeit = [&](primitive prim, std::unordered_map<int, memory> args) {
    for (int i = 0; i < 2; i++) prim.execute(st, args); st.wait();
    auto t0 = std::chrono::steady_clock::now(); int R = 5;
    for (int i = 0; i < R; i++) prim.execute(st, args); st.wait();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() / R;
  };
  primitive_attr attr; attr.set_scratchpad_mode(scratchpad_mode::user);
  {
    convolution_backward_weights::primitive_desc pd(bw_d, attr, eng, fhint);
    do {
      std::string name = pd.impl_info_str();
      if (name.find("ref") != std::string::npos) continue;
      convolution_backward_weights prim(pd);
      double ms = timeit(prim, {{DNNL_ARG_SRC, memory(src, eng, a.data())}, {DNNL_ARG_DIFF_DST, memory(dst, eng, b.data())}, {DNNL_ARG_DIFF_WEIGHTS, memory(pd.diff_weights_desc(), eng, w.data())}, {DNNL_ARG_SCRATCHPAD, memory(pd.scratchpad_desc(), eng, sc.data())}});
      printf("bwd_w  %-28s %7.2f ms %6.1f GFLOP/s  scratch %zu\n", name.c_str(), ms, gflop / ms * 1e3, pd.scratchpad_desc().get_size());
    } while (pd.next_impl());
  }
  {
    convolution_backward_data::primitive_desc pd(bd_d, attr, eng, fhint);
    do {
      std::string name = pd.impl_info_str();
      if (name.find("ref") != std::string::npos) continue;
      convolution_backward_data prim(pd);
      double ms = timeit(prim, {{DNNL_ARG_DIFF_SRC, memory(src, eng, a.data())}, {DNNL_ARG_DIFF_DST, memory(dst, eng, b.data())}, {DNNL_ARG_WEIGHTS, memory(pd.weights_desc(), eng, w.data())}, {DNNL_ARG_SCRATCHPAD, memory(pd.scratchpad_desc(), eng, sc.data())}});
      printf("bwd_d  %-28s %7.2f ms %6.1f GFLOP/s\n", name.c_str(), ms, gflop / ms * 1e3);
    } while (pd.next_impl());
  }
  {
    convolution_forward::primitive_desc pd(fwd_d, attr, eng);
    do {
      std::string name = pd.impl_info_str();
      if (name.find("ref") != std::string::npos) continue;
      convolution_forward prim(pd);
      double ms = timeit(prim, {{DNNL_ARG_SRC, memory(src, eng, a.data())}, {DNNL_ARG_DST, memory(dst, eng, b.data())}, {DNNL_ARG_WEIGHTS, memory(pd.weights_desc(), eng, w.data())}, {DNNL_ARG_SCRATCHPAD, memory(pd.scratchpad_desc(), eng, sc.data())}});
      printf("fwd    %-28s %7.2f ms %6.1f GFLOP/s\n", name.c_str(), ms, gflop / ms * 1e3);
    } while (pd.next_impl());
  }
}
