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
  double ratio = 1;  ///< new level over old: +inf from a level of 0, and +inf or 0
                     ///< where the quotient leaves the doubles (see log_ratio)
  double log_ratio = 0;  ///< ln(ratio) when both levels are above 0 (finite where ratio is not)
  double p_value = 1;
  size_t n_before = 0, n_after = 0;
};

/// "+6.2%", "×2.5e+03", "from 0", "to 0": a step as people read it, also
/// where its ratio is beyond the doubles.
std::string StepText(const HistoryStep& s);

struct WorkloadHistory {
  std::string name;
  std::vector<size_t> runs;    ///< baseline run indices that hold a value
  std::vector<double> levels;  ///< each run's level as stored (same order as runs)
  /// The series the steps are found in, same order: ln(level) on the newest
  /// run's CPU's scale; the levels themselves (so scaled) when one of them
  /// is 0 or below (a throughput or a count that fell to 0), which no log
  /// scale holds.
  std::vector<double> values;
  bool log_scale = true;
  std::vector<HistoryStep> steps;
  /// The search found ChangePointOptions::max_change_points, as many as it
  /// takes: more may be missing, and the ratios beside them span merged levels.
  bool search_capped = false;
  /// values[i] as a level (on the newest run's CPU's scale).
  double Level(size_t i) const;
};

/// The run-level value of a workload for a metric, or nullopt when the run
/// has none: the median of the samples for the workload's primary metric,
/// or throughput / peak memory.
std::optional<double> RunLevel(const WorkloadResult& w, const std::string& metric);

/// "2026-11-20 14:03 ab12cd3": when a run was made and its commit, as the
/// report's and the dashboard's pictures label it; the run id when neither
/// is known.
std::string RunLabel(const RunInfo& r);

/// Whether `metric` is time, throughput, peak_memory or a primary metric of
/// some workload of the history.
bool HistoryHasMetric(const Baseline& b, const std::string& metric);

/// The runs of one CPU model in a history whose runs ran on several (a
/// runner class whose machines change): their speed against the newest
/// run's CPU, read where a workload's series passes from one to the other
/// (the median of the ratios of the two runs there, then the median over
/// the workloads; a CPU that never meets it is reached through those it
/// meets). `scaled` when the series were divided by it: every CPU of the
/// history is reached over pairs that meet in at least
/// kMinCpuScaleWorkloads workloads; otherwise every run is left as
/// measured, and a step at a change of CPU may be the CPU's.
struct CpuSpeed {
  std::string cpu_model;
  size_t runs = 0;
  size_t workloads = 0;  ///< whose series pass between this CPU and the one it was reached from
                         ///< (left as measured: the most it shares with any one CPU)
  double ratio = 1;      ///< this CPU's level over the newest run's CPU's
  bool scaled = false;
};
inline constexpr size_t kMinCpuScaleWorkloads = 3;

/// One sentence per other CPU model (unescaped: the models are the runs'
/// text): "4 runs on 'X' are read on the scale of the newest run's CPU 'Y':
/// they ran 1.25x as long (the median over 8 workloads measured on both)",
/// or that too few workloads tell the CPU's speed from the code's.
std::vector<std::string> CpuSpeedLines(const std::vector<CpuSpeed>& cpus, const std::string& newest_cpu);

/// Every workload of the history (first-seen order; only those matching one
/// of `globs` when given) with its series and the steps of at least
/// `min_step` (fraction) among them. Runs on another CPU model than the
/// newest run's are put on its scale first, as compare removes a CPU's
/// speed (`cpus`, when given, receives one entry per other CPU model).
std::vector<WorkloadHistory> BuildHistories(const Baseline& b, const std::string& metric,
                                            const std::vector<std::string>& globs,
                                            const ChangePointOptions& options, double min_step = 0,
                                            std::vector<CpuSpeed>* cpus = nullptr);

}  // namespace gpugate
