// Microbenchmark: 1x1 stride-1 convolution passes (oneDNN conv, NHWC, weights any) vs the same as oneDNN matmul on
// the NHWC activations and OI weights in place (no weight reorders).
#include <dnnl.hpp>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>
#include <algorithm>
using namespace dnnl;
using DT = memory::data_type; using Tag = memory::format_tag;
engine eng(engine::kind::cpu, 0); stream st(eng);
memory zeroed(const memory::desc& md){ memory m(md, eng); std::memset(m.get_data_handle(), 0, md.get_size()); return m; }
template<class F> double best(F f){ double b=1e300; for(int r=0;r<8;++r){ auto t0=std::chrono::steady_clock::now(); f(); st.wait(); double ms=std::chrono::duration<double,std::milli>(std::chrono::steady_clock::now()-t0).count(); if(r>0) b=std::min(b,ms);} return b; }
int main(){
  struct S{int c,o,hw;}; std::vector<S> shapes={{256,1024,14},{64,256,56},{256,64,56},{64,64,56},{256,128,56},{128,512,28},{512,128,28},{256,1024,14},{1024,256,14},{512,2048,7},{2048,512,7},{1024,512,14},{512,256,28}};
  int N=16;
  primitive_attr attr; attr.set_scratchpad_mode(scratchpad_mode::user);
  for(auto s: shapes){
    memory::dim M=(memory::dim)N*s.hw*s.hw, C=s.c, O=s.o;
    memory::desc x({N,C,s.hw,s.hw},DT::f32,Tag::nhwc), y({N,O,s.hw,s.hw},DT::f32,Tag::nhwc), wany({O,C,1,1},DT::f32,Tag::any);
    auto fpd=convolution_forward::primitive_desc(convolution_forward::desc(prop_kind::forward_training,algorithm::convolution_direct,x,wany,y,{1,1},{0,0},{0,0}),attr,eng);
    auto bdpd=convolution_backward_data::primitive_desc(convolution_backward_data::desc(algorithm::convolution_direct,x,wany,y,{1,1},{0,0},{0,0}),attr,eng,fpd);
    auto bwpd=convolution_backward_weights::primitive_desc(convolution_backward_weights::desc(algorithm::convolution_direct,x,wany,y,{1,1},{0,0},{0,0}),attr,eng,fpd);
    memory X=zeroed(x),Y=zeroed(y),W=zeroed(fpd.weights_desc()),WB=zeroed(bdpd.weights_desc()),DW=zeroed(bwpd.diff_weights_desc());
    size_t sps=std::max({fpd.scratchpad_desc().get_size(),bdpd.scratchpad_desc().get_size(),bwpd.scratchpad_desc().get_size()});
    memory SP=zeroed(memory::desc({(memory::dim)std::max<size_t>(sps,1)},DT::u8,Tag::a));
    convolution_forward cf(fpd); convolution_backward_data cbd(bdpd); convolution_backward_weights cbw(bwpd);
    double tf=best([&]{cf.execute(st,{{DNNL_ARG_SRC,X},{DNNL_ARG_WEIGHTS,W},{DNNL_ARG_DST,Y},{DNNL_ARG_SCRATCHPAD,SP}});});
    double tbd=best([&]{cbd.execute(st,{{DNNL_ARG_DIFF_DST,Y},{DNNL_ARG_WEIGHTS,WB},{DNNL_ARG_DIFF_SRC,X},{DNNL_ARG_SCRATCHPAD,SP}});});
    double tbw=best([&]{cbw.execute(st,{{DNNL_ARG_SRC,X},{DNNL_ARG_DIFF_DST,Y},{DNNL_ARG_DIFF_WEIGHTS,DW},{DNNL_ARG_SCRATCHPAD,SP}});});
    // matmul: forward Y[M,O] = X[M,C] * W^T (W canonical [O,C] -> dims {C,O} strides {1,C})
    memory::desc xm({M,C},DT::f32,memory::dims{C,1}), ym({M,O},DT::f32,memory::dims{O,1});
    memory::desc wT({C,O},DT::f32,memory::dims{1,C}), wN({O,C},DT::f32,memory::dims{C,1});
    memory::desc dyT({O,M},DT::f32,memory::dims{1,O});
    memory Wc=zeroed(wN);
    auto mf=matmul::primitive_desc(matmul::desc(xm,wT,ym),attr,eng);
    auto mbd=matmul::primitive_desc(matmul::desc(ym,wN,xm),attr,eng);
    auto mbw=matmul::primitive_desc(matmul::desc(dyT,xm,wN),attr,eng);
    size_t sps2=std::max({mf.scratchpad_desc().get_size(),mbd.scratchpad_desc().get_size(),mbw.scratchpad_desc().get_size()});
    memory SP2=zeroed(memory::desc({(memory::dim)std::max<size_t>(sps2,1)},DT::u8,Tag::a));
    memory Xm(xm,eng,X.get_data_handle()), Ym(ym,eng,Y.get_data_handle()), WT(wT,eng,Wc.get_data_handle()), DYT(dyT,eng,Y.get_data_handle());
    matmul pf(mf), pbd(mbd), pbw(mbw);
    double mtf=best([&]{pf.execute(st,{{DNNL_ARG_SRC,Xm},{DNNL_ARG_WEIGHTS,WT},{DNNL_ARG_DST,Ym},{DNNL_ARG_SCRATCHPAD,SP2}});});
    double mtbd=best([&]{pbd.execute(st,{{DNNL_ARG_SRC,Ym},{DNNL_ARG_WEIGHTS,Wc},{DNNL_ARG_DST,Xm},{DNNL_ARG_SCRATCHPAD,SP2}});});
    double mtbw=best([&]{pbw.execute(st,{{DNNL_ARG_SRC,DYT},{DNNL_ARG_WEIGHTS,Xm},{DNNL_ARG_DST,Wc},{DNNL_ARG_SCRATCHPAD,SP2}});});
    double gf=2.0*M*C*O/1e6;
    printf("%4d->%4d @%2d  conv f/bd/bw %6.2f %6.2f %6.2f ms (%s|%s|%s)  matmul %6.2f %6.2f %6.2f ms (%s|%s|%s)  GF/s conv %3.0f %3.0f %3.0f mm %3.0f %3.0f %3.0f\n",
      s.c,s.o,s.hw,tf,tbd,tbw,fpd.impl_info_str(),bdpd.impl_info_str(),bwpd.impl_info_str(),mtf,mtbd,mtbw,mf.impl_info_str(),mbd.impl_info_str(),mbw.impl_info_str(),
      gf/tf,gf/tbd,gf/tbw,gf/mtf,gf/mtbd,gf/mtbw);
    fflush(stdout);
  }
}
