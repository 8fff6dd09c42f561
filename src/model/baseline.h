// Baseline history (`gpugate/baseline/v1`): the last K runs of one suite on one
// environment, oldest first, so compare knows the noise between CI runs and
// `history` can look for step changes. Stored at
// baselines/<suite>/<environment-key>.json (see docs/baselines.md).
#pragma once

#include <string>
#include <vector>

#include "model/results.h"
#include "util/result.h"

namespace gpugate {

inline constexpr const char* kBaselineSchema = "gpugate/baseline/v1";
inline constexpr int kBaselineMajorVersion = 1;

/// Most runs one history may hold (`--keep` at most this; a file with more is
/// refused): the step search of `gpugate history` grows with the square of it.
inline constexpr int kMaxBaselineRuns = 1000;

/// A history of complete (unsharded) runs of one suite on one environment.
struct Baseline {
  std::string schema = kBaselineSchema;
  std::string suite;
  std::string environment_key;   ///< EnvironmentKey() of the runs
  std::vector<Results> runs;     ///< oldest first
};

/// A short, stable, file-name-safe key for an environment fingerprint.
/// The runner class when one is named (env.runner_class). Otherwise, with a GPU: slug(gpu.name) + "-drv" + driver major + "-cuda" + CUDA version
/// ("nvidia-a100-sxm4-80gb-drv550-cuda13.0"); without one:
/// slug(cpu_model) + "-" + cores + "c" ("amd-epyc-7763-64-core-processor-2c").
/// Host names, clocks and OS are deliberately left out: runners come and go,
/// the hardware class is what makes timings comparable.
std::string EnvironmentKey(const Environment& env);

/// Lowercase ASCII slug: letters, digits and '.' kept, every other run of
/// characters becomes one '-', "(r)"/"(tm)" dropped, at most 48 characters,
/// no trailing '-' or '.'; ".git", the folder git reserves, becomes "git".
std::string Slug(const std::string& text);

/// Both environments name the same runner class.
bool SameRunnerClass(const Environment& a, const Environment& b);

/// Facts two runs state about themselves that make them two environments,
/// as {field, a, b}: Google Benchmark's `library_build_type`,
/// pytest-benchmark's Python implementation, and, outside one runner class,
/// another operating system or architecture (the first and last words of
/// `os`, "Linux 6.1.0 x86_64": a kernel update is not one). One rule for
/// compare (environment_check.cc) and `baseline update`.
std::vector<std::array<std::string, 3>> RunFactDifferences(const RunInfo& a, const RunInfo& b);

/// Fields that make two environments incomparable, as "field 'a' vs 'b'"
/// phrases (empty when they match): the runner class (when either names
/// one); with a GPU on either side the GPU model, driver major version and
/// CUDA version; otherwise CPU model and cores, except within one runner
/// class, where runs on different CPUs are compared with each run's speed
/// factor removed (docs/baselines.md "Runner classes").
std::vector<std::string> EnvironmentDifferences(const Environment& baseline,
                                                const Environment& current);

/// The conventional path: <root>/<suite slug>/<environment key>.json.
std::string BaselinePath(const std::string& root, const std::string& suite,
                         const std::string& environment_key);

/// Serialises a baseline; each run is written by ResultsToJson.
std::string BaselineToJson(const Baseline& baseline);

/// Parses a baseline. Errors name `name:line:col` of the offending value
/// (positions inside a run refer to the baseline file); unknown major
/// versions and other schemas are rejected (exit 2).
Result<Baseline> BaselineFromJson(const std::string& text, const std::string& name);

/// Reads a baseline file.
Result<Baseline> ReadBaselineFile(const std::string& path);

/// Writes a baseline atomically (temp file, fsync, rename): a reader, or a
/// process killed mid-write, sees either the old or the new file, never a mix.
Status WriteBaselineFile(const std::string& path, const Baseline& baseline);

/// Appends a run and keeps the newest `keep` runs (keep >= 1).
/// Refuses (exit 2) sharded results (merge them first), a run of another
/// suite, a run that measured no workload (all skipped or failed), a run id
/// already present, and — unless `force_env` — a run from
/// another environment, naming each field that differs. An empty baseline
/// takes its suite and environment key from the run; a forced append
/// re-keys the baseline to the new run's environment and drops the runs of
/// another environment (their count in `dropped_other_env`). A workload
/// measured in another unit than the history holds (UnitConflict) is
/// refused too, unless `force_env`: then that workload's older values in
/// the other unit are dropped (its history starts anew), and `notes` says so.
/// `file` is where the history is kept, for the path the refusal of another
/// environment suggests (the same folder, the run's key); "" names a
/// baselines/ folder.
Status AppendRun(Baseline& baseline, const Results& run, int keep, bool force_env, const std::string& file = "",
                 int* dropped_other_env = nullptr, std::vector<std::string>* notes = nullptr);

/// Why `current` and the runs of `baseline` (oldest first) read a metric
/// in opposite directions, or nullopt when none does: a workload's metric
/// that the newest baseline run holding it stores as bigger-is-better and
/// `current` as smaller-is-better, or the reverse. A custom benchmark file
/// says nothing of its direction; it is `--bigger-is-better` at reading, and
/// the baseline stores it, so a step that forgot the option (or gave it
/// once too often) is caught here, not judged backwards. The text names the
/// count and the first workloads. Only for a custom file (`current`'s
/// source_format): a suite's `bigger_is_better` is the suite's to change.
std::optional<std::string> DirectionConflict(const std::vector<Results>& baseline, const Results& current);

/// A unit as compared: rates per second spelled /s ("ops/sec", "MB/second",
/// "items per second" -> "ops/s", "MB/s", "items/s"); anything else as
/// written (units are case-sensitive: MB is not Mb).
std::string UnitKey(std::string_view unit);

/// A workload `current` measured in another unit than the newest baseline
/// run that holds it (custom JSON in MB/s, then GB/s): the sentence that
/// says so, or none. A history keeps one unit per workload and metric.
std::optional<std::string> UnitConflict(const std::vector<Results>& baseline, const Results& current);

/// Drops the oldest runs so at most `keep` remain (keep >= 1). Returns how
/// many were dropped.
int PruneBaseline(Baseline& baseline, int keep);

}  // namespace gpugate
