// A kernel that calls a device function, and one with static shared memory.
__device__ __noinline__ float helper(float x, int n) { return x * n + 1.f; }
__global__ void uses_helper(float* a, int n) { a[threadIdx.x] = helper(a[threadIdx.x], n); }
__global__ void tiled(const float* a, float* b) {
  __shared__ float buf[256];
  buf[threadIdx.x] = a[threadIdx.x];
  __syncthreads();
  b[threadIdx.x] = buf[255 - threadIdx.x];
}
