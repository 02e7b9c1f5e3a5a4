#include <dnnl.hpp>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>
using namespace dnnl;
using F = normalization_flags;
int main(int argc,char**argv){
  engine eng(engine::kind::cpu,0); stream s(eng);
  int C=argc>1?atoi(argv[1]):256, H=argc>2?atoi(argv[2]):56;
  memory::desc d({16,C,H,H},memory::data_type::f32,memory::format_tag::nhwc);
  memory::desc st({C},memory::data_type::f32,memory::format_tag::a);
  size_t n=16L*C*H*H;
  std::vector<float> src(n,1.f),dst(n),dd(n,0.5f),ds(n),sc(C,1),sh(C,0),mean(C),var(C);
  for(size_t i=0;i<n;i++) src[i]=(i%97)*0.01f;
  auto mk=[&](F f, prop_kind pk){ return batch_normalization_forward::primitive_desc(batch_normalization_forward::desc(pk,d,1e-5f,f),eng);};
  auto tr=mk(F::use_scale|F::use_shift|F::fuse_norm_relu,prop_kind::forward_training);
  auto gs=mk(F::use_scale|F::use_shift|F::use_global_stats|F::fuse_norm_relu,prop_kind::forward_training);
  std::vector<char> ws(tr.workspace_desc().get_size());
  auto M=[&](const memory::desc&m, void*p){return memory(m,eng,p);};
  auto run=[&](batch_normalization_forward::primitive_desc pd,const char*name){
    batch_normalization_forward p(pd);
    std::unordered_map<int,memory> a{{DNNL_ARG_SRC,M(d,src.data())},{DNNL_ARG_DST,M(d,dst.data())},{DNNL_ARG_SCALE,M(st,sc.data())},{DNNL_ARG_SHIFT,M(st,sh.data())},{DNNL_ARG_MEAN,M(st,mean.data())},{DNNL_ARG_VARIANCE,M(st,var.data())},{DNNL_ARG_WORKSPACE,M(pd.workspace_desc(),ws.data())}};
    for(int i=0;i<3;i++) p.execute(s,a); s.wait();
    auto t0=std::chrono::steady_clock::now(); int R=20;
    for(int i=0;i<R;i++) p.execute(s,a); s.wait();
    double ms=std::chrono::duration<double,std::milli>(std::chrono::steady_clock::now()-t0).count()/R;
    printf("%-12s %7.2f ms  %6.1f GB/s per tensor pass\n",name,ms,n*4/ms/1e6);
  };
  run(tr,"training");
  {
    auto bpd=batch_normalization_backward::primitive_desc(batch_normalization_backward::desc(prop_kind::backward,d,d,1e-5f,F::use_scale|F::use_shift|F::fuse_norm_relu),eng,tr);
    batch_normalization_backward p(bpd);
    std::vector<float> dsc(C),dsh(C);
    std::unordered_map<int,memory> a{{DNNL_ARG_SRC,M(d,src.data())},{DNNL_ARG_DIFF_DST,M(d,dd.data())},{DNNL_ARG_DIFF_SRC,M(d,ds.data())},{DNNL_ARG_SCALE,M(st,sc.data())},{DNNL_ARG_SHIFT,M(st,sh.data())},{DNNL_ARG_MEAN,M(st,mean.data())},{DNNL_ARG_VARIANCE,M(st,var.data())},{DNNL_ARG_WORKSPACE,M(tr.workspace_desc(),ws.data())},{DNNL_ARG_DIFF_SCALE,M(st,dsc.data())},{DNNL_ARG_DIFF_SHIFT,M(st,dsh.data())}};
    for(int i=0;i<3;i++) p.execute(s,a); s.wait();
    auto t0=std::chrono::steady_clock::now();
    for(int i=0;i<20;i++) p.execute(s,a); s.wait();
    printf("%-12s %7.2f ms\n","backward",std::chrono::duration<double,std::milli>(std::chrono::steady_clock::now()-t0).count()/20);
  }
  run(gs,"global");
  auto t0=std::chrono::steady_clock::now();
  for(int i=0;i<20;i++) std::memcpy(dst.data(),src.data(),n*4);
  double ms=std::chrono::duration<double,std::milli>(std::chrono::steady_clock::now()-t0).count()/20;
  printf("%-12s %7.2f ms\n","memcpy(1 thr)",ms);
  // reduction-only equivalent: sum pass
  t0=std::chrono::steady_clock::now(); double acc=0;
  for(int r=0;r<20;r++){
    #pragma omp parallel for reduction(+:acc)
    for(size_t i=0;i<n;i++) acc+=src[i];
  }
  ms=std::chrono::duration<double,std::milli>(std::chrono::steady_clock::now()-t0).count()/20;
  printf("%-12s %7.2f ms (%g)\n","sum pass",ms,acc);
}
