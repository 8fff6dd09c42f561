// One summary per kernel per run: the unit of replication of per-kernel
// comparison. Instances of a kernel within one run share that run's machine
// state (clocks, co-running work, memory layout), so they are not
// independent samples of the kernel's time; each run contributes one value
// per kernel and compare judges across runs (docs/kernels.md).
#pragma once

#include <optional>
#include <span>

#include "model/results.h"

namespace gpugate {

/// Launches of one size needed for its own median in kGroupMedianPerCall;
/// sizes launched fewer times are pooled.
inline constexpr int kMinGroupInstances = 3;

/// The statistic a run's kernel instances are summarized by.
enum class KernelStatistic {
  /// Every run has instances with their launch groups: the instances of
  /// each launch configuration at their median, weighted by their count —
  /// the mean time per call, robust to a stray slow instance.
  kGroupMedianPerCall,
  kMedianPerCall,  ///< median instance duration (every run has instances)
  kMeanPerCall,    ///< total_s / count (some run has totals only)
};

/// A run's summary of one kernel.
struct KernelRunSummary {
  double value = 0;  ///< seconds per call
  int64_t instances = 0;
  /// The clock step every call's duration lies on: the coarsest of 1 ms,
  /// 100 us, 10 us and 1 us (whole microseconds: Kineto before PyTorch 2),
  /// else 0 (finer or unknown). A median of 4.5 us calls reads 4 or 5 us by
  /// the draw of one call.
  double clock_step_s = 0;
};

/// The statistic every one of `kernels` (the same kernel in several runs)
/// supports: group medians when all have instances and launch groups, the
/// median when all have instances, else the mean.
KernelStatistic ChooseKernelStatistic(std::span<const KernelResult* const> kernels);

/// The coarsest of 1 ms, 100 us, 10 us and 1 us that every call of `k`
/// lies on, else 0 (finer, unknown, or no call).
double KernelClockStep(const KernelResult& k);

/// The clock of a run's trace: the finest grid that the run's kernels of
/// several calls all on a grid show (and its one-call kernels on a grid then
/// too), else 0. A trace has one clock: a kernel whose every call reads
/// 10 us in a trace whose other kernels read 37 or 588 us is on the 1 us
/// clock, not on a 10 us one. Kernels off every grid do not lower it: in a
/// trace whose kernels are partly whole microseconds those keep their step.
/// When no kernel of several calls lies on a grid, the clock is finer (0)
/// if one of several calls shows it, or if most one-call kernels lie on no
/// grid (a nanosecond clock reads a whole microsecond once in a thousand).
double RunClockStep(const WorkloadResult& w);

/// `k` summarized by `statistic`; nullopt when it holds no time. Calls that
/// read 0 s (below the trace's resolution) count, so a summary can be 0.
/// No within-run spread is attached: instances of one run are not
/// independent, and the spread of a kernel's instances is mostly calls of
/// different shapes, which another run repeats. Replication is by run.
std::optional<KernelRunSummary> SummarizeKernelRun(const KernelResult& k, KernelStatistic statistic);

}  // namespace gpugate
