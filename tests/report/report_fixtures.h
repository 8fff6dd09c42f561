// Fixed verdicts shared by the report tests: every verdict kind, waivers,
// warn-only severity, the suite's common shift, minimum detectable effects,
// suggestions, environment differences and warnings; and one set per
// outcome that must not read as a pass (not_judged, error, a policy that
// requires a detectable effect).
#pragma once

#include <string>
#include <utility>

#include "compare/compare.h"
#include "model/verdicts.h"

namespace gpugate::testing_fixtures {

inline MetricVerdict Metric(std::string workload, std::string metric, Verdict verdict) {
  MetricVerdict m;
  m.workload = std::move(workload);
  m.metric = std::move(metric);
  m.verdict = verdict;
  m.threshold = 0.02;
  m.baseline_n = 30;
  m.current_n = 30;
  m.baseline_rounds = 5;
  m.current_rounds = 5;
  return m;
}

inline MetricVerdict WithStats(MetricVerdict m, double ratio, double lo, double hi, double p,
                               double p_adj, double baseline, double current) {
  m.ratio = ratio;
  m.ci_low = lo;
  m.ci_high = hi;
  m.p_value = p;
  m.p_adjusted = p_adj;
  m.baseline_value = baseline;
  m.current_value = current;
  return m;
}

/// The suite's common shift as one run per side reports it: not testable.
inline MetricVerdict CommonShift() {
  MetricVerdict m = Metric(kCommonWorkload, "time", Verdict::kInconclusive);
  m.ratio = 1.012;
  m.baseline_n = m.current_n = 0;
  m.baseline_rounds = m.current_rounds = 0;
  m.reason = Reason::kNoReplication;
  m.sentence =
      "+1.2% common to all workloads: with one run per side a shift of the whole suite cannot "
      "be told apart from the machine's speed; it was removed before judging each workload (a "
      "history of runs judges it)";
  return m;
}

/// A failing comparison with one result of every kind.
inline Verdicts MixedVerdicts() {
  Verdicts v;
  v.tool_version = "0.1.0";
  v.baseline_label = "baselines/main/a100.json";
  v.current_label = "results.json";
  v.policy_name = "default";
  v.fdr_q = 0.05;
  v.outcome = Outcome::kFail;

  auto unchanged1 = WithStats(Metric("saxpy/1M", "time", Verdict::kUnchanged), 1.003, 0.991,
                              1.012, 0.61, 0.83, 2.05e-5, 2.056e-5);
  unchanged1.mde = 0.018;
  unchanged1.reason = Reason::kWithinThreshold;
  unchanged1.sentence = "+0.3% [-0.9%, +1.2%] lies inside the 2% threshold";
  v.metrics.push_back(unchanged1);

  auto reg = WithStats(Metric("saxpy/16M", "time", Verdict::kRegression), 1.041, 1.029, 1.053,
                       0.0012, 0.004, 1.234e-3, 1.2846e-3);
  reg.mde = 0.019;
  reg.reason = Reason::kSignificantAboveThreshold;
  reg.sentence =
      "+4.1% [+2.9%, +5.3%] exceeds the 2% threshold; 30 vs 30 samples over 5 rounds";
  v.metrics.push_back(reg);

  auto impr = WithStats(Metric("reduce/64M", "time", Verdict::kImprovement), 0.87, 0.85, 0.89,
                        0.00001, 0.00008, 3.2e-3, 2.784e-3);
  impr.mde = 0.031;
  impr.reason = Reason::kSignificantImprovement;
  impr.sentence = "-13.0% [-15.0%, -11.0%] is faster beyond the 2% threshold";
  v.metrics.push_back(impr);

  auto warn = WithStats(Metric("gemm/fp16/4096", "peak_memory", Verdict::kRegression), 1.25,
                        1.25, 1.25, 0.0, 0.0, 1073741824.0, 1342177280.0);
  warn.severity = Severity::kWarn;
  warn.threshold = 0.1;
  warn.p_value.reset();
  warn.p_adjusted.reset();
  warn.reason = Reason::kThresholdOnly;
  warn.sentence = "peak memory +25.0% exceeds the 10% threshold";
  v.metrics.push_back(warn);

  auto waived = WithStats(Metric("conv2d/nhwc", "time", Verdict::kRegression), 1.12, 1.08, 1.16,
                          0.0004, 0.002, 4.5e-4, 5.04e-4);
  waived.waived = true;
  waived.waiver_reason = "new algorithm lands in #812, until 2026-12-31";
  waived.mde = 0.062;
  waived.reason = Reason::kSignificantAboveThreshold;
  waived.sentence = "+12.0% [+8.0%, +16.0%] exceeds the 2% threshold";
  v.metrics.push_back(waived);

  auto inc = WithStats(Metric("train-step", "time", Verdict::kInconclusive), 1.03, 0.97, 1.09,
                       0.21, 0.48, 0.812, 0.836);
  inc.mde = 0.124;
  inc.reason = Reason::kBetweenRunNoise;
  inc.sentence =
      "+3.0% [-3.0%, +9.0%] straddles the 2% threshold; between-run noise (CV 9%) is larger "
      "than the effect: add a baseline history or use interleaved A/B";
  v.metrics.push_back(inc);

  auto kernel = WithStats(Metric("train-step", "kernel:ampere_sgemm_128x64_tn", Verdict::kUnchanged),
                          0.998, 0.99, 1.006, 0.7, 0.88, 1.1e-4, 1.098e-4);
  kernel.mde = 0.014;
  kernel.reason = Reason::kWithinThreshold;
  kernel.sentence = "-0.2% [-1.0%, +0.6%] lies inside the 2% threshold";
  v.metrics.push_back(kernel);

  auto tput = WithStats(Metric("saxpy/1M", "throughput", Verdict::kUnchanged), 0.997, 0.988,
                        1.009, 0.58, 0.83, 4.88e10, 4.865e10);
  tput.lower_is_better = false;
  tput.mde = 0.0177;
  tput.reason = Reason::kWithinThreshold;
  tput.sentence =
      "-0.3% [-1.2%, +0.9%] lies inside the 2% threshold; derived from time (not a separate "
      "test)";
  v.metrics.push_back(tput);

  v.metrics.push_back(CommonShift());

  auto added = Metric("histogram/256", "time", Verdict::kNew);
  added.baseline_n = 0;
  added.baseline_rounds = 0;
  added.current_value = 7.5e-5;
  added.reason = Reason::kNewWorkload;
  added.sentence = "not in the baseline; recorded for next time";
  v.metrics.push_back(added);

  auto removed = Metric("scan/legacy", "time", Verdict::kRemoved);
  removed.current_n = 0;
  removed.current_rounds = 0;
  removed.baseline_value = 2.2e-4;
  removed.reason = Reason::kRemovedWorkload;
  removed.sentence = "in the baseline but not in this run";
  v.metrics.push_back(removed);

  auto skipped = Metric("nccl/allreduce", "time", Verdict::kSkipped);
  skipped.current_n = 0;
  skipped.current_rounds = 0;
  skipped.reason = Reason::kCurrentSkipped;
  skipped.sentence = "skipped: needs 2 GPUs, found 1";
  v.metrics.push_back(skipped);

  auto incomparable = WithStats(Metric("fft/1D/2^20", "time", Verdict::kIncomparable), 0.71,
                                0.69, 0.73, 0.0001, 0.0005, 9.1e-5, 6.46e-5);
  incomparable.reason = Reason::kEnvironmentMismatch;
  incomparable.sentence = "SM clock locked at 1410 MHz in the baseline, boost in this run";
  v.metrics.push_back(incomparable);

  v.env_differences.push_back({"gpu.sm_clock_policy", "locked 1410 MHz", "boost"});
  v.env_differences.push_back({"driver_version", "535.104.05", "535.129.03"});

  auto suggestion = [](std::string workload, std::string rule, int priority, std::string message,
                       std::string evidence, std::string hint) {
    Suggestion s;
    s.workload = std::move(workload);
    s.rule = std::move(rule);
    s.priority = priority;
    s.message = std::move(message);
    s.evidence = std::move(evidence);
    s.hint = std::move(hint);
    return s;
  };
  v.suggestions.push_back(suggestion("saxpy/16M", "memory-bound", 2,
                                     "saxpy/16M runs at 71% of the measured peak bandwidth",
                                     "1.29 ms for 201 MB moved; peak 1.55 TB/s",
                                     "fuse the following kernel to reuse data in L2"));
  v.suggestions.push_back(suggestion("", "noisy-runner", 1,
                                     "between-run noise is 4.1x the within-run noise",
                                     "CV between runs 18%, within runs 4.4%",
                                     "keep a baseline history of 10 runs or use `gpugate ab`"));
  v.suggestions.push_back(suggestion("train-step", "launch-overhead", 3,
                                     "38% of GPU time is idle between 4,812 short kernels", "",
                                     "capture the step in a CUDA graph"));

  v.warnings.push_back(
      "waiver for 'attention/*' (time) expired on 2026-10-01: perf fix tracked in #771");
  return v;
}

/// The environments differ; the policy asks for certainty, so the outcome is
/// inconclusive.
inline Verdicts MismatchVerdicts() {
  Verdicts v;
  v.tool_version = "0.1.0";
  v.baseline_label = "baselines/nightly/a100.json";
  v.current_label = "h100-run.json";
  v.policy_name = "strict";
  v.fdr_q = 0.01;
  v.environment_matches = false;
  v.outcome = Outcome::kInconclusive;
  v.inconclusive_fails = true;  // the strict policy: on_inconclusive: fail
  v.env_differences.push_back({"gpu.name", "NVIDIA A100-SXM4-80GB", "NVIDIA H100 80GB HBM3"});
  v.env_differences.push_back({"gpu.compute_capability", "8.0", "9.0"});

  auto a = WithStats(Metric("saxpy/16M", "time", Verdict::kIncomparable), 0.58, 0.57, 0.59,
                     0.0001, 0.0002, 1.234e-3, 7.16e-4);
  a.confidence = 0.99;
  a.reason = Reason::kEnvironmentMismatch;
  a.sentence = "measured on a different GPU model; not compared";
  v.metrics.push_back(a);

  auto b = WithStats(Metric("cpu/parse-json", "time", Verdict::kInconclusive), 1.018, 0.995,
                     1.041, 0.12, 0.12, 0.0312, 0.03176);
  b.confidence = 0.99;
  b.baseline_history_runs = 12;
  b.reason = Reason::kStraddlesThreshold;
  b.sentence = "+1.8% [-0.5%, +4.1%] neither excludes nor stays inside the 1% threshold";
  b.threshold = 0.01;
  v.metrics.push_back(b);
  return v;
}

/// A clean pass: one improvement, the rest unchanged, nothing else.
inline Verdicts PassVerdicts() {
  Verdicts v;
  v.tool_version = "0.1.0";
  v.baseline_label = "main@4f2c9e1";
  v.current_label = "pr-1234@77ab0d3";
  v.policy_name = "default";
  v.outcome = Outcome::kPass;
  auto i = WithStats(Metric("matmul/bf16/8192", "time", Verdict::kImprovement), 0.952, 0.941,
                     0.962, 0.00003, 0.00006, 0.01523, 0.0145);
  i.mde = 0.012;
  i.reason = Reason::kSignificantImprovement;
  i.sentence = "-4.8% [-5.9%, -3.8%] is faster beyond the 2% threshold";
  v.metrics.push_back(i);
  auto u = WithStats(Metric("matmul/bf16/1024", "time", Verdict::kUnchanged), 1.001, 0.996, 1.006,
                     0.74, 0.74, 2.71e-5, 2.713e-5);
  u.mde = 0.009;
  u.reason = Reason::kWithinThreshold;
  u.sentence = "+0.1% [-0.4%, +0.6%] lies inside the 2% threshold";
  v.metrics.push_back(u);
  return v;
}

// A pass but for one finding of a policy rule with `emit: fail` (on
// saxpy/16M's kernel `kernel`, when given): the outcome is fail.
inline Verdicts RuleFailureVerdicts(const std::string& message, const std::string& kernel = "") {
  Verdicts v = PassVerdicts();
  v.outcome = Outcome::kFail;
  Suggestion s;
  s.workload = "saxpy/16M";
  s.kernel = kernel;
  s.rule = "tiny-grid";
  s.severity = "fail";
  s.message = message;
  v.suggestions.push_back(s);
  return v;
}

/// An inconclusive result of a noisy one-run-per-side comparison: the
/// interval, p-values and minimum detectable effect as compare reports them.
inline MetricVerdict Noisy(std::string workload, double ratio, double lo, double hi, double p,
                           double p_adj, double mde, Reason reason, const std::string& sentence) {
  MetricVerdict m = WithStats(Metric(std::move(workload), "time", Verdict::kInconclusive), ratio,
                              lo, hi, p, p_adj, 1e-3, 1e-3 * ratio);
  m.threshold = 0.03;
  m.baseline_n = m.current_n = 100;
  m.baseline_rounds = m.current_rounds = 50;
  m.mde = mde;
  m.reason = reason;
  m.sentence = sentence +
               "; 100 vs 100 samples over 50 rounds; Welch t on 50 vs 50 round medians, run "
               "speed factor removed, heavy-tailed reference";
  return m;
}

/// Nothing could be decided (one run per side on a noisy runner) and the
/// policy lets that through: exit code 0, but not a pass.
inline Verdicts NotJudgedVerdicts() {
  Verdicts v;
  v.tool_version = "0.1.0";
  v.baseline_label = "main.json";
  v.current_label = "pr.json";
  v.policy_name = "default";
  v.fdr_q = 0.01;
  v.outcome = Outcome::kNotJudged;
  v.metrics.push_back(Noisy("noisy", 1.0, 0.959, 1.043, 0.5, 0.71, 0.113,
                            Reason::kStraddlesThreshold,
                            "+0.0% [-4.1%, +4.3%] straddles the 3% threshold; more rounds would "
                            "decide"));
  v.metrics.push_back(Noisy("bimodal", 0.996, 0.954, 1.04, 0.41, 0.56, 0.121,
                            Reason::kStraddlesThreshold,
                            "-0.4% [-4.6%, +4.0%] straddles the 3% threshold; more rounds would "
                            "decide"));
  const std::string outliers =
      "+0.0% [-13.8%, +16.0%]: noise between runs exceeds the effect; use a baseline history "
      "(baseline update) or interleaved A/B";
  v.metrics.push_back(Noisy("outliers", 1.0, 0.862, 1.16, 0.5, 0.56, 0.296,
                            Reason::kBetweenRunNoise, outliers));
  auto tput = Noisy("outliers", 1.0, 0.862, 1.16, 0.5, 0.56, 0.229, Reason::kBetweenRunNoise,
                    outliers);
  tput.metric = "throughput";
  tput.lower_is_better = false;
  tput.baseline_value = 4.2e9;
  tput.current_value = 4.2e9;
  tput.sentence += "; derived from time (not a separate test)";
  v.metrics.push_back(tput);
  v.metrics.push_back(CommonShift());
  return v;
}

/// A workload of the current run failed: the outcome is an error (exit 3)
/// whatever the other results say.
inline Verdicts ErrorVerdicts() {
  Verdicts v;
  v.tool_version = "0.1.0";
  v.baseline_label = "main.json";
  v.current_label = "pr.json";
  v.policy_name = "default";
  v.outcome = Outcome::kError;
  auto failed = Metric("train-step", "time", Verdict::kSkipped);
  failed.current_n = failed.current_rounds = 0;
  failed.reason = Reason::kCurrentFailed;
  failed.sentence = "current run: failed: exit code 139 (SIGSEGV) in round 3";
  v.metrics.push_back(failed);
  auto u = WithStats(Metric("saxpy/16M", "time", Verdict::kUnchanged), 1.004, 0.995, 1.013,
                     0.3, 0.6, 1.234e-3, 1.239e-3);
  u.mde = 0.021;
  u.reason = Reason::kWithinThreshold;
  u.sentence = "+0.4% [-0.5%, +1.3%] lies within the 2% threshold";
  v.metrics.push_back(u);
  auto i = WithStats(Metric("reduce/64M", "time", Verdict::kImprovement), 0.91, 0.89, 0.93,
                     0.0001, 0.0002, 3.2e-3, 2.912e-3);
  i.mde = 0.034;
  i.reason = Reason::kSignificantImprovement;
  i.sentence = "-9.0% [-11.0%, -7.0%] improves beyond the 2% threshold";
  v.metrics.push_back(i);
  auto skipped = Metric("nccl/allreduce", "time", Verdict::kSkipped);
  skipped.current_n = skipped.current_rounds = 0;
  skipped.reason = Reason::kCurrentSkipped;
  skipped.sentence = "current run: skipped: needs 2 GPUs, found 1";
  v.metrics.push_back(skipped);
  return v;
}

/// The policy requires a +10% slowdown to be detectable; three workloads
/// were too noisy to guard, so the outcome is inconclusive (exit 4).
inline Verdicts RequireDetectableVerdicts() {
  Verdicts v;
  v.tool_version = "0.1.0";
  v.baseline_label = "baselines/ci/linux-x64.json (history of 10 runs)";
  v.current_label = "pr.json";
  v.policy_name = "guarded";
  v.fdr_q = 0.01;
  v.require_detectable = 0.10;
  v.outcome = Outcome::kInconclusive;
  for (auto [name, mde] : {std::pair{"copy/4Mi", 0.041}, std::pair{"triad/16Mi", 0.067}}) {
    auto u = WithStats(Metric(name, "time", Verdict::kUnchanged), 1.002, 0.99, 1.014, 0.4, 0.7,
                       5e-3, 5.01e-3);
    u.baseline_history_runs = 10;
    u.mde = mde;
    u.reason = Reason::kWithinThreshold;
    u.sentence = "+0.2% [-1.0%, +1.4%] lies within the 2% threshold";
    v.metrics.push_back(u);
  }
  auto straddle = WithStats(Metric("saxpy/16Mi", "time", Verdict::kInconclusive), 1.02, 0.995,
                            1.046, 0.09, 0.3, 1.1e-2, 1.122e-2);
  straddle.baseline_history_runs = 10;
  straddle.mde = 0.083;
  straddle.reason = Reason::kStraddlesThreshold;
  straddle.sentence = "+2.0% [-0.5%, +4.6%] straddles the 2% threshold; more current runs would "
                      "decide";
  v.metrics.push_back(straddle);
  const struct {
    const char* name;
    double ratio, lo, hi, mde;
    const char* sentence;
  } kNoisy[] = {
      {"sgemm/naive", 1.05, 0.93, 1.19, 0.238,
       "too noisy to guard: the smallest slowdown this comparison could see is +24%, the "
       "policy requires +10% (+5.0% [-7.0%, +19.0%]: noise between runs exceeds the effect)"},
      {"sgemm/blocked", 0.98, 0.9, 1.07, 0.142,
       "too noisy to guard: the smallest slowdown this comparison could see is +14%, the "
       "policy requires +10% (-2.0% [-10.0%, +7.0%]: noise between runs exceeds the effect)"}};
  for (const auto& n : kNoisy) {
    auto m = WithStats(Metric(n.name, "time", Verdict::kInconclusive), n.ratio, n.lo, n.hi, 0.3,
                       0.6, 0.2, 0.2 * n.ratio);
    m.baseline_history_runs = 10;
    m.mde = n.mde;
    m.reason = Reason::kUndetectable;
    m.sentence = n.sentence;
    v.metrics.push_back(m);
  }
  auto few = Metric("reduce/16Mi", "time", Verdict::kInconclusive);
  few.ratio = 1.01;
  few.baseline_history_runs = 10;
  few.current_n = 2;
  few.current_rounds = 1;
  few.reason = Reason::kUndetectable;
  few.sentence = "too noisy to guard: this comparison could see no slowdown at all, the policy "
                 "requires +10% (+1.0% [unbounded]: too few samples for a 95% interval)";
  v.metrics.push_back(few);
  v.warnings.push_back(
      "3 results could not have seen the required +10% slowdown (require_detectable)");
  return v;
}

}  // namespace gpugate::testing_fixtures
