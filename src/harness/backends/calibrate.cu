// GPU calibration (see harness/calibrate.h): a triad-bandwidth kernel over
// buffers many times L2, FP32 (fmaf) and FP16 (__hfma2) FMA-chain kernels
// and an empty kernel for the launch overhead, each timed with CUDA events,
// best of several launches. Compiled with CUDA only; NOT verified on
// hardware (no GPU where it was written): docs/kernels.md says so.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <string>

#include "harness/backends/cuda_backend.h"
#include "harness/calibrate.h"
#include "model/environment.h"

namespace gpugate {

namespace {

std::string CudaText(cudaError_t e, const char* what) {
  return std::string("calibrate: CUDA error in ") + what + ": " + cudaGetErrorString(e);
}

#define GPUGATE_CAL_TRY(call)                                                  \
  do {                                                                         \
    cudaError_t gpugate_cal_err_ = (call);                                     \
    if (gpugate_cal_err_ != cudaSuccess) return ToolError(CudaText(gpugate_cal_err_, #call)); \
  } while (0)

// Frees what it holds on every exit path.
struct DeviceMemory {
  void* ptr = nullptr;
  ~DeviceMemory() {
    if (ptr) cudaFree(ptr);
  }
};

struct Events {
  cudaEvent_t start = nullptr, stop = nullptr;
  ~Events() {
    if (start) cudaEventDestroy(start);
    if (stop) cudaEventDestroy(stop);
  }
};

constexpr int kRepetitions = 10;   // best of
constexpr int kFmaIterations = 4096;
constexpr int kFmaLanesPerThread = 8;

// STREAM triad, grid-stride: 3 x 4 bytes and 2 FLOPs per element.
__global__ void TriadKernel(float* a, const float* b, const float* c, float s, size_t n) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x)
    a[i] = b[i] + s * c[i];
}

// kFmaLanesPerThread independent FP32 FMA chains per thread; the sum is
// stored so the work is kept. 2 FLOPs per fmaf.
__global__ void Fp32FmaKernel(float* out, float m, float a) {
  float x[kFmaLanesPerThread];
#pragma unroll
  for (int j = 0; j < kFmaLanesPerThread; ++j) x[j] = threadIdx.x + j;
  for (int i = 0; i < kFmaIterations; ++i) {
#pragma unroll
    for (int j = 0; j < kFmaLanesPerThread; ++j) x[j] = fmaf(x[j], m, a);
  }
  float sum = 0;
#pragma unroll
  for (int j = 0; j < kFmaLanesPerThread; ++j) sum += x[j];
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

// The same with half2: each __hfma2 is 2 FMAs = 4 FLOPs.
__global__ void Fp16FmaKernel(float* out, float m, float a) {
  __half2 x[kFmaLanesPerThread];
  const __half2 mv = __float2half2_rn(m), av = __float2half2_rn(a);
#pragma unroll
  for (int j = 0; j < kFmaLanesPerThread; ++j) x[j] = __float2half2_rn(static_cast<float>(j) * 1e-3f);
  for (int i = 0; i < kFmaIterations; ++i) {
#pragma unroll
    for (int j = 0; j < kFmaLanesPerThread; ++j) x[j] = __hfma2(x[j], mv, av);
  }
  float sum = 0;
#pragma unroll
  for (int j = 0; j < kFmaLanesPerThread; ++j) sum += __low2float(x[j]) + __high2float(x[j]);
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

__global__ void EmptyKernel() {}

// Best time (seconds) of kRepetitions runs of `launch` between two events.
template <class Launch>
Result<double> BestOf(const Events& ev, Launch launch, int launches_per_timing = 1) {
  double best = 1e300;
  for (int r = 0; r < kRepetitions; ++r) {
    GPUGATE_CAL_TRY(cudaEventRecord(ev.start));
    for (int i = 0; i < launches_per_timing; ++i) launch();
    GPUGATE_CAL_TRY(cudaGetLastError());
    GPUGATE_CAL_TRY(cudaEventRecord(ev.stop));
    GPUGATE_CAL_TRY(cudaEventSynchronize(ev.stop));
    float ms = 0;
    GPUGATE_CAL_TRY(cudaEventElapsedTime(&ms, ev.start, ev.stop));
    best = std::min(best, static_cast<double>(ms) * 1e-3 / launches_per_timing);
  }
  return best;
}

}  // namespace

std::optional<std::string> GpuCalibrationUnavailable() { return CudaUnavailableReason(); }

Result<DeviceProfile> CalibrateGpu(int device) {
  if (auto why = CudaUnavailableReason()) return ToolError("calibrate: " + *why);
  GPUGATE_CAL_TRY(cudaSetDevice(device));
  cudaDeviceProp prop{};
  GPUGATE_CAL_TRY(cudaGetDeviceProperties(&prop, device));
  Events ev;
  GPUGATE_CAL_TRY(cudaEventCreate(&ev.start));
  GPUGATE_CAL_TRY(cudaEventCreate(&ev.stop));

  // Triad over 3 arrays of max(32 x L2, 256 MiB) / 3 each, capped at a
  // quarter of free memory.
  size_t free_bytes = 0, total_bytes = 0;
  GPUGATE_CAL_TRY(cudaMemGetInfo(&free_bytes, &total_bytes));
  size_t want = std::max<size_t>(static_cast<size_t>(prop.l2CacheSize) * 32, size_t{256} << 20);
  want = std::min(want, free_bytes / 4);
  const size_t n = want / 3 / sizeof(float);
  if (n < (size_t{1} << 20)) return ToolError("calibrate: too little free device memory for the triad");
  DeviceMemory a, b, c;
  GPUGATE_CAL_TRY(cudaMalloc(&a.ptr, n * sizeof(float)));
  GPUGATE_CAL_TRY(cudaMalloc(&b.ptr, n * sizeof(float)));
  GPUGATE_CAL_TRY(cudaMalloc(&c.ptr, n * sizeof(float)));
  GPUGATE_CAL_TRY(cudaMemset(b.ptr, 0, n * sizeof(float)));
  GPUGATE_CAL_TRY(cudaMemset(c.ptr, 0, n * sizeof(float)));
  const int threads = 256;
  const int triad_blocks = prop.multiProcessorCount * 8;
  auto* fa = static_cast<float*>(a.ptr);
  auto* fb = static_cast<const float*>(b.ptr);
  auto* fc = static_cast<const float*>(c.ptr);
  Result<double> triad = BestOf(ev, [&] { TriadKernel<<<triad_blocks, threads>>>(fa, fb, fc, 3.0f, n); });
  if (!triad.ok()) return triad.error();

  // FMA chains: enough blocks to fill every SM several times over.
  const int fma_blocks = prop.multiProcessorCount * 16;
  DeviceMemory out;
  GPUGATE_CAL_TRY(cudaMalloc(&out.ptr, static_cast<size_t>(fma_blocks) * threads * sizeof(float)));
  auto* fo = static_cast<float*>(out.ptr);
  Result<double> fp32 = BestOf(ev, [&] { Fp32FmaKernel<<<fma_blocks, threads>>>(fo, 0.999999f, 1e-6f); });
  if (!fp32.ok()) return fp32.error();
  Result<double> fp16 = BestOf(ev, [&] { Fp16FmaKernel<<<fma_blocks, threads>>>(fo, 0.999f, 1e-3f); });
  if (!fp16.ok()) return fp16.error();

  // Launch overhead: back-to-back empty kernels, time per launch.
  Result<double> launch = BestOf(ev, [] { EmptyKernel<<<1, 1>>>(); }, 100);
  if (!launch.ok()) return launch.error();

  const double work_threads = static_cast<double>(fma_blocks) * threads;
  DeviceProfile p;
  p.device_name = prop.name;
  p.kind = "gpu";
  p.peak_bytes_per_second = 3.0 * sizeof(float) * static_cast<double>(n) / *triad;
  p.peak_fp32_flops = 2.0 * kFmaLanesPerThread * kFmaIterations * work_threads / *fp32;
  p.peak_fp16_flops = 4.0 * kFmaLanesPerThread * kFmaIterations * work_threads / *fp16;
  p.launch_overhead_s = *launch;
  p.method = "GPU " + std::to_string(device) + ": triad over 3 x " +
             std::to_string(n * sizeof(float) >> 20) +
             " MiB, fmaf and __hfma2 chains, empty-kernel launches; CUDA events, best of " +
             std::to_string(kRepetitions);
  p.measured_utc = UtcNowIso8601();
  p.tool_version = GPUGATE_VERSION;
  return p;
}

}  // namespace gpugate
