// Suite configuration (`suite.yaml`, version 1) as plain structs. Parsing
// (yaml-cpp) lives in suite.cc; every error names file:line:col.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "util/result.h"

namespace gpugate {

/// Where a value came from, for messages: "suite.yaml:12:5".
struct SourceLocation {
  std::string file;
  int line = 0;    ///< 1-based; 0 when unknown
  int column = 0;  ///< 1-based
  std::string ToString() const;
};

/// Sampling settings; `defaults:` in the suite, overridable per workload.
struct Sampling {
  int warmup = 5;               ///< untimed samples before the first round
  int min_samples = 10;         ///< total over all rounds
  int max_samples = 200;        ///< total over all rounds
  double min_time = 0.5;        ///< seconds of measured time, total
  double max_time = 30.0;       ///< seconds of wall time, total
  double target_rel_ci = 0.01;  ///< stop once the relative 95% CI half-widths of the median and of the run level over rounds are <= this
  int rounds = 20;              ///< replication units
  double timeout = 60.0;        ///< seconds; per workload wall time before it is killed
};

/// Declared distribution of the synthetic backend (seeded, for tests/demos).
struct SyntheticSpec {
  double median = 1e-3;         ///< seconds
  double cv = 0.02;             ///< lognormal coefficient of variation within a round
  double round_drift_cv = 0.0;  ///< lognormal CV of a per-round multiplicative shift
  double run_drift_cv = 0.0;    ///< lognormal CV of a per-run shift (between-run noise)
  double outlier_rate = 0.0;    ///< probability a sample is an outlier
  double outlier_scale = 3.0;   ///< outlier multiplier
  double bimodal_ratio = 1.0;   ///< second mode = median * ratio
  double bimodal_weight = 0.0;  ///< probability of the second mode
  double slowdown = 1.0;        ///< multiplicative factor applied to every sample
  uint64_t seed = 1;            ///< base seed; combined with the workload name
};

enum class WorkloadKind { kBuiltin, kCommand, kSynthetic, kGbench, kNvbench, kStatic };

/// "builtin", "command", "synthetic", "gbench", "nvbench", "static".
const char* ToString(WorkloadKind kind);

/// Whether the workload is a benchmark program (gbench, nvbench): one process
/// is one round of every benchmark it reports, each its own workload
/// "<name>/<benchmark>" (harness/program_runner.h).
inline bool IsBenchmarkProgram(WorkloadKind kind) {
  return kind == WorkloadKind::kGbench || kind == WorkloadKind::kNvbench;
}


/// Limits of a suite (docs/suite.md "Limits"): counts that decide how much
/// is allocated or run are refused beyond these, with the position.
inline constexpr int64_t kMaxSuiteWorkloads = 100000;  ///< after params expansion
/// Bytes of text (names, argv, env, paths...) of the workloads that params
/// expand into, all together: each one is a copy of its template.
inline constexpr uint64_t kMaxSuiteTextBytes = uint64_t{256} << 20;
inline constexpr int64_t kMaxRounds = 10000;
inline constexpr int64_t kMaxSamplesPerWorkload = 1000000;  ///< min/max_samples, warmup
inline constexpr int64_t kMaxRepetitions = 10000;           ///< gbench repetitions
inline constexpr int kMaxShards = 4096;
/// Durations (times, timeouts) must be below this many seconds (~31.7 years).
inline constexpr double kMaxDurationSeconds = 1e9;

/// Processes per run of a benchmark program when `rounds` is set neither on
/// the workload nor in `defaults:`.
inline constexpr int kProgramDefaultRounds = 5;

/// Executions per run of a `measure: instructions` workload when `rounds` is
/// set neither on the workload nor in `defaults:` (the count is deterministic:
/// more executions only confirm it).
inline constexpr int kInstructionDefaultRounds = 3;

/// A hardware-counter metric a workload asks for (docs/gpu-metrics.md).
struct MetricRequest {
  std::string name;         ///< full name with rollup: "dram__bytes_read.sum"
  SourceLocation location;  ///< of the list entry
};

/// One expanded workload (parameters substituted, defaults merged).
struct WorkloadSpec {
  std::string name;                 ///< expanded, unique in the suite
  std::string template_name;        ///< as written, "saxpy/{n}"
  WorkloadKind kind = WorkloadKind::kBuiltin;
  std::string backend = "auto";     ///< auto | cpu | cuda
  std::vector<std::pair<std::string, std::string>> params;  ///< name -> value text
  std::vector<std::string> tags;
  Sampling sampling;
  SourceLocation location;          ///< of the workload's mapping in the file

  /// `metrics:` (any kind but synthetic): counters for the range profiler,
  /// checked against `chip` on any machine (metrics/suite_metrics.h). This
  /// version collects them only for builtin kernels on a CUDA device
  /// (metrics/range_profiler.h); other results say they were not collected.
  std::vector<MetricRequest> metrics;
  std::string chip;                 ///< `chip:` (GH100, ...), set exactly when metrics are
  SourceLocation chip_location;

  // kind: builtin
  std::string kernel;               ///< "saxpy", "triad", "copy", "reduce", "sgemm_naive", "sgemm_blocked"
  std::map<std::string, int64_t> sizes;  ///< numeric params parsed as sizes ("n" -> 1048576)
  bool l2_cold = true;              ///< l2: cold | hot

  // kind: command
  std::vector<std::string> argv;    ///< {param} placeholders substituted
  bool shell = false;               ///< run argv[0] through /bin/sh -c
  std::map<std::string, std::string> env;
  std::string cwd;                  ///< absolute after loading (a relative `cwd:` is taken from the suite file's folder); "" = inherit
  std::string profile = "none";     ///< none | cupti (command and gbench; docs/cupti.md)
  /// time: wall time per execution (the process backend); instructions:
  /// instructions executed under valgrind's cachegrind, a deterministic count
  /// (harness/instruction_runner.h).
  std::string measure = "time";
  bool cache_sim = false;           ///< instructions: also simulate caches (estimated cycles)
  /// A benchmark file the command writes (Google Benchmark, nvbench, pytest-
  /// benchmark or custom JSON): each benchmark in it becomes a workload
  /// "<name>/<benchmark>" and each execution a round, as for kind gbench.
  /// Absolute after loading (relative to `cwd`, else gpugate's directory).
  std::string results;
  bool bigger_is_better = false;    ///< results: custom JSON values are bigger-is-better

  // kind: gbench and nvbench (argv, env and cwd as for command; no shell)
  std::string filter;               ///< gbench: --benchmark_filter regex ("" = all)
  int repetitions = 0;              ///< gbench: --benchmark_repetitions (0 = the program's default)
  std::optional<double> program_min_time;  ///< gbench: --benchmark_min_time, seconds (workload's `min_time:`)
  std::vector<std::string> benchmarks;     ///< nvbench: --benchmark per entry ("" list = all)
  std::vector<std::string> axes;           ///< nvbench: --axis per entry (after the benchmarks)
  /// Set by the gate for a confirmation re-run: only these benchmarks (names
  /// as the program reports them), instead of `filter` / `benchmarks`.
  std::vector<std::string> only_benchmarks;

  // kind: synthetic
  SyntheticSpec synthetic;

  // kind: static (harness/static_runner.h): the static kernel metrics of a
  // binary, read without a GPU. Paths are absolute after loading (relative
  // ones are taken from the suite file's folder) unless they start with
  // {bin}, which --bin (or ab's --base/--head) replaces.
  std::string file;                 ///< cubin, fatbin, object, library or executable
  std::string ptxas_log;            ///< optional `ptxas -v` / --resource-usage log of the same build

  /// `skip_unchanged:` (builtin, command, gbench, nvbench): `gate` does not
  /// measure the workload when every static workload named here holds the
  /// same SASS as in the baseline (the result is skipped with
  /// code_unchanged). The names of a list as written; empty for `true`
  /// (skip_unchanged_all) and when not set: SkipUnchangedNames() gives them.
  std::vector<std::string> skip_unchanged;
  /// `skip_unchanged: true`: every static workload of the suite, one list
  /// shared by every workload that says so (not copied into each).
  std::shared_ptr<const std::vector<std::string>> skip_unchanged_all;
  SourceLocation skip_unchanged_location;
  std::vector<SourceLocation> skip_unchanged_element_locations;  ///< one per name in the list
};

/// The static workloads whose code `skip_unchanged` ties the workload to:
/// every static workload of the suite for `true`, else the names written.
inline const std::vector<std::string>& SkipUnchangedNames(const WorkloadSpec& spec) {
  return spec.skip_unchanged_all ? *spec.skip_unchanged_all : spec.skip_unchanged;
}

/// Whether the workload's code is named by a static workload and can be
/// skipped when that code did not change (`skip_unchanged`).
inline bool SkipsWhenUnchanged(const WorkloadSpec& spec) { return !SkipUnchangedNames(spec).empty(); }

/// Whether the workload reports benchmarks of its own (a benchmark program,
/// or a command with `results:`), each a workload of its own.
inline bool ReportsBenchmarks(const WorkloadSpec& spec) {
  return IsBenchmarkProgram(spec.kind) || (spec.kind == WorkloadKind::kCommand && !spec.results.empty());
}

struct Suite {
  int version = 1;
  std::string name;                 ///< `name:` or the file stem
  std::string path;                 ///< file it was read from
  Sampling defaults;
  std::vector<WorkloadSpec> workloads;
  /// "file:line:col: message" for what is allowed but almost always a
  /// mistake (a parameter only the name reads); the commands print them.
  std::vector<std::string> warnings;
};

/// Parses and expands a suite. Errors: "file:line:col: message", exit code 2.
Result<Suite> LoadSuiteFile(const std::string& path);
/// Same from text; `name` stands in for the file name in messages.
Result<Suite> LoadSuiteFromString(const std::string& text, const std::string& name);

/// Sizes: "1M" = 1000000, "1Mi" = 1048576, K/M/G and Ki/Mi/Gi, plain integers.
Result<int64_t> ParseSize(const std::string& text);
/// Durations: "500ms", "2s", "1m", "100us", "250ns", plain number = seconds;
/// finite, not negative and below kMaxDurationSeconds.
Result<double> ParseDuration(const std::string& text);

/// Keeps workloads whose name matches the glob (`*`, `?`, `[...]`) and that carry the tag.
std::vector<WorkloadSpec> FilterWorkloads(const std::vector<WorkloadSpec>& in,
                                          const std::vector<std::string>& globs,
                                          const std::vector<std::string>& tags);
/// Shell-style match of the whole text: `*` any run (also across '/'), `?` one
/// character, `[abc]`, `[a-z]`, `[!x]` (or `[^x]`), `\c` a literal c. An
/// unclosed `[` is a literal. A character is a UTF-8 code point (`?` and
/// `[é]` match `é`, two bytes; ranges are ranges of code points); a byte of
/// invalid UTF-8 counts as one character. Time is at most pattern x text.
bool GlobMatch(const std::string& pattern, const std::string& text);

/// Kernel names of `kind: builtin`, shared by every backend:
/// copy, triad, saxpy, reduce, sgemm_naive, sgemm_blocked.
const std::vector<std::string>& BuiltinKernelNames();

/// Parses "--shard i/N" (1 <= i <= N <= kMaxShards). Returns {i, N}; errors exit 2.
Result<std::pair<int, int>> ParseShard(const std::string& text);

/// Shard `index` (1-based) of `count`: the workloads whose FNV-1a 64-bit name
/// hash modulo `count` equals index - 1, in suite order. Shards are disjoint and
/// together cover the suite, independent of filters and suite order.
/// Precondition: 1 <= index <= count.
std::vector<WorkloadSpec> SelectShard(const std::vector<WorkloadSpec>& in, int index, int count);

}  // namespace gpugate
