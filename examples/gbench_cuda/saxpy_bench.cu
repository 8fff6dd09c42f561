// A Google Benchmark of a CUDA kernel timed with CUDA events
// (gpugate::CudaEventTimer, include/gpugate/gbench_cuda.h) under
// UseManualTime. Built by the project's CMake when CUDA is on:
//   build/examples/gbench_cuda/gbench_cuda_saxpy --benchmark_out=saxpy.json
//   gpugate compare base.json saxpy.json
// Without a device every benchmark is skipped with the CUDA error's text.
#include <benchmark/benchmark.h>
#include <cuda_runtime.h>

#include <gpugate/gbench_cuda.h>

namespace {

__global__ void Saxpy(int n, float a, const float* x, float* y) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

void BM_Saxpy(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  float* x = nullptr;
  float* y = nullptr;
  if (cudaMalloc(&x, n * sizeof(float)) != cudaSuccess || cudaMalloc(&y, n * sizeof(float)) != cudaSuccess) {
    state.SkipWithError(cudaGetErrorString(cudaGetLastError()));
    cudaFree(x);
    return;
  }
  cudaMemset(x, 0, n * sizeof(float));
  cudaMemset(y, 0, n * sizeof(float));
  cudaStream_t stream = nullptr;
  cudaStreamCreate(&stream);
  {
    gpugate::CudaEventTimer timer(state, stream);
    const int threads = 256;
    const int blocks = (n + threads - 1) / threads;
    for (auto _ : state) {
      timer.Start();
      Saxpy<<<blocks, threads, 0, stream>>>(n, 2.0f, x, y);
      timer.Stop();
    }
    state.SetBytesProcessed(state.iterations() * int64_t{3} * n * static_cast<int64_t>(sizeof(float)));
  }
  cudaStreamDestroy(stream);
  cudaFree(x);
  cudaFree(y);
}
BENCHMARK(BM_Saxpy)->Arg(1 << 20)->Arg(1 << 24)->UseManualTime();

}  // namespace

BENCHMARK_MAIN();
