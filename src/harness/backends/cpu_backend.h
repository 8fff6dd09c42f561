// Backend "cpu": runs the builtin kernels (cpu_kernels.h) on this machine.
// Fast kernels are batched: a sample runs the kernel enough times in a row to
// last at least `min_sample_seconds`, so clock resolution and the cost of
// reading the clock do not dominate.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "harness/backend.h"
#include "harness/backends/cpu_kernels.h"

namespace gpugate {

struct CpuBackendOptions {
  /// Target duration of one sample; 0 disables batching (one call per sample).
  double min_sample_seconds = 1e-3;
  /// Upper bound on the calibrated batch size.
  int64_t max_iterations_per_sample = int64_t{1} << 30;
};

class CpuBackend final : public Backend {
 public:
  explicit CpuBackend(CpuBackendOptions options = {}) : options_(options) {}
  std::string Name() const override { return "cpu"; }
  /// Only kind builtin.
  std::optional<std::string> Unsupported(const WorkloadSpec& spec) const override;
  /// Creates the kernel (unknown name or bad size: kInputError), runs it once
  /// and calibrates the batch size: timed batches double until one
  /// sample lasts at least min_sample_seconds. Samples report the time of
  /// the whole batch (steady_clock).
  Result<std::unique_ptr<WorkloadInstance>> Prepare(const WorkloadSpec& spec) override;

 private:
  CpuBackendOptions options_;
};

namespace detail {
/// Batch size after a single call took `seconds_per_call`: the smallest power
/// of two whose batch lasts at least `target_seconds`, clamped to
/// [1, max_iterations]. A zero or negative measurement counts as 1 ns.
int64_t CalibrateIterations(double seconds_per_call, double target_seconds, int64_t max_iterations);
}  // namespace detail

}  // namespace gpugate
