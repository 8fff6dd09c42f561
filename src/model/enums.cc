// String names of model enums; these spellings are part of the file formats.
#include "model/results.h"
#include "model/verdicts.h"

namespace gpugate {

const char* ToString(WorkloadStatus s) {
  switch (s) {
    case WorkloadStatus::kOk: return "ok";
    case WorkloadStatus::kFailed: return "failed";
    case WorkloadStatus::kSkipped: return "skipped";
  }
  return "?";
}

const char* ToString(Verdict v) {
  switch (v) {
    case Verdict::kRegression: return "regression";
    case Verdict::kImprovement: return "improvement";
    case Verdict::kUnchanged: return "unchanged";
    case Verdict::kInconclusive: return "inconclusive";
    case Verdict::kNew: return "new";
    case Verdict::kRemoved: return "removed";
    case Verdict::kSkipped: return "skipped";
    case Verdict::kIncomparable: return "incomparable";
  }
  return "?";
}

const char* ToString(Severity s) {
  switch (s) {
    case Severity::kFail: return "fail";
    case Severity::kWarn: return "warn";
    case Severity::kOff: return "off";
  }
  return "?";
}

const char* ToString(Outcome o) {
  switch (o) {
    case Outcome::kPass: return "pass";
    case Outcome::kFail: return "fail";
    case Outcome::kInconclusive: return "inconclusive";
    case Outcome::kError: return "error";
    case Outcome::kNotJudged: return "not_judged";
  }
  return "?";
}

const char* ToString(Reason r) {
  switch (r) {
    case Reason::kNone: return "";
    case Reason::kSignificantAboveThreshold: return "significant_above_threshold";
    case Reason::kSignificantImprovement: return "significant_improvement";
    case Reason::kWithinThreshold: return "within_threshold";
    case Reason::kStraddlesThreshold: return "straddles_threshold";
    case Reason::kNotSignificantAfterFdr: return "not_significant_after_fdr";
    case Reason::kBetweenRunNoise: return "between_run_noise";
    case Reason::kBetweenRunNoiseUnmeasured: return "between_run_noise_unmeasured";
    case Reason::kCommonShiftAmbiguous: return "common_shift_ambiguous";
    case Reason::kTooFewSamples: return "too_few_samples";
    case Reason::kNoSpread: return "no_spread";
    case Reason::kNoReplication: return "no_replication";
    case Reason::kThresholdOnly: return "threshold_only";
    case Reason::kDeterministic: return "deterministic_count";
    case Reason::kUndetectable: return "undetectable";
    case Reason::kThrottled: return "throttled";
    case Reason::kClockShift: return "clock_shift";
    case Reason::kEnvironmentMismatch: return "environment_mismatch";
    case Reason::kMetricMismatch: return "metric_mismatch";
    case Reason::kNewWorkload: return "new_workload";
    case Reason::kRemovedWorkload: return "removed_workload";
    case Reason::kNewKernel: return "new_kernel";
    case Reason::kVanishedKernel: return "vanished_kernel";
    case Reason::kCurrentFailed: return "current_failed";
    case Reason::kCurrentSkipped: return "current_skipped";
    case Reason::kBaselineFailed: return "baseline_failed";
    case Reason::kBaselineSkipped: return "baseline_skipped";
    case Reason::kSkippedInBoth: return "skipped_in_both";
    case Reason::kCodeUnchanged: return "code_unchanged";
  }
  return "?";
}

const std::vector<Reason>& AllReasons() {
  static const std::vector<Reason> all = [] {
    std::vector<Reason> v;
    for (int i = 0; i <= static_cast<int>(Reason::kCodeUnchanged); ++i)
      v.push_back(static_cast<Reason>(i));
    return v;
  }();
  return all;
}

}  // namespace gpugate
