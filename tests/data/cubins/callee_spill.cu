__device__ __noinline__ float f(const float* a, int n){
  float acc[32];
  #pragma unroll
  for(int i=0;i<32;i++) acc[i]=a[threadIdx.x+i*n];
  #pragma unroll
  for(int j=0;j<8;j++)
  #pragma unroll
  for(int i=0;i<32;i++) acc[i]=acc[i]*acc[(i+j)%32]+a[i+j];
  float s=0;
  #pragma unroll
  for(int i=0;i<32;i++) s+=acc[i];
  return s;
}
__global__ void nk(const float* a, float* o, int n){ o[threadIdx.x]=f(a,n); }
