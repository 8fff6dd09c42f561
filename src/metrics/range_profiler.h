// Collecting hardware-counter metrics on a device: the CUPTI range profiler
// in auto-range, kernel-replay mode (one range per kernel launch; CUPTI
// replays each kernel as many times as the metrics' passes need). Used by the
// CUDA backend for builtin kernels that list `metrics:`. The device part is
// range_profiler_cupti.cc (CUDA builds only); the conversion of the ranges
// into results is plain C++, tested on any machine (docs/gpu-metrics.md).
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "model/results.h"
#include "util/result.h"

namespace gpugate {

/// One profiled range: a kernel launch (auto range names it after the
/// kernel) and the value of every requested metric over it.
struct MetricRange {
  std::string name;
  std::map<std::string, double> values;  ///< metric name -> value
};

/// What one collection gave.
struct MetricCollection {
  std::string chip;                 ///< the device's chip, as CUPTI names it
  std::vector<MetricRange> ranges;  ///< in launch order
  size_t dropped_ranges = 0;        ///< ranges CUPTI could not keep
  size_t passes = 0;                ///< replay passes per kernel
};

/// Profiles the kernels `launch` starts on CUDA device `device` (at most
/// `max_ranges` launches) for `metrics`. `launch` must start its kernels
/// and return; the collector synchronizes. Errors are ToolErrors whose text
/// names the CUPTI call and result (CUPTI_ERROR_INSUFFICIENT_PRIVILEGES
/// when the driver restricts profiling to administrators). Needs a device
/// and a CUDA build; not verified on hardware (docs/gpu.md).
Result<MetricCollection> CollectKernelMetrics(int device, const std::vector<std::string>& metrics,
                                              const std::function<Status()>& launch, size_t max_ranges);

namespace detail {

/// A workload's counters from its profiled ranges: "metric:NAME" (the mean
/// over the launches) when every range is the same kernel, else
/// "metric:NAME@KERNEL" per kernel, keyed by name.
/// Metric values are counters, not timings: the judge does not test them.
std::map<std::string, double> MetricCounters(const std::vector<MetricRange>& ranges);

/// What to tell when metrics planned for `planned_chip` were collected on a
/// device whose chip is `device_chip`, or "" when they match or nothing was
/// planned (names are compared case-insensitively: the suite may write
/// "gh100").
std::string ChipMismatch(const std::string& planned_chip, const std::string& device_chip);

}  // namespace detail

}  // namespace gpugate
