// Backend "process": runs `kind: command` workloads as child processes.
// argv is executed directly (posix_spawn, no shell; argv[0] is looked up in
// the child's own PATH, as execvpe does) unless `shell: true`,
// which runs `/bin/sh -c argv[0] sh argv[1]...` (extra items become $1...).
// Each child gets its own process group, stdin/stdout on /dev/null and stderr
// through a pipe (drained with poll, the last lines kept for error messages).
// A sample is one execution: wall time (steady clock, spawn to exit) plus
// user/sys CPU time and max RSS from wait4 (only where it exceeds gpugate's
// own high-water RSS, which a process it starts inherits). Processes an execution leaves
// behind are ended after it (harness/process_tree.h) and reported as a note
// on the result.
#pragma once

#include <sys/resource.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/backend.h"
#include "harness/process_tree.h"

namespace gpugate {

struct ProcessBackendOptions {
  double term_grace_seconds = 0.2;  ///< SIGTERM -> SIGKILL delay on timeout
  int stderr_tail_lines = 20;       ///< lines of stderr kept for messages
  size_t stderr_tail_bytes = 4096;  ///< and at most this many bytes
};

class ProcessBackend final : public Backend {
 public:
  explicit ProcessBackend(ProcessBackendOptions options = {}) : options_(options) {}
  std::string Name() const override { return "process"; }
  /// Only kind command.
  std::optional<std::string> Unsupported(const WorkloadSpec& spec) const override;
  /// Checks argv and cwd (kInputError when bad), builds the environment
  /// (inherited, then spec.env on top) and starts the workload's wall-clock
  /// budget (spec.sampling.timeout): an execution still running when the
  /// budget is spent is killed with its whole process group and the sample
  /// fails with "timed out after <timeout>" (TimedOutMessage). A non-zero exit or a signal
  /// fails the sample with the status and the tail of stderr. The first call
  /// measures the spawn overhead (median of 5 runs of /bin/true), reported
  /// as counters["spawn_overhead_s"] on every command result.
  Result<std::unique_ptr<WorkloadInstance>> Prepare(const WorkloadSpec& spec) override;

  /// Spawn overhead measured so far (seconds), if any.
  std::optional<double> spawn_overhead_seconds() const { return spawn_overhead_; }

 private:
  ProcessBackendOptions options_;
  std::optional<double> spawn_overhead_;
  bool spawn_overhead_measured_ = false;
};

namespace detail {

/// A fully resolved command: what posix_spawn receives.
struct CommandLine {
  std::vector<std::string> argv;  ///< argv[0] without a '/' is looked up in envp's PATH
  std::vector<std::string> envp;  ///< "KEY=value" entries, the complete environment
  std::string cwd;                ///< empty = inherit
};

/// Outcome of one execution.
struct ExecOutcome {
  double wall_seconds = 0;  ///< spawn to exit (or to kill on timeout)
  int wait_status = 0;      ///< as from wait4
  bool timed_out = false;
  double user_seconds = 0;
  double sys_seconds = 0;
  /// The process's own peak resident set (wait4's ru_maxrss: the command and
  /// the descendants it waited for), or nothing when that is not above
  /// rss_floor_bytes. At execve Linux keeps the replaced address space's
  /// high-water mark, and the child of posix_spawn (CLONE_VM) or fork starts
  /// from gpugate's: a value up to gpugate's own high-water mark may be
  /// gpugate's, one above it can only be the process's.
  std::optional<int64_t> max_rss_bytes;
  /// gpugate's own high-water resident set (OwnHighWaterBytes), read before
  /// the spawn and after the reap, the larger of the two.
  int64_t rss_floor_bytes = 0;
  std::string stderr_tail;  ///< last lines of stderr (see options)
  LeftoverReport leftovers; ///< processes the execution left behind, ended after it
};

/// Counts the executions of a workload whose peak memory could not be told
/// from gpugate's own (ExecOutcome::max_rss_bytes) and says so once.
class PeakMemoryTally {
 public:
  void Add(const ExecOutcome& outcome);
  /// "peak memory not measured: the processes stayed below gpugate's own
  /// 95.0 MiB, which a process it starts inherits", or "peak memory measured
  /// in 3 of 5 executions: the others stayed below …"; empty when every
  /// execution was measured.
  std::string Note() const;

 private:
  int executions_ = 0;
  int unmeasured_ = 0;
  int64_t floor_bytes_ = 0;  ///< the largest floor of an unmeasured execution
};

/// Runs a command once, killing its process group after `timeout_seconds`
/// (SIGTERM, then SIGKILL after the grace period). gpugate is a child
/// subreaper meanwhile; once the command has exited, every process it left
/// behind is ended (EndLeftovers, same grace period) and stderr is read to its
/// end (at most 0.1 s more). Errors only when the command cannot be started
/// (e.g. not found), as a kToolError.
Result<ExecOutcome> ExecuteOnce(const CommandLine& command, double timeout_seconds,
                                const ProcessBackendOptions& options);

/// The value of variable `name` in "K=V" entries (the first one), if set.
std::optional<std::string> EnvironmentValue(const std::vector<std::string>& envp, std::string_view name);

/// The file the child runs for argv[0], as execvpe finds it: argv[0] itself
/// when it holds a '/', else the first executable regular file on the PATH
/// of the child's environment (`envp`; "/bin:/usr/bin" when PATH is unset),
/// relative entries taken from `cwd`. Not gpugate's own PATH: a workload's
/// `env: {PATH: ...}` decides which program runs. kToolError when none is found.
Result<std::string> FindProgram(const CommandLine& command);

/// gpugate's own high-water resident set in bytes: what a process it starts
/// may inherit. That is the high-water mark of gpugate's address space
/// (VmHWM of /proc/self/status), not getrusage(RUSAGE_SELF), whose ru_maxrss
/// also holds the mark gpugate itself inherited at its exec (a 300 MiB
/// Python that started it) and no child of gpugate's can inherit; ru_maxrss
/// only where /proc cannot be read.
int64_t OwnHighWaterBytes();
/// The VmHWM of /proc/<pid>/status text in bytes ("VmHWM:\t  5120 kB"), if
/// the text holds one.
std::optional<int64_t> HighWaterFromProcStatus(std::string_view status);

/// "timed out after 40.0 ms", "timed out after 60.0 s": a workload's timeout
/// in the one duration format of every output (FormatDuration).
std::string TimedOutMessage(double timeout_seconds);
/// "exited with status 3", "killed by signal SIGSEGV (11)".
std::string DescribeWaitStatus(int wait_status);
/// "SIGSEGV" for 11; "signal 42" for numbers without a common name.
std::string SignalName(int signal);
/// The last `max_lines` lines of `text`, and at most its last `max_bytes`
/// bytes; a trailing newline does not count as an empty last line.
std::string TailLines(std::string_view text, int max_lines, size_t max_bytes);
/// This process's environment as "K=V" entries.
std::vector<std::string> InheritedEnvironment();
/// The inherited environment `base` ("K=V" entries) with `overrides` set.
std::vector<std::string> MergeEnvironment(const std::vector<std::string>& base,
                                          const std::vector<std::pair<std::string, std::string>>& overrides);

}  // namespace detail

}  // namespace gpugate
