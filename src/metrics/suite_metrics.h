// The `metrics:` and `chip:` keys of a suite checked against CUPTI's metric
// tables (metric_catalog.h), on any machine, and what a run records about
// them: this version plans metrics but does not collect them.
#pragma once

#include <string>
#include <vector>

#include "config/suite.h"
#include "metrics/metric_catalog.h"
#include "model/results.h"
#include "util/result.h"

namespace gpugate {

/// The plan of one workload's metrics.
struct WorkloadMetricPlan {
  std::string workload;  ///< expanded name
  MetricPlan plan;
};

/// Checks the metrics of every workload that has `metrics:` against its
/// `chip:` and counts the replay passes of each set. Workloads expanded from
/// one template share their check. Errors point at the suite entry:
/// "suite.yaml:7:9: unknown metric 'x' for chip GA100 ..." (exit 2); an
/// unknown chip at the `chip:` value; in a build without CUDA, any
/// `metrics:` is an error at its first entry (exit 2); a CUPTI failure keeps
/// exit 3.
Result<std::vector<WorkloadMetricPlan>> PlanSuiteMetrics(const std::vector<WorkloadSpec>& workloads);

/// The note a result of a workload with metrics carries when they were not
/// collected (only builtin kernels on a CUDA device collect them, see
/// range_profiler.h). "" without metrics.
std::string MetricsNotCollectedNote(const WorkloadSpec& spec);

/// Adds MetricsNotCollectedNote(spec) to each result of `spec` whose backend
/// did not try to collect them (no counter "metric_ranges"); none when the
/// workload lists no metrics.
void NoteMetricsNotCollected(const WorkloadSpec& spec, std::vector<WorkloadResult>* results);

}  // namespace gpugate
