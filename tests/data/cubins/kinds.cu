#include <cstdio>
template<typename T, int N>
__global__ void tmpl(T* p) { for (int i=0;i<N;i++) p[threadIdx.x*N+i] += (T)i; }
template __global__ void tmpl<float,4>(float*);
template __global__ void tmpl<double,8>(double*);
extern "C" __global__ void cfun(int* p) { p[threadIdx.x] = 1; }
__global__ void __launch_bounds__(256, 4) lb(float* p) { __shared__ float s[1024]; s[threadIdx.x]=p[threadIdx.x]; __syncthreads(); p[threadIdx.x]=s[(threadIdx.x+1)%256]; }
__global__ void bigshared(float* p) { __shared__ float s[12000]; s[threadIdx.x]=p[threadIdx.x]; __syncthreads(); p[threadIdx.x]=s[11999-threadIdx.x]; }
namespace ns { struct Foo { int a; }; __global__ void nsk(Foo f, int* o) { o[0]=f.a; } }
__global__ void localarr(int* p, int n) { int a[64]; for (int i=0;i<64;i++) a[i]=p[i]; p[0]=a[n]; }
