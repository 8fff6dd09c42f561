__device__ float scale(float x);
__global__ void apply(float* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = scale(p[i]);
}
