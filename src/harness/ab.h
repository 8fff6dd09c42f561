// Interleaved A/B: run a base and a head build of the same suite round by
// round on one machine, in a seeded random order, then judge each workload on
// the PAIRED rounds. Drift of the machine (other tenants, clocks, thermal
// state) hits both sides of a round alike and cancels in the per-round ratio,
// which unpaired comparisons of separate runs cannot do.
//
//   for round r: for each workload: a coin picks the side that goes first;
//                run one round of base and one of head (fresh Prepare each)
//   per workload: d_r = ln(median head_r) - ln(median base_r)
//                 Wilcoxon signed-rank test on d, Hodges-Lehmann estimate and
//                 Walsh-average interval (stats/signed_rank.h), BH across
//                 workloads, thresholds as in compare/.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "config/suite.h"
#include "harness/runner.h"
#include "model/results.h"
#include "model/verdicts.h"
#include "util/result.h"

namespace gpugate {

enum class AbSide { kBase = 0, kHead = 1 };

struct AbOptions {
  int rounds = 10;           ///< paired rounds per workload (>= 6 for a 95% interval)
  uint64_t seed = 1;         ///< order coins and synthetic draws
  std::string base_dir;      ///< substituted for {bin} in base command workloads
  std::string head_dir;      ///< substituted for {bin} in head command workloads
  std::string backend = "auto";  ///< as RunOptions.backend
};

/// The raw data of an A/B run: two results with the same workloads in the
/// same order; rounds[r] of a base workload pairs with rounds[r] of its head.
struct AbData {
  Results base;
  Results head;
  /// head_first[w][r]: whether head ran first in round r of workload w.
  std::vector<std::vector<bool>> head_first;
};

/// Runs one round of one side of a workload. The default runs the side's spec
/// through BackendSet + RunWorkload; tests substitute their own.
using AbRoundRunner = std::function<WorkloadResult(const WorkloadSpec& side_spec, AbSide side, int round)>;

/// The spec one side runs in one round:
/// - sampling: one round of ceil(min_samples/rounds) .. ceil(max_samples/rounds)
///   samples, min_time/rounds, max_time/(2 * ab rounds), same warmup and stop rule;
/// - command: "{bin}" replaced by the side's directory in argv, env values and cwd;
/// - synthetic: the head applies `slowdown`, the base runs at 1.0 (so a suite
///   with slowdown 1.0 is an A/A check); the per-run and per-round drift
///   factors are drawn once per A/B round and shared by both sides, as machine
///   drift would be, and each side draws its own within-round noise;
/// - builtin: unchanged (both sides run the same code: an A/A sanity check).
WorkloadSpec AbSideSpec(const WorkloadSpec& spec, AbSide side, int round, const AbOptions& options);

/// True when a command workload mentions "{bin}" (else both sides run the
/// same command).
bool UsesBinDir(const WorkloadSpec& spec);

/// Interleaves the workloads' rounds. Never fails for a workload failure: it
/// is recorded as a failed workload (the remaining rounds are not run).
AbData RunAb(const Suite& suite, const std::vector<WorkloadSpec>& workloads, const AbOptions& options,
             const AbRoundRunner& run_round, ProgressSink* progress = nullptr);

/// RunAb with the real backends.
AbData RunAb(const Suite& suite, const std::vector<WorkloadSpec>& workloads, const AbOptions& options,
             ProgressSink* progress = nullptr);

/// What the policy says about one workload's time metric.
struct AbThreshold {
  double threshold = 0.03;            ///< practical threshold as a fraction (as DefaultPolicy())
  Severity severity = Severity::kFail;
  bool waived = false;
  std::string waiver_reason;
};

enum class InconclusiveAction { kPass, kWarn, kFail };

struct AbAnalysisOptions {
  double fdr_q = 0.01;               ///< Benjamini-Hochberg level across workloads (as DefaultPolicy())
  double confidence = 0.95;          ///< interval level
  InconclusiveAction on_inconclusive = InconclusiveAction::kPass;
  std::string policy_name = "default";
  /// Threshold per workload name; unset means 3% / fail for every workload.
  std::function<AbThreshold(const std::string& workload)> threshold_for;
};

/// Per-round log-ratios ln(median head_r / median base_r) over the rounds
/// both sides completed.
std::vector<double> PairedLogRatios(const WorkloadResult& base, const WorkloadResult& head);

/// Verdicts (metric "time") from the paired rounds; outcome as `gate` orders
/// it: a failing regression -> fail, else a failed workload -> error, else an
/// inconclusive result under on_inconclusive=fail -> inconclusive, else pass.
Verdicts AnalyzeAb(const AbData& data, const AbAnalysisOptions& options);

/// Exit code for an outcome (DESIGN.md): pass 0, fail 1, error 3, inconclusive 4.
int AbExitCode(const Verdicts& verdicts);

}  // namespace gpugate
