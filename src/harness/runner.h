// The runner: the measurement recipe shared by every backend.
//   Prepare -> Warmup -> rounds of samples (adaptive stop) -> Verify -> Summarize
// It knows nothing about statistics beyond the stop rule and nothing about
// what executes a sample (that is the Backend seam, backend.h).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "config/suite.h"
#include "harness/backend.h"
#include "harness/clock.h"
#include "model/results.h"

namespace gpugate {

/// Receives progress while a suite runs (the CLI draws it on a TTY).
class ProgressSink {
 public:
  virtual ~ProgressSink() = default;
  virtual void WorkloadStarted(const WorkloadSpec& /*spec*/, int /*index*/, int /*total*/) {}
  /// `samples`: taken so far, or -1 where a round is a process whose samples are not counted.
  virtual void RoundFinished(const WorkloadSpec& /*spec*/, int /*round*/, int64_t /*samples*/) {}
  virtual void WorkloadFinished(const WorkloadResult& /*result*/) {}
  /// The end of an A/B pair: both sides' results of one name. The default
  /// reports the worse side as WorkloadFinished (failed, then skipped, then
  /// ok; the head on a tie), so a failed side never reads ok.
  virtual void PairFinished(const WorkloadResult& base, const WorkloadResult& head) {
    auto rank = [](WorkloadStatus s) { return s == WorkloadStatus::kFailed ? 2 : s == WorkloadStatus::kOk ? 0 : 1; };
    WorkloadFinished(rank(base.status) > rank(head.status) ? base : head);
  }
};

struct RunOptions {
  /// auto | cpu | cuda: forces the builtin backend; "" = each workload's own.
  std::string backend;
  /// Extra seed mixed into synthetic workloads, so repeated runs of one suite
  /// draw different (but reproducible) samples. 0 = the suite's seeds alone.
  uint64_t run_seed = 0;
  /// Results a run may hold: a results file's limit (kMaxWorkloadsPerResult,
  /// which every reader holds files to). A benchmark program whose
  /// benchmarks would pass it fails. Tests lower it.
  size_t max_workloads = 100000;
};

/// Owns the backends and picks one per workload.
class BackendSet {
 public:
  explicit BackendSet(const RunOptions& options);
  ~BackendSet();
  /// The backend for a workload, or an Error naming why none can run it
  /// (e.g. "backend cuda requested but no CUDA device: <reason>").
  Result<Backend*> For(const WorkloadSpec& spec);

 private:
  RunOptions options_;
  std::vector<std::unique_ptr<Backend>> backends_;
};

/// Runs one workload with the recipe. Never throws for workload failures:
/// they come back as status failed/skipped with a reason.
WorkloadResult RunWorkload(const WorkloadSpec& spec, Backend& backend,
                           ProgressSink* progress = nullptr);

/// Same, reading wall time (max_time, timeout) from `clock`; tests pass a
/// fake clock. Semantics of the recipe: docs/harness.md.
WorkloadResult RunWorkload(const WorkloadSpec& spec, Backend& backend, ProgressSink* progress,
                           Clock& clock);

/// Runs the given (already filtered) workloads of a suite in order.
/// The returned Results have run metadata filled except for the fields the
/// caller owns (shard).
Results RunSuite(const Suite& suite, const std::vector<WorkloadSpec>& workloads,
                 const RunOptions& options, ProgressSink* progress = nullptr);

}  // namespace gpugate
