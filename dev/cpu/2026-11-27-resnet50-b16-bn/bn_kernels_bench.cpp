#include "backend/cpu/bn_kernels.h"
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cmath>
using namespace mg::cpu;
int main(int argc,char**argv){
  int C=atoi(argv[1]),H=atoi(argv[2]); long P=16L*H*H; size_t n=P*C;
  std::vector<float> x(n),y(n),dy(n),dx(n),mean(C),var(C),sc(C,1),sh(C,0),g(C,1),dg(C),db(C);
  for(size_t i=0;i<n;i++){x[i]=(i%97)*0.01f-0.3f; dy[i]=(i%13)*0.1f-0.5f;}
  bn::Workspace ws;
  auto T=[&](auto f){ for(int i=0;i<3;i++) f(); auto t0=std::chrono::steady_clock::now(); for(int i=0;i<20;i++) f(); return std::chrono::duration<double,std::milli>(std::chrono::steady_clock::now()-t0).count()/20;};
  double a=T([&]{bn::statistics(x.data(),P,C,mean.data(),var.data(),ws);});
  double b=T([&]{bn::normalize(x.data(),y.data(),P,C,mean.data(),sc.data(),sh.data(),true);});
  double c=T([&]{bn::backward(x.data(),dy.data(),dx.data(),P,C,mean.data(),g.data(),var.data(),1e-5f,sc.data(),sh.data(),true,dg.data(),db.data(),ws);});
  printf("C%d H%d stats %.2f norm %.2f bwd %.2f\n",C,H,a,b,c);
}
