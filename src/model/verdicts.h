// The verdicts model (`gpugate/verdicts/v2`): the output of compare + rules and
// the only input of every reporter. Plain data, no behaviour beyond helpers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace gpugate {

inline constexpr const char* kVerdictsSchema = "gpugate/verdicts/v2";
inline constexpr int kVerdictsMajorVersion = 2;

/// Workload name of the verdict on the suite's common speed shift (the part
/// of every workload's change that the runs' speed factors carry).
inline constexpr const char* kCommonWorkload = "(suite)";
/// The same for the workloads timed on a GPU when a suite also holds
/// workloads timed by another clock (the host's, another device's): each
/// clock has its own speed factor. "(suite: gpu)" for CUDA workloads,
/// "(suite: gpu N)" for nvbench states of device N.
inline constexpr const char* kCommonGpuWorkload = "(suite: gpu)";
/// Whether a verdict is on a common speed shift rather than a workload.
inline bool IsCommonWorkload(std::string_view workload) {
  return workload == kCommonWorkload ||
         (workload.starts_with("(suite: gpu") && workload.ends_with(")"));
}

enum class Verdict {
  kRegression,
  kImprovement,
  kUnchanged,
  kInconclusive,
  kNew,
  kRemoved,
  kSkipped,
  kIncomparable,
};

enum class Severity { kFail, kWarn, kOff };

/// Why a verdict is what it is (machine-readable; the JSON spelling is
/// ToString()). One list for every comparison mode.
enum class Reason {
  kNone,
  // Statistical decisions.
  kSignificantAboveThreshold,   ///< regression: significant after FDR, bound beyond the threshold
  kSignificantImprovement,      ///< improvement, the mirror image
  kWithinThreshold,             ///< unchanged: the interval lies inside the threshold
  kStraddlesThreshold,          ///< inconclusive: the interval crosses the threshold
  kNotSignificantAfterFdr,      ///< beyond the threshold but not significant after adjustment
  kBetweenRunNoise,             ///< inconclusive: noise between runs exceeds the effect
  kBetweenRunNoiseUnmeasured,   ///< cannot judge: too few comparisons to estimate it
  kCommonShiftAmbiguous,        ///< the verdict with the suite's common shift removed and without it differ
  kTooFewSamples,               ///< no finite interval (too few samples or rounds)
  kNoSpread,                    ///< every value of each side read one value (a timer coarser than the change) and nothing else gave a spread
  kNoReplication,               ///< one value per side: no test possible
  kThresholdOnly,               ///< decided on the ratio alone (one value per side, opt-in; peak memory)
  kDeterministic,               ///< a deterministic count (instructions) on the threshold alone
  kUndetectable,                ///< the comparison could not see the policy's required effect
  kThrottled,                   ///< a side throttled: the shift may be the clock's
  kClockShift,                  ///< GPU: the time moved but the cycle-space time did not
  // Decided without a test.
  kEnvironmentMismatch,
  kMetricMismatch,              ///< baseline and current measured different primary metrics
  kNewWorkload,
  kRemovedWorkload,
  kNewKernel,
  kVanishedKernel,
  kCurrentFailed,
  kCurrentSkipped,
  kBaselineFailed,
  kBaselineSkipped,
  /// Skipped in the baseline and in this run alike (an nvbench type
  /// combination it skips, a benchmark that needs hardware neither had):
  /// nothing changed, so reports fold it away like an unchanged result.
  kSkippedInBoth,
  /// The code did not change: a static workload whose kernels all hold the
  /// baseline's SASS (unchanged), or a workload `gate` did not measure for
  /// that reason (skip_unchanged; skipped).
  kCodeUnchanged,
};

/// What the HTML report draws for a tested workload metric (bounded; kept
/// in the verdicts file because every report renders that file alone).
struct MetricPlot {
  /// Samples of the reference baseline run and of the current run (first
  /// current run, then its confirmation re-runs), by round, in the metric's
  /// unit. A round with more than kPlotValuesPerRound samples keeps that many
  /// evenly spaced order statistics; at most kPlotRounds rounds per side.
  std::vector<std::vector<double>> baseline_rounds;
  std::vector<std::vector<double>> current_rounds;
  struct RunLevel {
    std::string label;  ///< run id, time or git sha the report shows
    double level = 0;   ///< median of the run's samples
    bool current = false;
  };
  /// Every baseline run's level (oldest first), then the current run's.
  std::vector<RunLevel> history;
  /// Indexes into `history` where a new level starts (E-divisive means over
  /// the levels, stats/change_point.h; needs 6 or more runs).
  std::vector<int64_t> change_points;
};
inline constexpr size_t kPlotValuesPerRound = 25;
inline constexpr size_t kPlotRounds = 40;
inline constexpr size_t kPlotHistoryRuns = 200;

/// One workload x metric comparison.
struct MetricVerdict {
  std::string workload;          ///< expanded workload name (untrusted text)
  std::string metric;            ///< "time", "throughput", "peak_memory", "kernel:<name>", ...
  Verdict verdict = Verdict::kInconclusive;
  Severity severity = Severity::kFail;  ///< what the policy says a regression does
  bool lower_is_better = true;

  /// Ratio current/baseline (point estimate) and its confidence interval.
  std::optional<double> ratio;
  std::optional<double> ci_low;
  std::optional<double> ci_high;
  double confidence = 0.95;
  std::optional<double> p_value;
  std::optional<double> p_adjusted;   ///< after Benjamini-Hochberg across the suite
  double threshold = 0.0;             ///< practical threshold as a fraction (0.05 = 5%)

  std::optional<double> baseline_value;  ///< median, canonical units
  std::optional<double> current_value;
  /// Unit of the two values when the metric's name does not imply it: a
  /// workload's primary metric other than time ("ops/sec", "instructions").
  /// Empty for time, throughput, peak_memory and kernel times.
  std::string unit;
  int64_t baseline_n = 0, current_n = 0;           ///< samples
  int64_t baseline_rounds = 0, current_rounds = 0; ///< replication units
  std::optional<int64_t> baseline_history_runs;    ///< runs in the baseline history
  /// Part of an interleaved A/B comparison (gpugate ab), whether or not both
  /// sides ran. Not written to the verdicts JSON: the rules read it while the
  /// comparison is made.
  bool interleaved = false;

  /// Minimum detectable effect: the slowdown (fraction, 0.1 = +10%) this
  /// comparison would call a regression with 90% probability; unset when no
  /// test was possible (one value per side, no finite interval).
  std::optional<double> mde;

  Reason reason = Reason::kNone;  ///< machine-readable reason (JSON "reason_code")
  std::string sentence;      ///< "+4.1% [+2.9%, +5.3%] exceeds the 2% threshold; ..."
  bool waived = false;
  std::string waiver_reason;
  /// Data for the report's pictures (primary metrics that were tested).
  std::optional<MetricPlot> plot;
};

/// Whether `m` is the common shift of one run per side (or of one baseline
/// run), which no comparison of one run can test: it tells (the headline
/// names a common slowdown) but decides nothing, so it never makes the
/// outcome inconclusive (on_inconclusive: fail), never fails
/// require_detectable and is never a JUnit failure. The outcome stays what
/// the workloads decided.
inline bool UntestableCommonShift(const MetricVerdict& m) {
  return IsCommonWorkload(m.workload) && m.verdict == Verdict::kInconclusive && m.reason == Reason::kNoReplication;
}

/// An undecided result that measured no noise at all, so that it could see
/// no change whatever the runner: one value per side (`no_replication`),
/// noise between the runs not measurable (`between_run_noise_unmeasured`),
/// or values that each read one value (`no_spread`). More runs of the same
/// kind cannot decide it; `require_detectable` holds it with its own reason.
inline bool SeesNothing(const MetricVerdict& m) {
  return m.verdict == Verdict::kInconclusive &&
         (m.reason == Reason::kNoReplication || m.reason == Reason::kBetweenRunNoiseUnmeasured ||
          m.reason == Reason::kNoSpread);
}

/// An undecided result that a policy's `require_detectable` holds against
/// the runner: reason `undetectable` (too noisy to guard), or one that sees
/// nothing (SeesNothing) and keeps its own reason, so that `gate` still
/// knows no re-run can decide it. Severity `off` and the untestable
/// `(suite)` shift are never held.
inline bool UnguardedByPolicy(const MetricVerdict& m, bool require_detectable) {
  if (m.verdict != Verdict::kInconclusive || m.severity == Severity::kOff || UntestableCommonShift(m))
    return false;
  return m.reason == Reason::kUndetectable || (require_detectable && SeesNothing(m));
}

/// Optimization or diagnostic suggestion emitted by a rule.
struct Suggestion {
  std::string workload;   ///< empty for suite-wide suggestions
  std::string kernel;     ///< the kernel it is about, empty for a workload or the suite
  std::string rule;       ///< rule id, "noisy-runner", "memory-bound", ...
  int priority = 2;       ///< 0 critical, 1 high, 2 medium, 3 low
  /// "suggestion", "warning" or "fail" (a policy rule that fails the gate).
  std::string severity = "suggestion";
  std::string message;
  std::string evidence;
  std::string hint;
  /// Estimated fraction of the time a fix would save (0.25 = 25%), when the
  /// rule can tell.
  std::optional<double> estimated_speedup;
  std::string source;     ///< where the rule's reasoning comes from
};

/// Order of suggestions in every report: priority (critical first), estimated
/// speedup (largest first, none last), then fail, warning, suggestion, then
/// rule id, workload and kernel.
inline bool SuggestionBefore(const Suggestion& a, const Suggestion& b) {
  auto emit = [](const std::string& s) { return s == "fail" ? 0 : s == "warning" ? 1 : 2; };
  if (a.priority != b.priority) return a.priority < b.priority;
  const double sa = a.estimated_speedup.value_or(-1), sb = b.estimated_speedup.value_or(-1);
  if (sa != sb) return sa > sb;
  if (emit(a.severity) != emit(b.severity)) return emit(a.severity) < emit(b.severity);
  if (a.rule != b.rule) return a.rule < b.rule;
  if (a.workload != b.workload) return a.workload < b.workload;
  return a.kernel < b.kernel;
}

/// A workload's or kernel's place on the roofline of the current run's
/// device (`compare --device-profile`; rules/regime.h). Not a verdict.
struct RooflineRow {
  std::string workload;
  std::string kernel;              ///< empty for the workload itself
  std::string regime;              ///< "overhead-bound" | "memory-bound" | "compute-bound"
  std::optional<double> arithmetic_intensity;  ///< FLOPs per byte
  double roof_fraction = 0;        ///< achieved / attainable
  double duration_s = 0;           ///< per call (kernels) or per invocation (workloads)
};

/// A difference between the two environments, as the sentence that states
/// it ("1410 MHz" against "1980 MHz"); the values themselves are in
/// Verdicts::environments.
struct EnvDifference {
  std::string field;      ///< "gpu.name", "cpu_model", ...
  std::string baseline;   ///< text for people, with its unit
  std::string current;
  /// A difference within one runner class that the comparison models (CPU
  /// models: run speed factors removed), listed so the report names the
  /// machines involved; not a mismatch.
  bool within_runner_class = false;
};

/// One side's value of an environment field: unknown (null), text, a whole
/// number, a number or a flag, as the run stated it.
using EnvValue = std::variant<std::monostate, std::string, int64_t, double, bool>;

/// One field of both environments, whole ("gpu.sm_clock_hz": 1.41e9 and
/// 1.98e9), for the reports that show the two machines side by side.
struct EnvField {
  std::string field;  ///< "gpu.name", "cpu_cores", ...
  EnvValue baseline;
  EnvValue current;
};

/// Overall outcome; ExitCodeFor() maps it onto the exit code.
///   kPass        something was decided and nothing fails
///   kNotJudged   nothing could be decided (every tested result inconclusive
///                or incomparable) and the policy lets that pass: exit 0,
///                but never shown as a pass
///   kFail        an unwaived regression with severity fail (exit 1)
///   kInconclusive  the policy asks for certainty that is missing (exit 4)
///   kError       a workload of the current run failed (exit 3)
enum class Outcome { kPass, kFail, kInconclusive, kError, kNotJudged };

struct Verdicts {
  std::string schema = kVerdictsSchema;
  std::string tool_version;
  std::string baseline_label;   ///< file name or run id of the baseline
  std::string current_label;
  std::string policy_name;
  double fdr_q = 0.05;
  bool environment_matches = true;
  std::vector<EnvDifference> env_differences;
  /// Both environments, field by field (what each side ran on), for the
  /// reports that show them whole; fields neither side knows are left out.
  std::vector<EnvField> environments;
  std::vector<MetricVerdict> metrics;
  std::vector<Suggestion> suggestions;
  /// Kernels launched only in the current run / only in the baseline, by
  /// workload (also verdict rows `new` / `removed` with metric "kernel:<name>").
  std::vector<std::pair<std::string, std::string>> new_kernels, vanished_kernels;
  /// Device profile the roofline rows refer to (empty without one).
  std::string device_profile;
  std::vector<RooflineRow> roofline;
  std::vector<std::string> warnings;   ///< expired waivers, noisy baselines, ...
  /// The policy's require_detectable (fraction), when set.
  std::optional<double> require_detectable;
  /// The policy makes an undecided result (on_inconclusive: fail) or an
  /// incomparable one (on_incomparable: fail) the outcome `inconclusive`
  /// (exit 4): the reports mark those results as what failed.
  bool inconclusive_fails = false;
  bool incomparable_fails = false;
  Outcome outcome = Outcome::kPass;

  int Count(Verdict v) const {
    int n = 0;
    for (const auto& m : metrics) n += m.verdict == v;
    return n;
  }
};

const char* ToString(Verdict v);
const char* ToString(Severity s);
const char* ToString(Outcome o);
const char* ToString(Reason r);

/// Every Reason, in declaration order (for readers and tests).
const std::vector<Reason>& AllReasons();

}  // namespace gpugate
