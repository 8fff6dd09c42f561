// Backend "cpu": builtin kernels, batched and timed with steady_clock.
#include "harness/backends/cpu_backend.h"

#include <algorithm>
#include <chrono>
#include <utility>

namespace gpugate {

namespace detail {

int64_t CalibrateIterations(double seconds_per_call, double target_seconds, int64_t max_iterations) {
  if (target_seconds <= 0) return 1;
  const double per_call = seconds_per_call > 1e-9 ? seconds_per_call : 1e-9;
  int64_t iters = 1;
  while (iters < max_iterations && per_call * static_cast<double>(iters) < target_seconds) iters *= 2;
  return iters < max_iterations ? iters : max_iterations;
}

}  // namespace detail

namespace {

using SteadyTime = std::chrono::steady_clock;

double SecondsBetween(SteadyTime::time_point a, SteadyTime::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

class CpuInstance final : public WorkloadInstance {
 public:
  CpuInstance(std::unique_ptr<CpuKernel> kernel, int64_t iterations)
      : kernel_(std::move(kernel)), iterations_(iterations) {}

  Result<Sample> RunSample() override {
    CpuKernel& k = *kernel_;
    const int64_t iters = iterations_;
    const auto start = SteadyTime::now();
    for (int64_t i = 0; i < iters; ++i) k.Run();
    const auto stop = SteadyTime::now();
    Sample s;
    s.seconds = SecondsBetween(start, stop);
    return s;
  }
  WorkCounts Work() const override { return kernel_->Work(); }
  int64_t IterationsPerSample() const override { return iterations_; }
  Status Verify() override { return kernel_->Verify(); }

 private:
  std::unique_ptr<CpuKernel> kernel_;
  int64_t iterations_;
};

}  // namespace

std::optional<std::string> CpuBackend::Unsupported(const WorkloadSpec& spec) const {
  if (spec.kind != WorkloadKind::kBuiltin) return "backend cpu runs only builtin kernels";
  return std::nullopt;
}

Result<std::unique_ptr<WorkloadInstance>> CpuBackend::Prepare(const WorkloadSpec& spec) {
  auto kernel = MakeCpuKernel(spec.kernel, spec.sizes);
  if (!kernel.ok()) return kernel.error();
  std::unique_ptr<CpuKernel> k = std::move(kernel).value();
  // The first call touches the buffers (page faults). Then batches are timed
  // until one lasts min_sample_seconds; each step at least doubles the batch.
  k->Run();
  const double target = options_.min_sample_seconds;
  const int64_t max_iters = options_.max_iterations_per_sample > 0 ? options_.max_iterations_per_sample : 1;
  int64_t iters = 1;
  for (;;) {
    const auto start = SteadyTime::now();
    for (int64_t i = 0; i < iters; ++i) k->Run();
    const double elapsed = SecondsBetween(start, SteadyTime::now());
    if (elapsed >= target || iters >= max_iters) break;
    const int64_t next = detail::CalibrateIterations(elapsed / static_cast<double>(iters), target, max_iters);
    iters = std::min(max_iters, std::max(next, iters * 2));
  }
  return std::unique_ptr<WorkloadInstance>(std::make_unique<CpuInstance>(std::move(k), iters));
}

}  // namespace gpugate
