#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 900
#define M 48
#else
#define M 4
#endif
__device__ __noinline__ float f(const float* in, int t, int n) {
  float acc[M];
#pragma unroll
  for (int k = 0; k < M; ++k) acc[k] = in[(t + k * 97) % n];
  float s = 0;
#pragma unroll
  for (int k = 0; k < M; ++k) s += acc[k] * acc[(k * 7) % M];
  return s;
}
__global__ void kr(const float* in, float* out, int n) { int t = threadIdx.x; out[t] = f(in, t, n); }
