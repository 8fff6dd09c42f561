// Shared pieces of commands that run suites (run, gate, ab, validate): suite
// selection from --filter/--tag/--shard and the human summary of a run.
#pragma once

#include <boost/program_options.hpp>
#include <optional>
#include <string>
#include <vector>

#include "config/suite.h"
#include "metrics/suite_metrics.h"
#include "model/results.h"
#include "util/result.h"

namespace gpugate {

struct SuiteSelection {
  Suite suite;
  std::vector<WorkloadSpec> workloads;   ///< after filter, tag and shard
  std::optional<std::string> shard;      ///< "i/N" when sharded
  size_t before_shard = 0;               ///< workloads the filters and tags selected
  /// The suite's `metrics:` checked against their chips, one per workload
  /// that has them (all workloads of the file, not only the selected).
  std::vector<WorkloadMetricPlan> metric_plans;
};

/// Loads the suite, checks its metrics against their chips, and applies the
/// selection.
Result<SuiteSelection> SelectWorkloads(const std::string& suite_path,
                                       const std::vector<std::string>& filters,
                                       const std::vector<std::string>& tags,
                                       const std::string& shard_text);

/// Adds --filter, --tag and --shard.
void AddSelectionOptions(boost::program_options::options_description& options);
/// --bin DIR: the build folder "{bin}" stands for in command and benchmark-
/// program workloads (run, gate, validate; ab has --base/--head).
void AddBinOption(boost::program_options::options_description& options);
/// Replaces "{bin}" in the selected workloads by --bin; without --bin, a
/// selected workload that uses {bin} is an input error naming it.
Status ApplyBinOption(SuiteSelection* selection, const boost::program_options::variables_map& vm);
/// --backend auto|cpu|cuda: where builtin kernels run (run, gate, ab); given,
/// it overrides every workload's `backend:`.
void AddBackendOption(boost::program_options::options_description& options);
/// The --backend given ("" when none: each workload's own `backend:`), or an
/// input error for another word.
Result<std::string> BackendFrom(const boost::program_options::variables_map& vm);
/// --env-key CLASS: the runner class (run, gate, compare, baseline update).
void AddEnvKeyOption(boost::program_options::options_description& options);
/// The runner class --env-key names, else the one GPUGATE_ENV_KEY names
/// (as a slug), else none; a class with no letter or digit in either is an
/// input error naming where it came from.
Result<std::optional<std::string>> EnvKeyFrom(const boost::program_options::variables_map& vm);
/// The runner class of a file from another tool (Google Benchmark, nvbench,
/// pytest-benchmark, custom JSON, a trace), which records none, when no
/// class is named: the GitHub-hosted runner's <os>-<arch>-<image>, as a run
/// gpugate measures there records (RunnerClassFromVariables). gpugate's own
/// results keep the class they were measured with. Sets `r`'s class when it
/// has none, and says whether it did.
bool DefaultRunnerClassOfIngested(Results* r);
/// The file of `r`'s suite and class in a baselines folder, for a run whose
/// class DefaultRunnerClassOfIngested set: when that class has no file but
/// the one the run would have had without a class does (a history begun
/// before gpugate named such files by the hosted class), that one, and `r`
/// loses the class so that it matches it.
std::string FolderFileOfDefaultedClass(const std::string& folder, Results* r);
/// Checks --env-key and sets GPUGATE_ENV_KEY to its slug, which
/// DetectEnvironment records in every run this process makes.
Status ApplyEnvKeyOption(const boost::program_options::variables_map& vm);
/// Warns on stderr when selected workloads list `metrics:`, which this
/// version does not collect (each result also carries a note).
void WarnMetricsNotCollected(const std::vector<WorkloadSpec>& workloads);
/// SelectWorkloads from the options AddSelectionOptions added. A selection
/// of nothing is an input error; an empty shard of a selection that holds
/// workloads is not (its workloads are empty, EmptyShardText says so).
Result<SuiteSelection> SelectFromOptions(const std::string& suite_path,
                                         const boost::program_options::variables_map& vm);
/// "shard i/N holds none of the K selected workloads" for an empty shard,
/// "" otherwise.
std::string EmptyShardText(const SuiteSelection& sel);

/// A table: workload, status, median, +-CI, samples/rounds, throughput; then
/// a line per failed or skipped workload with its reason, and a line per note
/// ("note: <workload>: <note>"), all escaped for the terminal.
std::string RenderRunSummary(const Results& results, bool color);

}  // namespace gpugate
