// Winograd on the CPU (results/cpu/2026-11-24-resnet50-b16-winograd/README.md): direct convolution on NHWC vs Winograd with the 5 activation reorders a layer needs.
#include <dnnl.hpp>
#include <chrono>
#include <cstdio>
#include <vector>
#include <algorithm>
using namespace dnnl; using tag=memory::format_tag; using dt=memory::data_type;
struct C{int ic,oc,ih,n;};
static double now(){return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();}
static void fill(memory&m){float*f=(float*)m.get_data_handle(); size_t n=m.get_desc().get_size()/4; for(size_t i=0;i<n;i++) f[i]=0.01f*(i%7);}
int main(){
  engine eng(engine::kind::cpu,0); stream st(eng);
  const int N=16;
  std::vector<C> cs={{64,64,56,3},{128,128,28,3},{256,256,14,5},{512,512,7,2}};
  for(int round=0;round<2;round++){
  double totd=0, totw=0;
  for(auto c:cs){
    memory::dims sd={N,c.ic,c.ih,c.ih}, dd={N,c.oc,c.ih,c.ih}, wd={c.oc,c.ic,3,3};
    memory::dims str={1,1}, p={1,1};
    memory::desc sn(sd,dt::f32,tag::nhwc), dn(dd,dt::f32,tag::nhwc), w(wd,dt::f32,tag::any);
    auto mk=[&](algorithm a, memory::desc s, memory::desc d){
      auto fd=convolution_forward::primitive_desc(convolution_forward::desc(prop_kind::forward_training,a,s,w,d,str,p,p),eng);
      auto bd=convolution_backward_data::primitive_desc(convolution_backward_data::desc(a,fd.src_desc(),w,fd.dst_desc(),str,p,p),eng,fd);
      auto bw=convolution_backward_weights::primitive_desc(convolution_backward_weights::desc(a,fd.src_desc(),w,fd.dst_desc(),str,p,p),eng,fd);
      return std::make_tuple(fd,bd,bw);};
    auto [fd,bd,bw]=mk(algorithm::convolution_direct,sn,dn);
    memory::desc sa(sd,dt::f32,tag::any), da(dd,dt::f32,tag::any);
    auto [fw,bdw,bww]=mk(algorithm::convolution_winograd,sa,da);
    // direct NHWC
    memory S(sn,eng),D(dn,eng),DS(sn,eng),DD(dn,eng),W(fd.weights_desc(),eng),W2(bd.weights_desc(),eng),DW(bw.diff_weights_desc(),eng);
    for(auto*m:{&S,&D,&DS,&DD,&W,&W2,&DW}) fill(*m);
    convolution_forward F(fd); convolution_backward_data B(bd); convolution_backward_weights BW(bw);
    // wino blocked + reorders
    memory Sb(fw.src_desc(),eng),Db(fw.dst_desc(),eng),DSb(bdw.diff_src_desc(),eng),DDb(bdw.diff_dst_desc(),eng),Wb(fw.weights_desc(),eng),W2b(bdw.weights_desc(),eng),DWb(bww.diff_weights_desc(),eng);
    for(auto*m:{&Sb,&Db,&DSb,&DDb,&Wb,&W2b,&DWb}) fill(*m);
    convolution_forward Fw(fw); convolution_backward_data Bw(bdw); convolution_backward_weights BWw(bww);
    reorder r_s(S,Sb), r_d(Db,D), r_dd(DD,DDb), r_ds(DSb,DS);
    double td=1e9, tw=1e9;
    for(int r=0;r<4;r++){
      double a=now();
      F.execute(st,{{DNNL_ARG_SRC,S},{DNNL_ARG_WEIGHTS,W},{DNNL_ARG_DST,D}});
      B.execute(st,{{DNNL_ARG_DIFF_DST,DD},{DNNL_ARG_WEIGHTS,W2},{DNNL_ARG_DIFF_SRC,DS}});
      BW.execute(st,{{DNNL_ARG_SRC,S},{DNNL_ARG_DIFF_DST,DD},{DNNL_ARG_DIFF_WEIGHTS,DW}}); st.wait();
      double b=now();
      r_s.execute(st,S,Sb); Fw.execute(st,{{DNNL_ARG_SRC,Sb},{DNNL_ARG_WEIGHTS,Wb},{DNNL_ARG_DST,Db}}); r_d.execute(st,Db,D);
      r_dd.execute(st,DD,DDb); Bw.execute(st,{{DNNL_ARG_DIFF_DST,DDb},{DNNL_ARG_WEIGHTS,W2b},{DNNL_ARG_DIFF_SRC,DSb}}); r_ds.execute(st,DSb,DS);
      r_s.execute(st,S,Sb); BWw.execute(st,{{DNNL_ARG_SRC,Sb},{DNNL_ARG_DIFF_DST,DDb},{DNNL_ARG_DIFF_WEIGHTS,DWb}}); st.wait();
      double e=now();
      if(r){td=std::min(td,b-a);tw=std::min(tw,e-b);}
    }
    totd+=td*c.n; totw+=tw*c.n;
    printf("%4d %3d x%d direct-nhwc %6.1f ms  wino+5 reorders %6.1f ms  [%s]\n",c.ic,c.ih,c.n,td*1e3,tw*1e3,fw.impl_info_str());
  }
  printf("total direct %.0f ms wino+reorders %.0f ms\n",totd*1e3,totw*1e3);
  }
}
