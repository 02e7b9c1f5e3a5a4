// Winograd on the CPU (results/cpu/2026-11-24-resnet50-b16-winograd/README.md): ResNet-50 stride-1 3x3 shapes at batch 16, direct vs Winograd on oneDNN-chosen (blocked) layouts.
#include <dnnl.hpp>
#include <chrono>
#include <cstdio>
#include <vector>
#include <algorithm>
using namespace dnnl; using tag=memory::format_tag; using dt=memory::data_type;
struct C{int ic,oc,ih,n;};
static double now(){return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();}
int main(int argc,char**argv){
  engine eng(engine::kind::cpu,0); stream st(eng);
  const int N=16;
  std::vector<C> cs={{64,64,56,3},{128,128,28,3},{256,256,14,5},{512,512,7,2}};
  for(int alg=0;alg<2;alg++){
  double tot[3]={0,0,0};
  for(auto c:cs){
    int pad=1; int oh=c.ih;
    memory::dims sd={N,c.ic,c.ih,c.ih}, dd={N,c.oc,oh,oh}, wd={c.oc,c.ic,3,3};
    auto a = alg? algorithm::convolution_winograd: algorithm::convolution_direct;
    memory::desc src(sd,dt::f32,tag::any), dst(dd,dt::f32,tag::any), w(wd,dt::f32,tag::any);
    memory::dims str={1,1}, p={pad,pad};
    try{
    auto fd=convolution_forward::primitive_desc(convolution_forward::desc(prop_kind::forward_training,a,src,w,dst,str,p,p),eng);
    auto bd=convolution_backward_data::primitive_desc(convolution_backward_data::desc(a,fd.src_desc(),w,fd.dst_desc(),str,p,p),eng,fd);
    auto bw=convolution_backward_weights::primitive_desc(convolution_backward_weights::desc(a,fd.src_desc(),w,fd.dst_desc(),str,p,p),eng,fd);
    memory S(fd.src_desc(),eng),W(fd.weights_desc(),eng),D(fd.dst_desc(),eng),DS(bd.diff_src_desc(),eng),DW(bw.diff_weights_desc(),eng),DD(bd.diff_dst_desc(),eng);
    memory DD2(bw.diff_dst_desc(),eng), S2(bw.src_desc(),eng), W2(bd.weights_desc(),eng);
    for(auto*m:{&S,&W,&D,&DS,&DW,&DD,&DD2,&S2,&W2}){float*f=(float*)m->get_data_handle(); size_t n=m->get_desc().get_size()/4; for(size_t i=0;i<n;i++) f[i]=0.01f*(i%7);}
    convolution_forward F(fd); convolution_backward_data B(bd); convolution_backward_weights BW(bw);
    double t[3]={1e9,1e9,1e9};
    for(int r=0;r<4;r++){
      double a0=now(); F.execute(st,{{DNNL_ARG_SRC,S},{DNNL_ARG_WEIGHTS,W},{DNNL_ARG_DST,D}}); st.wait(); double b=now();
      B.execute(st,{{DNNL_ARG_DIFF_DST,DD},{DNNL_ARG_WEIGHTS,W2},{DNNL_ARG_DIFF_SRC,DS}}); st.wait(); double e=now();
      BW.execute(st,{{DNNL_ARG_SRC,S2},{DNNL_ARG_DIFF_DST,DD2},{DNNL_ARG_DIFF_WEIGHTS,DW}}); st.wait(); double f=now();
      if(r){t[0]=std::min(t[0],b-a0);t[1]=std::min(t[1],e-b);t[2]=std::min(t[2],f-e);}
    }
    double fl=2.0*N*c.oc*oh*oh*c.ic*9;
    for(int i=0;i<3;i++) tot[i]+=t[i]*c.n;
    printf("%s %4d %3d x%d fwd %6.1f bwdd %6.1f bwdw %6.1f ms  GF/s %5.0f %5.0f %5.0f [%s|%s|%s] src %s\n",alg?"wino":"dir ",c.ic,c.ih,c.n,
      t[0]*1e3,t[1]*1e3,t[2]*1e3,fl/t[0]/1e9,fl/t[1]/1e9,fl/t[2]/1e9, fd.impl_info_str(), bd.impl_info_str(), bw.impl_info_str(),"");
    }catch(dnnl::error&e){printf("%s %d: %s\n",alg?"wino":"dir",c.ic,e.what());}
  }
  printf("%s total fwd %.0f bwdd %.0f bwdw %.0f = %.0f ms\n",alg?"wino":"dir",tot[0]*1e3,tot[1]*1e3,tot[2]*1e3,(tot[0]+tot[1]+tot[2])*1e3);
  }
}
