__constant__ int iters = 10;
__global__ void kc(float* o){ float s=0; for(int i=0;i<iters;i++) s+=sinf(s+i); o[threadIdx.x]=s; }
