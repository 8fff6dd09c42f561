// The report view: the headline per outcome, what could have been seen,
// derived throughput folded under its time row, and short notes derived
// from reason codes.
#include "report/view.h"

#include <gtest/gtest.h>

#include <string>

#include "compare/compare.h"
#include "report/report_fixtures.h"

namespace gpugate {
namespace {

using testing_fixtures::ErrorVerdicts;
using testing_fixtures::Metric;
using testing_fixtures::MixedVerdicts;
using testing_fixtures::NotJudgedVerdicts;
using testing_fixtures::PassVerdicts;
using testing_fixtures::RequireDetectableVerdicts;

TEST(ReportView, HeadlineNamesOutcomesThatAreNotAPass) {
  EXPECT_EQ(BuildView(PassVerdicts()).headline,
            "0 regressions, 1 improvement, 1 unchanged, 0 inconclusive");
  const ReportView not_judged = BuildView(NotJudgedVerdicts());
  EXPECT_EQ(not_judged.label, "not judged");
  EXPECT_EQ(not_judged.headline, "not judged: 4 inconclusive; could not see changes below +11%");
  EXPECT_EQ(not_judged.summary, "4 inconclusive; could not see changes below +11%");
  EXPECT_NE(not_judged.outcome_note.find("not a pass"), std::string::npos);
  const ReportView error = BuildView(ErrorVerdicts());
  EXPECT_EQ(error.headline,
            "error: 1 workload failed to run; 0 regressions, 1 improvement, 1 unchanged, "
            "0 inconclusive, 1 skipped");
  const ReportView required = BuildView(RequireDetectableVerdicts());
  EXPECT_EQ(required.requirement, "policy requires +10%: 3 workloads too noisy to guard");
  EXPECT_EQ(required.headline,
            "0 regressions, 0 improvements, 2 unchanged, 4 inconclusive; policy requires +10%: "
            "3 workloads too noisy to guard");
}

// A workload that failed beside one that regressed: the outcome is error
// (exit 3), so a gate that lets regressions pass (exit 1) still stops on the
// missing results, and the headline names the regression too.
TEST(ReportView, AFailedWorkloadIsAnErrorWhateverElseRegressed) {
  Verdicts v;
  MetricVerdict slower = Metric("BM_Sum/1024", "time", Verdict::kRegression);
  slower.ratio = 1.3;
  slower.severity = Severity::kFail;
  v.metrics.push_back(slower);
  MetricVerdict failed = Metric("BM_Crash", "time", Verdict::kSkipped);
  failed.reason = Reason::kCurrentFailed;
  failed.sentence = "current run: failed: killed by signal SIGSEGV";
  v.metrics.push_back(failed);
  v.outcome = OutcomeFor(v, PolicyDefaults{});
  EXPECT_EQ(v.outcome, Outcome::kError);
  EXPECT_EQ(ExitCodeFor(v), 3);
  const ReportView view = BuildView(v);
  EXPECT_EQ(view.headline.rfind("error: 1 workload failed to run; 1 regression", 0), 0u) << view.headline;
}

// Peak memory unchanged beside a timing that stayed undecided: nothing about
// the speed was decided, so the outcome is not judged (it was a pass with a
// green mark); a peak-memory regression still fails.
TEST(ReportView, PeakMemoryAloneDecidesNoPass) {
  Verdicts v;
  MetricVerdict time = Metric("build", "time", Verdict::kInconclusive);
  time.reason = Reason::kBetweenRunNoiseUnmeasured;
  v.metrics.push_back(time);
  MetricVerdict memory = Metric("build", "peak_memory", Verdict::kUnchanged);
  memory.reason = Reason::kThresholdOnly;
  v.metrics.push_back(memory);
  EXPECT_EQ(OutcomeFor(v, PolicyDefaults{}), Outcome::kNotJudged);
  v.metrics.back().verdict = Verdict::kRegression;
  EXPECT_EQ(OutcomeFor(v, PolicyDefaults{}), Outcome::kFail);
  v.metrics.back().verdict = Verdict::kUnchanged;
  v.metrics.front().verdict = Verdict::kUnchanged;
  EXPECT_EQ(OutcomeFor(v, PolicyDefaults{}), Outcome::kPass);
}

// Under require_detectable the (suite) row, a history's common shift, is
// named as that, not counted as one more workload too noisy to guard.
TEST(ReportView, TheCommonShiftIsNoWorkloadTooNoisyToGuard) {
  Verdicts v;
  v.require_detectable = 0.10;
  v.outcome = Outcome::kInconclusive;
  MetricVerdict suite = Metric(kCommonWorkload, "time", Verdict::kInconclusive);
  suite.reason = Reason::kUndetectable;
  suite.mde = 0.4;
  v.metrics.push_back(suite);
  EXPECT_EQ(BuildView(v).requirement, "policy requires +10%: the suite's common shift too noisy to guard");
  MetricVerdict one = Metric("BM_A", "time", Verdict::kInconclusive);
  one.reason = Reason::kUndetectable;
  one.mde = 0.3;
  v.metrics.push_back(one);
  EXPECT_EQ(BuildView(v).requirement,
            "policy requires +10%: 1 workload and the suite's common shift too noisy to guard");
  // One value per side measured no noise at all: counted apart, not blamed
  // on the runner's noise.
  for (const char* name : {"BM_B", "BM_C"}) {
    MetricVerdict single = Metric(name, "time", Verdict::kInconclusive);
    single.reason = Reason::kNoReplication;
    v.metrics.push_back(single);
  }
  EXPECT_EQ(BuildView(v).requirement,
            "policy requires +10%: 1 workload and the suite's common shift too noisy to guard, 2 workloads "
            "whose noise could not be measured");
  // A workload with a result of each kind is too noisy to guard, whichever
  // row comes first (only its first row was counted).
  MetricVerdict kernel = Metric("BM_B", "kernel:k", Verdict::kInconclusive);
  kernel.reason = Reason::kUndetectable;
  kernel.mde = 0.16;
  v.metrics.push_back(kernel);
  const std::string expected =
      "policy requires +10%: 2 workloads and the suite's common shift too noisy to guard, 1 workload "
      "whose noise could not be measured";
  EXPECT_EQ(BuildView(v).requirement, expected);
  std::swap(v.metrics[2], v.metrics.back());  // the kernel's row before the time's
  EXPECT_EQ(BuildView(v).requirement, expected);
}

TEST(ReportView, NotJudgedWithNothingTestable) {
  Verdicts v;
  v.outcome = Outcome::kNotJudged;
  v.metrics.push_back(testing_fixtures::CommonShift());
  const ReportView view = BuildView(v);
  EXPECT_EQ(view.headline, "not judged: 1 inconclusive; nothing could be tested");
  EXPECT_EQ(view.detectable, "");
  // Tests that ran without the noise between runs they need (one run per
  // side, too few workloads) are not "nothing tested": the headline says why.
  MetricVerdict tested = Metric("BM_Sum/1024", "time", Verdict::kInconclusive);
  tested.ratio = 3.0;
  tested.p_value = 1e-6;
  tested.reason = Reason::kBetweenRunNoiseUnmeasured;
  v.metrics.push_back(tested);
  EXPECT_EQ(BuildView(v).headline,
            "not judged: 2 inconclusive; noise between runs could not be measured");
}

TEST(ReportView, NotJudgedNamesSkippedAndEmptyComparisons) {
  Verdicts v;
  v.outcome = Outcome::kNotJudged;
  MetricVerdict m;
  m.workload = "saxpy";
  m.metric = "time";
  m.verdict = Verdict::kSkipped;
  m.reason = Reason::kCurrentSkipped;
  m.sentence = "current run: skipped: backend cuda requested but no CUDA device";
  v.metrics.push_back(m);
  m.workload = "copy";
  v.metrics.push_back(m);
  EXPECT_EQ(BuildView(v).headline,
            "not judged: 0 inconclusive, 2 skipped (not compared); nothing could be tested");
  // Results the policy ignores (severity off) are named as such.
  for (MetricVerdict& r : v.metrics) {
    r.verdict = Verdict::kUnchanged;
    r.severity = Severity::kOff;
  }
  EXPECT_EQ(BuildView(v).headline,
            "not judged: 2 results, all ignored by the policy (severity off): none counts for the outcome");
  Verdicts empty;
  empty.outcome = Outcome::kNotJudged;
  EXPECT_EQ(BuildView(empty).headline, "not judged: no results were compared");
}

TEST(ReportView, ASlowdownOfTheWholeSuiteIsNamedInTheHeadline) {
  // One run per side: every workload "unchanged" against the others, while
  // all of them ran 40% slower. The pass must say so.
  Verdicts v = PassVerdicts();
  MetricVerdict common = testing_fixtures::CommonShift();
  common.ratio = 1.4;
  v.metrics.push_back(common);
  EXPECT_EQ(BuildView(v).headline,
            "0 regressions, 1 improvement, 1 unchanged, 1 inconclusive; (suite) ran +40.0% "
            "slower together, which one run per side cannot judge");
  v.metrics.back().current_rounds = 3;  // three current runs, one baseline run
  EXPECT_EQ(BuildView(v).headline,
            "0 regressions, 1 improvement, 1 unchanged, 1 inconclusive; (suite) ran +40.0% "
            "slower together, which one baseline run cannot judge");
  v.metrics.back().current_rounds = 0;
  // Within the threshold, or faster: nothing to add.
  v.metrics.back().ratio = 1.015;
  EXPECT_EQ(BuildView(v).headline, "0 regressions, 1 improvement, 1 unchanged, 1 inconclusive");
  v.metrics.back().ratio = 0.6;
  EXPECT_EQ(BuildView(v).headline, "0 regressions, 1 improvement, 1 unchanged, 1 inconclusive");
  // A history that was not sure: said, with why.
  v.metrics.back().ratio = 1.6;
  v.metrics.back().reason = Reason::kNotSignificantAfterFdr;
  EXPECT_EQ(BuildView(v).headline,
            "0 regressions, 1 improvement, 1 unchanged, 1 inconclusive; (suite) ran +60.0% "
            "slower together, undecided: beyond the 2% threshold but not significant after FDR "
            "control");
  // A history judges the common shift: its verdict speaks for itself.
  v.metrics.back().ratio = 1.4;
  v.metrics.back().verdict = Verdict::kRegression;
  v.metrics.back().reason = Reason::kSignificantAboveThreshold;
  EXPECT_EQ(BuildView(v).headline, "1 regression, 1 improvement, 1 unchanged, 0 inconclusive");
}

TEST(ReportView, WhatCouldHaveBeenSeen) {
  // Over every tested result (a throughput folded under its time states the
  // same size of change).
  EXPECT_EQ(BuildView(MixedVerdicts()).detectable, "+1.4% \u2026 +12%");
  EXPECT_EQ(BuildView(RequireDetectableVerdicts()).detectable, "+4.1% \u2026 +24%");
  Verdicts one = PassVerdicts();
  one.metrics.resize(1);
  EXPECT_EQ(BuildView(one).detectable, "+1.2%");
  const Detectability d = DetectabilityOf(NotJudgedVerdicts(), /*undecided_only=*/true);
  EXPECT_EQ(d.tested, 3);
  EXPECT_DOUBLE_EQ(*d.lowest, 0.113);
  EXPECT_DOUBLE_EQ(*d.highest, 0.296);
  EXPECT_EQ(DetectabilityOf(RequireDetectableVerdicts(), false).undetectable, 3);
}

TEST(ReportView, HigherIsBetterResultsAreTestedToo) {
  // Undecided results that are all higher-is-better (a custom value, a
  // direction override) were tested: not "nothing could be tested".
  Verdicts v;
  v.outcome = Outcome::kNotJudged;
  for (const auto& [name, mde] : {std::pair{"enc", 0.2}, std::pair{"dec", 0.5}}) {
    MetricVerdict m = Metric(name, "value", Verdict::kInconclusive);
    m.lower_is_better = false;
    m.mde = mde;  // a drop of 20% and of 50%
    v.metrics.push_back(m);
  }
  ReportView view = BuildView(v);
  EXPECT_EQ(view.headline, "not judged: 2 inconclusive; could not see drops smaller than 20%");
  EXPECT_EQ(view.detectable_gloss,
            "the smallest change each comparison catches with 90% power: a slowdown, or a drop of a "
            "higher-is-better result");
  EXPECT_EQ(view.detectable, "-20% \u2026 -50%");
  // Ranked by the size of the change: a 50% drop (x0.5) is larger than a
  // slowdown of +60% (x1.6) and smaller than one of +150%.
  MetricVerdict time = Metric("t", "time", Verdict::kInconclusive);
  time.mde = 0.6;
  v.metrics.push_back(time);
  EXPECT_EQ(BuildView(v).detectable, "-20% \u2026 -50%");
  v.metrics.back().mde = 1.5;
  EXPECT_EQ(BuildView(v).detectable, "-20% \u2026 +150%");
  v.metrics.back().mde = 0.1;
  view = BuildView(v);
  EXPECT_EQ(view.detectable, "+10% \u2026 -50%");
  EXPECT_EQ(view.headline, "not judged: 3 inconclusive; could not see changes below +10%");
}

TEST(ReportView, TheRequirementSaysWhomItHolds) {
  // Results too noisy: counted.
  EXPECT_EQ(BuildView(RequireDetectableVerdicts()).requirement, "policy requires +10%: 3 workloads too noisy to guard");
  // Every result decided (however large its MDE): the requirement holds none.
  Verdicts decided = PassVerdicts();
  decided.require_detectable = 0.01;
  for (MetricVerdict& m : decided.metrics) m.mde = 0.035;
  EXPECT_EQ(BuildView(decided).requirement, "policy requires +1%: no tested result was left undecided");
  // Undecided results that could see it.
  Verdicts undecided = decided;
  undecided.metrics.front().verdict = Verdict::kInconclusive;
  undecided.metrics.front().mde = 0.005;
  EXPECT_EQ(BuildView(undecided).requirement, "policy requires +1%: every undecided result could see it");
  // A bigger-is-better result is held too; one ignored by the policy is said apart.
  Verdicts throughput = decided;
  throughput.metrics.front().verdict = Verdict::kInconclusive;
  throughput.metrics.front().lower_is_better = false;
  throughput.metrics.front().mde = 0.2;
  EXPECT_EQ(BuildView(throughput).requirement, "policy requires +1%: 1 undecided result could not see it");
  throughput.metrics.front().severity = Severity::kOff;
  EXPECT_EQ(BuildView(throughput).requirement,
            "policy requires +1%: no tested result was left undecided (1 undecided result of severity off not held "
            "to it)");
}

TEST(ReportView, DerivedThroughputIsFoldedUnderItsTimeRow) {
  const Verdicts v = NotJudgedVerdicts();
  for (const MetricVerdict* m : ShownMetrics(v)) EXPECT_NE(m->metric, "throughput");
  EXPECT_EQ(ShownMetrics(v).size(), v.metrics.size() - 1);
  // A throughput result whose verdict differs from time's keeps its row.
  Verdicts differs = v;
  for (MetricVerdict& m : differs.metrics)
    if (m.metric == "throughput") m.verdict = Verdict::kUnchanged;
  EXPECT_EQ(ShownMetrics(differs).size(), differs.metrics.size());
  // So does a throughput regression that fails while its time's is waived
  // (or only warns): it is the row that fails the gate.
  for (const bool waive : {true, false}) {
    Verdicts waived = v;
    for (MetricVerdict& m : waived.metrics) {
      if (m.metric != "time" && m.metric != "throughput") continue;
      m.verdict = Verdict::kRegression;
      if (m.metric == "time") {
        if (waive) m.waived = true;
        else m.severity = Severity::kWarn;
      }
    }
    bool shown_failing = false;
    for (const MetricVerdict* m : ShownMetrics(waived)) shown_failing |= m->metric == "throughput" && FailsGate(*m);
    EXPECT_TRUE(shown_failing) << waive;
  }
  // Counts follow the rows shown.
  EXPECT_EQ(CountsSentence(v), "0 regressions, 0 improvements, 0 unchanged, 4 inconclusive");
}

TEST(ReportView, FailedWorkloadsComeFirstAndAreCountedAsFailed) {
  const Verdicts v = ErrorVerdicts();
  const std::vector<const MetricVerdict*> shown = ShownMetrics(v);
  ASSERT_FALSE(shown.empty());
  EXPECT_TRUE(FailedToRun(*shown.front()));
  EXPECT_EQ(VerdictLabel(*shown.front()), "failed");
  EXPECT_EQ(CountsSentence(v),
            "0 regressions, 1 improvement, 1 unchanged, 0 inconclusive, 1 skipped, 1 failed");
  const ReportView view = BuildView(v);
  ASSERT_FALSE(view.sections.empty());
  EXPECT_EQ(view.sections.front().id, "failed");
  EXPECT_EQ(view.sections.front().tone, Tone::kFail);
}

TEST(ReportView, ValuesAreShownInTheMetricsUnit) {
  MetricVerdict time = Metric("t", "time", Verdict::kUnchanged);
  time.baseline_value = 1e-3;
  time.current_value = 1.2e-3;
  EXPECT_EQ(FormatValues(time, " -> "), "1.00 ms -> 1.20 ms");
  MetricVerdict value = Metric("req", "value", Verdict::kInconclusive);
  value.unit = "req/s";
  value.baseline_value = 70;
  value.current_value = 50.5;
  EXPECT_EQ(FormatValues(value, " -> "), "70 req/s -> 50.5 req/s");
  MetricVerdict count = Metric("parse", "instructions", Verdict::kRegression);
  count.unit = "instructions";
  count.baseline_value = 1000000;
  count.current_value = 1010000;
  EXPECT_EQ(FormatValues(count, " -> "), "1000000 instructions -> 1010000 instructions");
  // Values that differ are never printed alike: more digits until they part.
  time.baseline_value = 1e-6;
  time.current_value = 1.00045e-6;
  EXPECT_EQ(FormatValues(time, " -> "), "1.0000 us -> 1.0005 us");
  time.current_value = 1e-6;
  EXPECT_EQ(FormatValues(time, " -> "), "1.00 us -> 1.00 us");
  MetricVerdict memory = Metric("m", "peak_memory", Verdict::kRegression);
  memory.baseline_value = 1048576;
  memory.current_value = 1048576 + 600;
  EXPECT_EQ(FormatValues(memory, " -> "), "1.000 MiB -> 1.001 MiB");
  // The same value written two ways (ns and us: 1 ulp apart) is one value.
  time.baseline_value = 1.2331500000000002e-06;
  time.current_value = 1.23315e-06;
  EXPECT_EQ(FormatValues(time, " -> "), "1.23 us -> 1.23 us");
  time.baseline_value = 1.23665e-06;
  time.current_value = 1.2366499999999998e-06;
  EXPECT_EQ(FormatValues(time, " -> "), "1.24 us -> 1.24 us");
  value.baseline_value = 70.01;
  value.current_value = 70.012;
  EXPECT_EQ(FormatValues(value, " -> "), "70.01 req/s -> 70.012 req/s");
}

TEST(ReportView, EveryReasonHasAShortNoteWithoutTheInterval) {
  for (Reason r : AllReasons()) {
    MetricVerdict m = Metric("w", "time", Verdict::kInconclusive);
    m.ratio = 1.03;
    m.ci_low = 0.97;
    m.ci_high = 1.09;
    m.mde = 0.12;
    m.reason = r;
    m.sentence = "+3.0% [-3.0%, +9.0%] a long sentence with every number in it";
    const std::string note = ShortNote(m, 0.1);
    SCOPED_TRACE(ToString(r));
    EXPECT_FALSE(note.empty());
    // Workloads that failed or were skipped keep their cause; nothing else
    // repeats the interval.
    const bool keeps_cause = r == Reason::kNone || r == Reason::kCurrentFailed ||
                             r == Reason::kCurrentSkipped || r == Reason::kBaselineFailed ||
                             r == Reason::kBaselineSkipped || r == Reason::kSkippedInBoth;
    EXPECT_EQ(note.find("[-3.0%, +9.0%]") != std::string::npos, keeps_cause) << note;
    EXPECT_LT(note.size(), 80u) << note;
  }
  MetricVerdict noisy = Metric("w", "time", Verdict::kInconclusive);
  noisy.reason = Reason::kBetweenRunNoise;
  EXPECT_EQ(ShortNote(noisy), "noise between runs exceeds the effect");
  noisy.reason = Reason::kUndetectable;
  EXPECT_EQ(ShortNote(noisy, 0.1), "too noisy to guard: policy requires +10%");
  MetricVerdict suite = testing_fixtures::CommonShift();
  EXPECT_EQ(ShortNote(suite), "shift common to all workloads: one run per side cannot judge it");
  // Against a history the shift lacked the current run's speed factor (or
  // two history runs with one), not a second run per side.
  MetricVerdict gpu = testing_fixtures::CommonShift();
  gpu.workload = "(suite: gpu)";
  gpu.baseline_rounds = 10;
  gpu.current_rounds = 0;
  gpu.baseline_history_runs = 10;
  gpu.sentence = "a shift common to all workloads needs run speed factors of at least 2 history runs "
                 "and of a current run covering most workloads";
  EXPECT_EQ(ShortNote(gpu),
            "shift common to the GPU-timed workloads: a current run covering too few of them cannot judge it");
  gpu.baseline_history_runs.reset();
  EXPECT_EQ(ShortNote(gpu),
            "shift common to the GPU-timed workloads: too few history runs with a speed factor cannot judge it");
}

TEST(ReportView, NotesCarryWhatThePolicyDid) {
  MetricVerdict m = Metric("w", "time", Verdict::kRegression);
  m.reason = Reason::kSignificantAboveThreshold;
  m.sentence = "+4.1% [+2.9%, +5.3%] exceeds the 2% threshold";
  EXPECT_EQ(NoteText(m), "significant, above the 2% threshold");
  EXPECT_EQ(FullNoteText(m), "+4.1% [+2.9%, +5.3%] exceeds the 2% threshold");
  m.severity = Severity::kWarn;
  EXPECT_EQ(NoteText(m), "warn only: significant, above the 2% threshold");
  EXPECT_EQ(VerdictLabel(m), "regression (warn)");
  m.waived = true;
  m.waiver_reason = "tracked in #1";
  EXPECT_EQ(NoteText(m), "waived (tracked in #1): significant, above the 2% threshold");
}

}  // namespace
}  // namespace gpugate
