// Layout check for the CPU FMA-peak goal (results/cpu/2026-11-24-onednn-breakdown/README.md): ResNet-50's convolution shapes at batch 16,
// forward + backward-data + backward-weights, activations NHWC ('n') or oneDNN's choice ('b': blocked), best of 3 after one warm-up.
//   g++ -O2 -std=c++17 conv_layouts.cpp -o conv_layouts -ldnnl && ./conv_layouts n && ./conv_layouts b
#include <dnnl.hpp>
#include <chrono>
#include <cstdio>
#include <vector>
#include <algorithm>
using namespace dnnl; using tag=memory::format_tag; using dt=memory::data_type;
struct C{int ic,oc,ih,k,s,n;};
static double now(){return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();}
int main(int argc,char**argv){
  bool blocked = argc>1 && argv[1][0]=='b';
  engine eng(engine::kind::cpu,0); stream st(eng);
  const int N=16;
  std::vector<C> cs={{3,64,224,7,2,1},
   {64,64,56,1,1,1},{64,64,56,3,1,3},{64,256,56,1,1,4},{256,64,56,1,1,2},
   {256,128,56,1,1,1},{128,128,56,3,2,1},{128,128,28,3,1,3},{128,512,28,1,1,4},{512,128,28,1,1,3},{256,512,56,1,2,1},
   {512,256,28,1,1,1},{256,256,28,3,2,1},{256,256,14,3,1,5},{256,1024,14,1,1,6},{1024,256,14,1,1,5},{512,1024,28,1,2,1},
   {1024,512,14,1,1,1},{512,512,14,3,2,1},{512,512,7,3,1,2},{512,2048,7,1,1,3},{2048,512,7,1,1,2},{1024,2048,14,1,2,1}};
  double tot[3]={0,0,0}; double flops=0;
  for(auto c:cs){
    int pad=c.k/2; int oh=(c.ih+2*pad-c.k)/c.s+1;
    memory::dims sd={N,c.ic,c.ih,c.ih}, dd={N,c.oc,oh,oh}, wd={c.oc,c.ic,c.k,c.k};
    auto at = blocked? tag::any: tag::nhwc;
    memory::desc src(sd,dt::f32,at), dst(dd,dt::f32,at), w(wd,dt::f32,tag::any);
    memory::dims str={c.s,c.s}, p={pad,pad};
    auto fd=convolution_forward::primitive_desc(convolution_forward::desc(prop_kind::forward_training,algorithm::convolution_direct,src,w,dst,str,p,p),eng);
    auto bd=convolution_backward_data::primitive_desc(convolution_backward_data::desc(algorithm::convolution_direct,fd.src_desc(),w,fd.dst_desc(),str,p,p),eng,fd);
    auto bw=convolution_backward_weights::primitive_desc(convolution_backward_weights::desc(algorithm::convolution_direct,fd.src_desc(),w,fd.dst_desc(),str,p,p),eng,fd);
    memory S(fd.src_desc(),eng),W(fd.weights_desc(),eng),D(fd.dst_desc(),eng),DS(bd.diff_src_desc(),eng),DW(bw.diff_weights_desc(),eng),DD(bd.diff_dst_desc(),eng);
    memory DD2(bw.diff_dst_desc(),eng), S2(bw.src_desc(),eng);
    for(auto*m:{&S,&W,&D,&DS,&DW,&DD,&DD2,&S2}){float*f=(float*)m->get_data_handle(); size_t n=m->get_desc().get_size()/4; for(size_t i=0;i<n;i++) f[i]=0.01f*(i%7);}
    convolution_forward F(fd); convolution_backward_data B(bd); convolution_backward_weights BW(bw);
    double t[3]={1e9,1e9,1e9};
    for(int r=0;r<4;r++){
      double a=now(); F.execute(st,{{DNNL_ARG_SRC,S},{DNNL_ARG_WEIGHTS,W},{DNNL_ARG_DST,D}}); st.wait(); double b=now();
      if(c.ic!=3){B.execute(st,{{DNNL_ARG_DIFF_DST,DD},{DNNL_ARG_WEIGHTS,W},{DNNL_ARG_DIFF_SRC,DS}}); st.wait();} double e=now();
      BW.execute(st,{{DNNL_ARG_SRC,S2},{DNNL_ARG_DIFF_DST,DD2},{DNNL_ARG_DIFF_WEIGHTS,DW}}); st.wait(); double f=now();
      if(r){t[0]=std::min(t[0],b-a);t[1]=std::min(t[1],e-b);t[2]=std::min(t[2],f-e);}
    }
    double fl=2.0*N*c.oc*oh*oh*c.ic*c.k*c.k;
    flops+=fl*c.n*(c.ic==3?2:3);
    for(int i=0;i<3;i++) tot[i]+=t[i]*c.n;
    printf("%4d->%4d %3d k%d s%d x%d  fwd %6.1f bwdd %6.1f bwdw %6.1f ms  GF/s %5.0f %5.0f %5.0f  [%s|%s|%s]\n",c.ic,c.oc,c.ih,c.k,c.s,c.n,
      t[0]*1e3,t[1]*1e3,t[2]*1e3,fl/t[0]/1e9,fl/t[1]/1e9,fl/t[2]/1e9, fd.impl_info_str(), bd.impl_info_str(), bw.impl_info_str());
  }
  printf("%s total fwd %.0f bwdd %.0f bwdw %.0f ms = %.0f ms ; %.0f GFLOP/s\n",blocked?"blocked":"nhwc",tot[0]*1e3,tot[1]*1e3,tot[2]*1e3,(tot[0]+tot[1]+tot[2])*1e3,flops/(tot[0]+tot[1]+tot[2])/1e9);
}
