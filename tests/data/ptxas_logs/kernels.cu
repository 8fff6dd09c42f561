// Kernels for gpugate's ptxas log parser tests: plain, shared memory,
// register pressure (spills under -maxrregcount=16), a device function with a
// stack frame, launch bounds and a cluster kernel.
#include <cooperative_groups.h>

__device__ __noinline__ float helper(const float* p, int n) {
  float local[32];
  for (int i = 0; i < 32; ++i) local[i] = p[(i * 7) % n];
  float s = 0;
  for (int i = 0; i < n && i < 32; ++i) s += local[(i * 13) % 32];
  return s;
}

__global__ void saxpy(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

__global__ void __launch_bounds__(256, 2) reduce_shared(const float* in, float* out, int n) {
  __shared__ float tile[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = i < n ? in[i] : 0.f;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) tile[threadIdx.x] += tile[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = tile[0];
}

__global__ void pressure(const float* in, float* out, int n) {
  float acc[24];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
#pragma unroll
  for (int k = 0; k < 24; ++k) acc[k] = in[(i + k * 97) % n];
#pragma unroll
  for (int r = 0; r < 8; ++r)
#pragma unroll
    for (int k = 0; k < 24; ++k) acc[k] = acc[k] * acc[(k + r) % 24] + 1.0f;
  float s = 0;
#pragma unroll
  for (int k = 0; k < 24; ++k) s += acc[k];
  out[i % n] = s + helper(in, n);
}

__device__ int counter;
__constant__ float coeffs[16];

__global__ void uses_globals(float* out) {
  atomicAdd(&counter, 1);
  out[threadIdx.x] = coeffs[threadIdx.x % 16];
}

template <int N>
__global__ void templated(float* out) {
  extern __shared__ float dyn[];
  dyn[threadIdx.x] = N;
  __syncthreads();
  out[threadIdx.x] = dyn[(threadIdx.x + 1) % blockDim.x];
}
template __global__ void templated<3>(float*);

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define CLUSTER __cluster_dims__(2, 1, 1)
#else
#define CLUSTER
#endif
__global__ void CLUSTER clustered(float* out) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  namespace cg = cooperative_groups;
  __shared__ float s;
  cg::cluster_group cluster = cg::this_cluster();
  if (threadIdx.x == 0) s = blockIdx.x;
  cluster.sync();
  float* remote = cluster.map_shared_rank(&s, (cluster.block_rank() + 1) % 2);
  out[blockIdx.x] = *remote;
#else
  out[blockIdx.x] = 0;
#endif
}
