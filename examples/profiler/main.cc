// A program that marks regions of its own code with gpugate's profiler
// (include/gpugate/profiler.h, docs/profiler.md). Profiling is off unless
// the environment asks for it:
//
//   GPUGATE_PROFILE=1 GPUGATE_PROFILE_OUTPUT=base.json ./profiler_example
//   GPUGATE_PROFILE=1 GPUGATE_PROFILE_OUTPUT=head.json ./profiler_example
//   gpugate compare base.json head.json
//
// CPU work always; with a CUDA build (GPUGATE_PROFILER_CUDA) also copies and
// memsets timed with CUDA events on a stream, when a device exists.
#include <gpugate/profiler.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <numeric>
#include <vector>

#if GPUGATE_PROFILER_CUDA
#include <cuda_runtime.h>
#endif

namespace {

uint64_t Mix(uint64_t x) {  // SplitMix64's finaliser: deterministic pseudo-random data
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

uint64_t SortWork(size_t n, uint64_t seed) {
  std::vector<uint64_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = Mix(seed + i);
  std::sort(v.begin(), v.end());
  return v[n / 2];
}

double MatmulWork(int n) {
  std::vector<double> a(n * n), b(n * n), c(n * n, 0.0);
  for (int i = 0; i < n * n; ++i) {
    a[i] = static_cast<double>(i % 7);
    b[i] = static_cast<double>(i % 5);
  }
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < n; ++k)
      for (int j = 0; j < n; ++j) c[i * n + j] += a[i * n + k] * b[k * n + j];
  return std::accumulate(c.begin(), c.end(), 0.0);
}

uint64_t HashWork(size_t bytes) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a 64
  for (size_t i = 0; i < bytes; ++i) h = (h ^ (i & 0xff)) * 1099511628211ull;
  return h;
}

#if GPUGATE_PROFILER_CUDA
// Device work without kernels (this file is compiled as C++): a memset and a
// copy of 64 MiB, each timed with CUDA events on the stream.
void CudaWork(gpugate::Profiler& profiler, int rounds) {
  const size_t bytes = size_t{64} << 20;
  void* a = nullptr;
  void* b = nullptr;
  cudaStream_t stream = nullptr;
  if (cudaMalloc(&a, bytes) != cudaSuccess || cudaMalloc(&b, bytes) != cudaSuccess ||
      cudaStreamCreate(&stream) != cudaSuccess) {
    std::printf("no CUDA device (%s): CUDA scopes skipped\n", cudaGetErrorString(cudaGetLastError()));
    cudaFree(a);
    return;
  }
  gpugate::GpuMemorySampler sampler;
  const bool sampling = sampler.Start(std::chrono::milliseconds(5));
  for (int r = 0; r < rounds; ++r) {
    {
      auto s = profiler.ScopeCuda("cuda/memset 64MiB", stream);
      cudaMemsetAsync(a, r, bytes, stream);
    }
    {
      auto s = profiler.ScopeCuda("cuda/copy 64MiB", stream);
      cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, stream);
    }
  }
  cudaStreamSynchronize(stream);
  if (sampling) {
    sampler.Stop();
    sampler.ExportTo(profiler);
  }
  cudaStreamDestroy(stream);
  cudaFree(a);
  cudaFree(b);
}
#endif

}  // namespace

int main() {
  gpugate::Profiler& profiler = gpugate::GlobalProfiler();
  const int rounds = 8;
  uint64_t sink = 0;
  double fsink = 0;
  for (int r = 0; r < rounds; ++r) {
    for (int i = 0; i < 5; ++i) {
      auto s = profiler.Scope("sort/200k");
      sink += SortWork(200000, static_cast<uint64_t>(r * 5 + i));
    }
    for (int i = 0; i < 5; ++i) {
      auto s = profiler.Scope("hash/4MiB");
      sink += HashWork(size_t{4} << 20);
    }
    profiler.NextRound();  // one round per pass of the outer loop
  }
  // Profile(): warmup + iterations, one round per call.
  for (int r = 0; r < rounds; ++r)
    profiler.Profile("matmul/96", [&] { fsink += MatmulWork(96); }, {.warmup = 1, .iterations = 5});
#if GPUGATE_PROFILER_CUDA
  CudaWork(profiler, rounds * 5);
#endif
  std::printf("checksum %llu %.0f\n", static_cast<unsigned long long>(sink % 1000), fsink);
  if (profiler.enabled()) profiler.PrintSummary(std::cout);
  return 0;
}
