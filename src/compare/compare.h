// Compare a current run with a baseline (one run or a history of runs) under a
// policy: match workloads, estimate shifts with their intervals, control the
// false discovery rate across the suite, classify, apply severity and waivers.
// The method is described in docs/statistics.md and DESIGN.md ("How a verdict
// is reached"). Pure computation: no I/O.
#pragma once

#include <string>
#include <vector>

#include "config/policy.h"
#include "model/results.h"
#include "model/verdicts.h"

namespace gpugate {

struct CompareOptions {
  /// Compare even when the environments differ (differences are still listed).
  bool allow_env_mismatch = false;
  /// Today's date (YYYY-MM-DD) for waiver expiry; empty = the system clock (UTC).
  std::string today;
  /// Labels for reports; empty = the run ids.
  std::string baseline_label;
  std::string current_label;
  /// Interleaved A/B: baseline_runs = {base}, current_runs = {head}, and
  /// round r of a base workload pairs with round r of its head.
  bool paired = false;
  /// Draw each tested metric's pictures (MetricVerdict::plot: rounds, run
  /// levels and their change points) for the reports. Off where no report
  /// is drawn from the verdicts (the real-noise evaluator's thousands of
  /// comparisons); the verdicts are the same either way.
  bool plots = true;
};


/// Compares `current` with `baseline_runs` (one run = a single baseline file,
/// several = a history, oldest first; the newest is the reference for
/// environment checks and for single-run comparisons). Every workload x
/// metric gets a verdict with ratio, interval, p, BH-adjusted p, threshold,
/// reason code and a sentence naming the method; the outcome follows the
/// policy. Precondition: baseline_runs is non-empty.
Verdicts Compare(const std::vector<Results>& baseline_runs, const Results& current,
                 const Policy& policy, const CompareOptions& options);

/// Same with several current runs: `current_runs[0]` is the run (its
/// metadata and environment are reported); later entries repeat some of its
/// workloads (`gate`'s confirmation re-runs, repeated files) or hold others
/// (shards of one suite). Every workload any of them holds is compared, with
/// the first run that holds it; each later run holding it adds a
/// replication unit: a run-level value against a history, or its rounds
/// against a single baseline. Precondition: both vectors non-empty.
Verdicts CompareRuns(const std::vector<Results>& baseline_runs,
                     const std::vector<Results>& current_runs, const Policy& policy,
                     const CompareOptions& options);

/// Outcome of a set of verdicts under a policy, in this order: fail when a
/// regression with severity fail is not waived; error when a workload of the
/// current run (or a confirmation re-run) failed; inconclusive when the
/// policy asks for certainty that is missing (on_inconclusive: fail,
/// on_incomparable: fail, or a result below require_detectable); not_judged
/// when nothing was decided (every result with severity not off is
/// inconclusive or incomparable); pass otherwise.
Outcome OutcomeFor(const Verdicts& verdicts, const PolicyDefaults& defaults);

/// The one exit rule (DESIGN.md): 1 fail, 3 error, 4 inconclusive, 0 pass
/// and not_judged (which reports never show as a pass).
int ExitCodeFor(const Verdicts& verdicts);

/// Whether another run could change this verdict: an unwaived regression or
/// an inconclusive verdict, severity not off, not the suite's common shift,
/// not one value per side.
bool WorthConfirming(const MetricVerdict& m);

/// Whether a waiver of the policy in force on the comparison's day
/// (options.today, else today's UTC date) covers the result.
bool WaiverInForce(const Policy& policy, const MetricVerdict& m, const CompareOptions& options);

/// Workloads worth re-running before the gate decides (WorthConfirming), in
/// first-seen order without duplicates.
std::vector<std::string> WorkloadsToConfirm(const Verdicts& verdicts);

/// Confirmation re-runs `gpugate gate` makes at most by default (--confirm);
/// it stops sooner once nothing doubtful could still become a regression
/// (ReRunCouldChangeOutcome, gate/gate.h).
inline constexpr int kDefaultConfirmations = 12;

}  // namespace gpugate
