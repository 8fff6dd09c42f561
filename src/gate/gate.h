// The gate: measure a suite, judge it against a baseline, and re-run what
// stays doubtful (bounded) before the final judgement:
//   RunSuite -> Judge -> while doubtful and re-runs are left: Confirm -> Judge
// Measuring belongs to the harness and judging to compare/; this module only
// sequences them, so `gpugate gate` and the acceptance tests run one loop.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "compare/compare.h"
#include "config/policy.h"
#include "config/suite.h"
#include "harness/runner.h"
#include "model/results.h"
#include "model/verdicts.h"

namespace gpugate {

/// Measures `workloads` once with `options` (whose run_seed is already the
/// attempt's). The gate's measurement seam: RunSuite by default; tests pass
/// a fake. Every workload asked for should come back, failed or skipped
/// ones with their status and reason.
using SuiteRunner = std::function<Results(const std::vector<WorkloadSpec>& workloads,
                                          const RunOptions& options, ProgressSink* progress)>;

struct GateOptions {
  /// At most this many confirmation re-runs of doubtful workloads (0 = judge
  /// the first run alone).
  int confirmations = kDefaultConfirmations;
  /// Options of the first run; re-run k uses run_seed ConfirmationSeed(run_seed, k).
  RunOptions run;
  CompareOptions compare;
};

/// Progress of a gate: the suite's progress, plus the start of each re-run.
class GateProgress : public ProgressSink {
 public:
  /// Re-run `attempt` (1-based) of at most `max_attempts` is about to measure
  /// `workloads` (the ones still regressed or inconclusive).
  virtual void ConfirmationStarted(const std::vector<std::string>& /*workloads*/,
                                   int /*attempt*/, int /*max_attempts*/) {}
  /// A sentence about the re-runs to come (a program re-run whole), before
  /// the ConfirmationStarted it concerns; also a warning of the verdicts.
  virtual void ConfirmationNote(const std::string& /*sentence*/) {}
};

/// What the gate measured and decided.
struct GateOutcome {
  /// The first run with every confirmation round merged into its workloads
  /// (confirmation_reruns counted, summaries recomputed): the file `-o` writes.
  Results results;
  /// The first run, then each confirmation re-run as a run of its own (each
  /// one more replication unit for the judge).
  std::vector<Results> runs;
  /// The judgement of all runs after the last re-run.
  Verdicts verdicts;
};

/// Runs the gate with the real harness (RunSuite). Preconditions:
/// baseline_runs non-empty, options.confirmations >= 0.
GateOutcome RunGate(const Suite& suite, const std::vector<WorkloadSpec>& workloads,
                    const std::vector<Results>& baseline_runs, const Policy& policy,
                    const GateOptions& options, GateProgress* progress = nullptr);

/// Same, measuring through `run_suite`.
GateOutcome RunGate(const std::vector<WorkloadSpec>& workloads,
                    const std::vector<Results>& baseline_runs, const Policy& policy,
                    const GateOptions& options, GateProgress* progress,
                    const SuiteRunner& run_suite);

/// Whether another confirmation re-run could still change the gate's
/// outcome (its futility rule; docs/statistics.md §2a). True when `verdicts`
/// hold an unwaived regression (to be confirmed); an inconclusive verdict
/// that the policy fails (`on_inconclusive: fail`, or too noisy for
/// `require_detectable`), which more runs may settle; one without a p-value,
/// which cannot be projected; or one leaning worse that the remaining runs
/// could make a regression with a conditional power of at least 10%: its
/// one-sided z, if its estimate held, grows with the square root of the
/// comparison's information 1 / (1/K + 1/n) for K baseline runs and n
/// current runs, from `current_runs` now to `max_current_runs`, and must
/// reach the z of the first discovery of Benjamini-Hochberg (q / m, m the
/// metrics tested). A verdict not judged for want of noise between runs
/// (Reason::kBetweenRunNoiseUnmeasured: one baseline run, too few workloads)
/// stays so whatever re-runs add, and counts for nothing. False: no re-run
/// can make a regression of what is left, and the gate stops.
bool ReRunCouldChangeOutcome(const Verdicts& verdicts, const PolicyDefaults& policy,
                             int baseline_runs, int current_runs, int max_current_runs);

/// Seed of confirmation re-run `attempt`: apart from the first run's (and
/// every other attempt's), so synthetic workloads draw fresh samples.
uint64_t ConfirmationSeed(uint64_t run_seed, int attempt);

/// Merges a confirmation re-run of a workload into its first result: its
/// rounds, clocks and throttling are appended and the summary and throughput
/// recomputed, its notes kept as "confirmation re-run N: ..."; a re-run that
/// did not succeed marks the result with its status and the reason
/// "confirmation re-run N: ...".
void AppendConfirmation(WorkloadResult& into, const WorkloadResult& rerun);

}  // namespace gpugate
