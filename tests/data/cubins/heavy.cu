// Kernels of tests/data/cubins/heavy_sm90*.cubin (see README.md there): the
// same source built twice, the second time with -maxrregcount=16 so that
// `heavy` spills; `plain_add` compiles to the same SASS in both builds.
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
