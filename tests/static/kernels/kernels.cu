// Kernels compiled by nvcc at build time for tests/static/nvcc_kernels_test.cc:
// each is inspected and compared with what ptxas -v printed for the same build.
extern "C" __global__ void plain_add(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

// Many live values: spills under -maxrregcount=16.
__global__ void heavy(const float* in, float* out, int n) {
  float acc[48];
  int t = blockIdx.x * blockDim.x + threadIdx.x;
#pragma unroll
  for (int k = 0; k < 48; ++k) acc[k] = in[(t + k * 97) % n];
  float s = 0;
#pragma unroll
  for (int k = 0; k < 48; ++k) s += acc[k] * acc[(k * 7) % 48];
  out[t % n] = s;
}

// A local array indexed at run time: a stack frame.
__global__ void with_stack(const int* idx, float* out) {
  float local[64];
  for (int k = 0; k < 64; ++k) local[k] = k * out[k];
  out[threadIdx.x] = local[idx[threadIdx.x] & 63];
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

struct Big {
  float v[40];
};
__global__ void big_param(Big b, float* out) { out[threadIdx.x] = b.v[threadIdx.x % 40]; }
