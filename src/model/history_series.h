// A workload's level in every run of a baseline history, and the step
// changes among them (E-divisive means, stats/change_point.h): what
// `gpugate history` prints and `gpugate dashboard` draws.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/baseline.h"
#include "stats/change_point.h"

namespace gpugate {

/// A change of level: the first run at the new level and the ratio of the
/// new level's median to the old one's.
struct HistoryStep {
  size_t run = 0;   ///< 0-based index into Baseline::runs
  double ratio = 1;
  double p_value = 1;
  size_t n_before = 0, n_after = 0;
};

struct WorkloadHistory {
  std::string name;
  std::vector<size_t> runs;    ///< baseline run indices that hold a value
  std::vector<double> values;  ///< log run-level values, same order
  std::vector<HistoryStep> steps;
};

/// The run-level value of a workload for a metric on a log scale (steps are
/// ratios), or nullopt when the run has none: the median of the samples for
/// the workload's primary metric, or throughput / peak memory.
std::optional<double> RunLevelLog(const WorkloadResult& w, const std::string& metric);

/// "2026-11-20 14:03 ab12cd3": when a run was made and its commit, as the
/// report's and the dashboard's pictures label it; the run id when neither
/// is known.
std::string RunLabel(const RunInfo& r);

/// Whether `metric` is time, throughput, peak_memory or a primary metric of
/// some workload of the history.
bool HistoryHasMetric(const Baseline& b, const std::string& metric);

/// Every workload of the history (first-seen order; only those matching one
/// of `globs` when given) with its series and the steps of at least
/// `min_step` (fraction) among them.
std::vector<WorkloadHistory> BuildHistories(const Baseline& b, const std::string& metric,
                                            const std::vector<std::string>& globs,
                                            const ChangePointOptions& options, double min_step = 0);

}  // namespace gpugate
