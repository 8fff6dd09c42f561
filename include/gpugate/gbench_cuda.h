// Timing CUDA work inside a Google Benchmark with CUDA events, under
// UseManualTime(): each iteration's time is the device time between two
// events on a stream, not the host's wall time. Header-only; needs the CUDA
// runtime (cuda_runtime.h, link CUDA::cudart) and Google Benchmark.
// docs/profiler.md "Google Benchmark and CUDA".
//
//   static void BM_Saxpy(benchmark::State& state) {
//     gpugate::CudaEventTimer timer(state, stream);
//     for (auto _ : state) {
//       timer.Start();
//       saxpy<<<blocks, threads, 0, stream>>>(n, a, x, y);
//       timer.Stop();  // waits for the stop event, state.SetIterationTime(...)
//     }
//   }
//   BENCHMARK(BM_Saxpy)->UseManualTime();
//
// gpugate reads the benchmark's JSON output (`kind: gbench`, or
// `gpugate compare base.json head.json` on two --benchmark_out files).
#pragma once

#include <benchmark/benchmark.h>
#include <cuda_runtime.h>

#include <string>

namespace gpugate {

/// Two CUDA events around each iteration's work on `stream`. A CUDA error
/// (no device, a failed launch) ends the benchmark with SkipWithError and
/// the error's text; it never reports a time it did not measure.
class CudaEventTimer {
 public:
  explicit CudaEventTimer(benchmark::State& state, cudaStream_t stream = nullptr)
      : state_(state), stream_(stream) {
    if (Check(cudaEventCreate(&start_), "cudaEventCreate")) Check(cudaEventCreate(&stop_), "cudaEventCreate");
  }
  ~CudaEventTimer() {
    if (start_ != nullptr) cudaEventDestroy(start_);
    if (stop_ != nullptr) cudaEventDestroy(stop_);
  }
  CudaEventTimer(const CudaEventTimer&) = delete;
  CudaEventTimer& operator=(const CudaEventTimer&) = delete;

  /// Records the start event on the stream. An error an earlier CUDA call
  /// left pending ends the benchmark here, before it could be taken for a
  /// launch of this iteration.
  void Start() {
    if (ok_ && Check(cudaPeekAtLastError(), "an earlier CUDA call")) Check(cudaEventRecord(start_, stream_), "cudaEventRecord");
  }
  /// Records the stop event, waits for it and sets the iteration's time to
  /// the elapsed device time (seconds). Returns that time, 0 on an error.
  double Stop() {
    if (!ok_) return 0;
    float ms = 0;
    // A launch that failed before it started (a bad configuration, no
    // kernel image for this device) is reported only through the last
    // error; the events around it would time nothing.
    if (!Check(cudaPeekAtLastError(), "kernel launch") ||
        !Check(cudaEventRecord(stop_, stream_), "cudaEventRecord") ||
        !Check(cudaEventSynchronize(stop_), "cudaEventSynchronize") ||
        !Check(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime"))
      return 0;
    const double seconds = static_cast<double>(ms) * 1e-3;
    state_.SetIterationTime(seconds);
    return seconds;
  }
  /// False once a CUDA call failed (the benchmark is then skipped).
  bool ok() const { return ok_; }

 private:
  bool Check(cudaError_t err, const char* what) {
    if (err == cudaSuccess) return true;
    if (ok_) {
      ok_ = false;
      const std::string message = std::string(what) + ": " + cudaGetErrorString(err);
      state_.SkipWithError(message.c_str());
    }
    cudaGetLastError();  // resets the runtime's last error
    return false;
  }

  benchmark::State& state_;
  cudaStream_t stream_ = nullptr;
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
  bool ok_ = true;
};

}  // namespace gpugate
