// Benchmark programs as workloads (`kind: gbench`, `kind: nvbench`): the
// program times its own benchmarks; gpugate runs it as a child process, reads
// the JSON it writes and turns every benchmark it reports into a workload
// "<workload name>/<benchmark name>". One process is one round of every
// benchmark (the unit of replication), so a run of `rounds` processes sees the
// noise between processes, and `ab` pairs round r of base with round r of head
// per benchmark.
//
//   for each process (up to `rounds`, stopping early past `max_time` once 2 ran):
//     run argv + selection + output flags -> read JSON (ingest/) -> one round each
//
// Semantics and flags: docs/suite.md ("Benchmark programs").
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "config/suite.h"
#include "cupti/profile.h"
#include "harness/clock.h"
#include "harness/process_tree.h"
#include "harness/runner.h"
#include "model/results.h"

namespace gpugate {

/// What one process of a program gave: per benchmark a result whose single
/// round holds this process's samples, or why the process failed.
struct ProgramProcess {
  std::vector<WorkloadResult> benchmarks;  ///< names as the program reports them
  std::optional<std::string> failure;      ///< crash, non-zero exit, timeout, unreadable JSON
  LeftoverReport leftovers;                ///< processes it left behind, ended after it
  std::optional<CuptiExecution> cupti;     ///< profile: cupti: what the process traced
};

/// Runs a program once (seam for tests): `spec` as resolved for this process,
/// `timeout_seconds` its wall-clock limit.
using ProgramExecutor = std::function<ProgramProcess(const WorkloadSpec& spec, double timeout_seconds)>;

/// The command line of one process: spec.argv followed by the selection
/// (gbench: --benchmark_filter, --benchmark_repetitions, --benchmark_min_time;
/// nvbench: --benchmark and --axis per entry) and the output flags
/// (gbench: --benchmark_out=<json_path> --benchmark_out_format=json;
/// nvbench: --jsonbin <json_path>). `only_benchmarks`, when set, replaces the
/// suite's selection.
std::vector<std::string> ProgramArgv(const WorkloadSpec& spec, const std::string& json_path);

/// A POSIX extended regular expression (Google Benchmark's filter syntax)
/// that matches exactly the given names: "^(a|b\\/8)$" with every special
/// character escaped. Precondition: names non-empty.
std::string ExactNamesFilter(const std::vector<std::string>& names);

/// Whether the command line that selects `spec.only_benchmarks` fits what
/// Linux lets a program start with: each argument under 128 KiB (a Google
/// Benchmark filter is one argument) and the selection under 1 MiB in all.
/// When it does not, the program is run whole instead.
bool SelectionFitsTheCommandLine(const WorkloadSpec& spec);

/// The program's benchmark name of a result "<spec name>/<benchmark>", or
/// nothing when the result does not belong to the spec.
std::optional<std::string> ProgramBenchmarkOf(const WorkloadSpec& spec, const std::string& result_name);

/// Runs the program once for real (a fresh temporary folder for its JSON,
/// removed afterwards), stdout discarded, stderr's tail kept for messages.
ProgramProcess RunProgramOnce(const WorkloadSpec& spec, double timeout_seconds);

/// Runs the program `spec.sampling.rounds` times (fewer once `max_time` of
/// wall time is spent and 2 processes ran) and merges the processes per
/// benchmark. A failing first process gives one failed workload named after
/// the spec; a later failure marks every benchmark failed with the process
/// number and the reason; a benchmark a later process no longer reports is
/// failed. Benchmarks the program skips are skipped with its reason. What
/// the processes left behind (ended after each) is a note on every result.
std::vector<WorkloadResult> RunProgramWorkload(const WorkloadSpec& spec, ProgressSink* progress,
                                               Clock& clock, const ProgramExecutor& execute);

/// How a failure names the process it happened in. `gpugate run` counts the
/// spec's processes ("process 2 of 5"); `ab` runs one process per side and
/// round and names it by its round ("round 3 of 6"), as its other messages do.
struct ProcessNumbering {
  std::string unit = "process";
  int first = 1;  ///< the number of the spec's first process
  int total = 0;  ///< processes in all; 0: the spec's rounds
};

/// RunProgramWorkload with failures numbered by `numbering`.
std::vector<WorkloadResult> RunProgramWorkload(const WorkloadSpec& spec, ProgressSink* progress,
                                               Clock& clock, const ProgramExecutor& execute,
                                               const ProcessNumbering& numbering);

/// Same with the real executor and a steady clock.
std::vector<WorkloadResult> RunProgramWorkload(const WorkloadSpec& spec, ProgressSink* progress = nullptr,
                                               const ProcessNumbering& numbering = {});

namespace detail {

/// Below this many free bytes (or with no free inode) the folder of a
/// program's JSON counts as full.
constexpr int64_t kNearlyFullBytes = int64_t{1} << 20;

/// Why an empty JSON file came back: Google Benchmark leaves it empty when
/// its filter matches no benchmark, and also when it cannot write it (it
/// does not check its writes: a full disk). Both are named; with
/// `free_bytes` below kNearlyFullBytes the full folder is said as well.
std::string EmptyJsonReason(const std::string& program, const std::string& folder,
                            std::optional<int64_t> free_bytes);

/// Bytes an unprivileged process may still write in `folder`'s file system
/// (statvfs; 0 when no inode is free), or nothing when statvfs fails.
std::optional<int64_t> FreeBytes(const std::string& folder);

}  // namespace detail

}  // namespace gpugate
