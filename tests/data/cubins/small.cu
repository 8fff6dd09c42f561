// Kernels of tests/data/cubins (see README.md there).
extern "C" __global__ void plain_add(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
__global__ void tiled(const float* in, float* out) {
  __shared__ float tile[256];
  __shared__ double other[64];
  tile[threadIdx.x] = in[threadIdx.x];
  other[threadIdx.x % 64] = tile[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = tile[255 - threadIdx.x] + (float)other[(threadIdx.x + 1) % 64];
}
__global__ void __launch_bounds__(128, 4) bounded(float* out, float v) { out[threadIdx.x] = v * threadIdx.x; }
