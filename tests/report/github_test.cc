// GitHub Actions output: $GITHUB_OUTPUT lines and workflow-command annotations.
#include "report/github.h"

#include <gtest/gtest.h>

#include <string>

#include "report/markdown.h"
#include "report/report_fixtures.h"

namespace gpugate {
namespace {

using testing_fixtures::Metric;
using testing_fixtures::MismatchVerdicts;
using testing_fixtures::MixedVerdicts;
using testing_fixtures::PassVerdicts;

TEST(ReportGithub, OutputLines) {
  // Counts are of metrics, as in the JSON (regressions: those that fail the
  // gate; waived and warn-only apart); the summary is the headline,
  // which counts rows (saxpy/1M's throughput is folded under its time).
  EXPECT_EQ(RenderGithubOutput(MixedVerdicts()),
            "outcome=fail\n"
            "verdict=fail\n"
            "regressions=1\n"
            "rule_failures=0\n"
            "failing=1\n"
            "waived=1\n"
            "warn_only=1\n"
            "errors=0\n"
            "improvements=1\n"
            "inconclusive=1\n"
            "unchanged=3\n"
            "new=1\n"
            "removed=1\n"
            "skipped=1\n"
            "incomparable=1\n"
            "undetectable=0\n"
            "mde_min=0.014\n"
            "mde_max=0.124\n"
            "summary=3 regressions (1 waived, 1 warn only), 1 improvement, 2 unchanged, "
            "2 inconclusive, 1 new, 1 removed, 1 skipped, 1 incomparable\n");
  EXPECT_EQ(RenderGithubOutput(MismatchVerdicts()).substr(0, 42),
            "outcome=inconclusive\nverdict=inconclusive\n");
  EXPECT_EQ(RenderGithubOutput(PassVerdicts()).substr(0, 26), "outcome=pass\nverdict=pass\n");
}

TEST(ReportGithub, NotJudgedAndErrorAreNeverAPass) {
  const std::string not_judged = RenderGithubOutput(testing_fixtures::NotJudgedVerdicts());
  EXPECT_EQ(not_judged.rfind("outcome=not_judged\nverdict=not_judged\n", 0), 0u) << not_judged;
  EXPECT_NE(not_judged.find("\nsummary=not judged: 4 inconclusive; could not see changes below "
                            "+11%\n"),
            std::string::npos)
      << not_judged;
  EXPECT_EQ(not_judged.find("pass"), std::string::npos) << not_judged;
  EXPECT_EQ(RenderGithubAnnotations(testing_fixtures::NotJudgedVerdicts()),
            "::warning title=gpugate not judged::not judged: 4 inconclusive; could not see "
            "changes below +11%25 (nothing was decided; not a pass): noisy (time); bimodal "
            "(time); outliers (time); (suite) (time)\n");

  const std::string error = RenderGithubOutput(testing_fixtures::ErrorVerdicts());
  EXPECT_EQ(error.rfind("outcome=error\nverdict=error\n", 0), 0u) << error;
  EXPECT_NE(error.find("\nerrors=1\n"), std::string::npos) << error;
  EXPECT_EQ(RenderGithubAnnotations(testing_fixtures::ErrorVerdicts()),
            "::error title=gpugate workload failed%3A train-step (time)::current run: failed: "
            "exit code 139 (SIGSEGV) in round 3\n");
  const std::string required = RenderGithubOutput(testing_fixtures::RequireDetectableVerdicts());
  EXPECT_NE(required.find("\nundetectable=3\nmde_min=0.041\nmde_max=0.238\n"),
            std::string::npos)
      << required;
}

TEST(ReportGithub, MultilineValuesUseADelimiterNotInTheValue) {
  EXPECT_EQ(GithubOutputEntry("k", "v"), "k=v\n");
  EXPECT_EQ(GithubOutputEntry("k", "a\nb"), "k<<GPUGATE_EOF\na\nb\nGPUGATE_EOF\n");
  EXPECT_EQ(GithubOutputEntry("k", "a\nGPUGATE_EOF\nb"),
            "k<<GPUGATE_EOF_1\na\nGPUGATE_EOF\nb\nGPUGATE_EOF_1\n");
  EXPECT_EQ(GithubOutputEntry("k", "x\r"), "k<<GPUGATE_EOF\nx\r\nGPUGATE_EOF\n");
}

TEST(ReportGithub, AnnotationsPerRegressionAndWarning) {
  const std::string text = RenderGithubAnnotations(MixedVerdicts());
  EXPECT_EQ(text,
            "::error title=gpugate regression%3A saxpy/16M (time)::+4.1%25 [+2.9%25, +5.3%25] (p "
            "0.0012 (0.004)): significant, above the 2%25 threshold\n"
            "::warning title=gpugate warning::waiver for 'attention/*' (time) expired on "
            "2026-10-01: perf fix tracked in #771\n"
            "::warning title=gpugate regression%3A gemm/fp16/4096 (peak_memory)::+25.0%25 "
            "[+25.0%25, +25.0%25] (p n/a): warn only: above the 10%25 threshold (ratio alone, no "
            "test)\n"
            "::warning title=gpugate regression%3A conv2d/nhwc (time)::+12.0%25 [+8.0%25, "
            "+16.0%25] (p 0.0004 (0.002)): waived (new algorithm lands in #812, until "
            "2026-12-31): significant, above the 2%25 threshold\n"
            "::notice title=gpugate inconclusive::1 result was inconclusive (noise larger than "
            "the effect or too few samples): train-step (time)\n");
}

// fail-on: inconclusive reads the `inconclusive` output: results the policy
// ignores (severity off) are not in it, nor in an annotation that blames them.
TEST(ReportGithub, ResultsOfSeverityOffAreNotCountedInconclusive) {
  Verdicts v = PassVerdicts();
  MetricVerdict flaky = Metric("flaky", "time", Verdict::kInconclusive);
  flaky.severity = Severity::kOff;
  v.metrics.push_back(flaky);
  EXPECT_NE(RenderGithubOutput(v).find("\ninconclusive=0\n"), std::string::npos) << RenderGithubOutput(v);
  EXPECT_EQ(RenderGithubAnnotations(v).find("inconclusive"), std::string::npos) << RenderGithubAnnotations(v);
  flaky.severity = Severity::kFail;
  v.metrics.push_back(flaky);
  EXPECT_NE(RenderGithubOutput(v).find("\ninconclusive=1\n"), std::string::npos);
}

// Where on_incomparable: fail made the outcome inconclusive, the
// inconclusive results the policy passes are a notice, not an error.
TEST(ReportGithub, TheInconclusiveLineIsAnErrorOnlyWhereTheyFailedTheGate) {
  Verdicts v = MismatchVerdicts();
  ASSERT_EQ(v.outcome, Outcome::kInconclusive);
  v.inconclusive_fails = false;
  v.incomparable_fails = true;
  std::string text = RenderGithubAnnotations(v);
  EXPECT_NE(text.find("::notice title=gpugate inconclusive::"), std::string::npos) << text;
  EXPECT_NE(text.find("::error title=gpugate incomparable::"), std::string::npos) << text;
  v.inconclusive_fails = true;
  text = RenderGithubAnnotations(v);
  EXPECT_NE(text.find("::error title=gpugate inconclusive::"), std::string::npos) << text;
}

// GitHub shows 10 annotations of a kind per step: past that, one says how
// many more there are, and the run-wide warnings come before per-result ones.
TEST(ReportGithub, AnnotationsPastGithubsLimitAreCountedNotDropped) {
  Verdicts v;
  v.outcome = Outcome::kFail;
  for (int i = 0; i < 25; ++i) {
    MetricVerdict m = Metric("bench" + std::to_string(i), "time", Verdict::kRegression);
    m.ratio = 1.5;
    v.metrics.push_back(m);
    m.workload = "warned" + std::to_string(i);
    m.severity = Severity::kWarn;
    v.metrics.push_back(m);
  }
  v.warnings.push_back("the whole suite ran 20% slower");
  const std::string text = RenderGithubAnnotations(v);
  size_t errors = 0, warnings = 0;
  for (size_t at = text.find("::error "); at != std::string::npos; at = text.find("::error ", at + 1)) ++errors;
  for (size_t at = text.find("::warning "); at != std::string::npos; at = text.find("::warning ", at + 1)) ++warnings;
  EXPECT_EQ(errors, 10u) << text;
  EXPECT_EQ(warnings, 10u) << text;
  EXPECT_NE(text.find("::error title=gpugate%3A 16 more errors::GitHub shows 10 errors per step; the job "
                      "summary and the reports hold all 25: gpugate regression: bench9 (time); "),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("::warning title=gpugate warning::the whole suite ran 20%25 slower"), std::string::npos);
  EXPECT_LT(text.find("the whole suite ran"), text.find("warned0"));
  EXPECT_NE(text.find("::warning title=gpugate%3A 17 more warnings::"), std::string::npos) << text;
}

TEST(ReportGithub, AnnotationsPointAtTheSuiteLineOfTheWorkload) {
  ReportOptions options;
  options.sources["saxpy/16M"] = ReportOptions::Source{"perf/suite,a:b.yaml", 12};
  const std::string text = RenderGithubAnnotations(MixedVerdicts(), options);
  // Properties escape ',' and ':' (a file name cannot add a property).
  EXPECT_NE(text.find("::error file=perf/suite%2Ca%3Ab.yaml,line=12,title=gpugate regression%3A saxpy/16M "
                      "(time)::"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("::warning title=gpugate regression%3A conv2d/nhwc"), std::string::npos) << text;
}

TEST(ReportGithub, InconclusiveOutcomeIsAnErrorAndMismatchAWarning) {
  const std::string text = RenderGithubAnnotations(MismatchVerdicts());
  EXPECT_NE(text.find("::error title=gpugate inconclusive::1 result was inconclusive"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("::warning title=gpugate environment mismatch::the baseline was measured "
                      "in a different environment: gpu.name NVIDIA A100-SXM4-80GB -> NVIDIA "
                      "H100 80GB HBM3; gpu.compute_capability 8.0 -> 9.0\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(RenderGithubAnnotations(PassVerdicts()), "");
}

// A policy rule with `emit: fail` fails the gate: it is counted in `failing`
// and gets an error annotation, as a regression does.
TEST(ReportGithub, ARuleThatFailsTheGateIsAnErrorAndCounted) {
  Verdicts v = testing_fixtures::RuleFailureVerdicts("8 blocks on 108 SMs", "saxpy_kernel");
  Suggestion s = v.suggestions.front();
  s.severity = "warning";
  s.rule = "other";
  v.suggestions.push_back(s);
  const std::string outputs = RenderGithubOutput(v);
  EXPECT_NE(outputs.find("\nregressions=0\nrule_failures=1\nfailing=1\n"), std::string::npos) << outputs;
  const std::string text = RenderGithubAnnotations(v);
  EXPECT_NE(text.find("::error title=gpugate rule tiny-grid%3A saxpy/16M / saxpy_kernel::8 blocks on 108 SMs\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("rule other"), std::string::npos) << text;
}

// on_incomparable: fail made the outcome inconclusive: an error names them.
TEST(ReportGithub, IncomparableResultsThatFailThePolicyAreAnError) {
  Verdicts v = MismatchVerdicts();
  EXPECT_EQ(RenderGithubAnnotations(v).find("gpugate incomparable"), std::string::npos);
  v.incomparable_fails = true;
  const std::string text = RenderGithubAnnotations(v);
  EXPECT_NE(text.find("::error title=gpugate incomparable::1 result was not compared"), std::string::npos) << text;
}

TEST(ReportGithub, StepSummaryIsTheMarkdownReport) {
  EXPECT_EQ(RenderGithubStepSummary(MixedVerdicts()), RenderMarkdown(MixedVerdicts()));
}

Verdicts ManyResults(int n, Verdict verdict) {
  Verdicts v;
  v.outcome = verdict == Verdict::kRegression ? Outcome::kFail : Outcome::kPass;
  for (int i = 0; i < n; ++i) {
    MetricVerdict m = Metric("suite/some-long-workload-name/with/parameters/n=" + std::to_string(i),
                             "time", verdict);
    m.ratio = 1.1;
    m.mde = 0.05 + 0.0001 * i;
    m.sentence = "a sentence long enough to make every row take about two hundred bytes of "
                 "Markdown once the table cells are written out";
    v.metrics.push_back(m);
  }
  return v;
}

TEST(ReportGithub, StepSummaryDropsUnchangedRowsToFitTheLimit) {
  const Verdicts v = ManyResults(15000, Verdict::kUnchanged);
  ASSERT_GT(RenderMarkdown(v).size(), kGithubStepSummaryLimit);
  const std::string md = RenderGithubStepSummary(v);
  EXPECT_LE(md.size(), kGithubStepSummaryLimit);
  EXPECT_EQ(md.substr(0, md.find('\n')),
            "## :white_check_mark: gpugate: 0 regressions, 0 improvements, 15000 unchanged, "
            "0 inconclusive");
  EXPECT_NE(md.find("15000 unchanged results are not listed"), std::string::npos);
  EXPECT_EQ(md.find("n=14999"), std::string::npos);
  // What could have been seen still covers every result.
  EXPECT_NE(md.find("Could have seen: +5% \u2026 +155% "), std::string::npos)
      << md.substr(0, 600);
}

TEST(ReportGithub, StepSummaryIsCutAtALineWhenStillTooLarge) {
  const Verdicts v = ManyResults(10000, Verdict::kRegression);
  const std::string md = RenderGithubStepSummary(v);
  EXPECT_LE(md.size(), kGithubStepSummaryLimit);
  EXPECT_GT(md.size(), kGithubStepSummaryLimit - 1000);
  EXPECT_NE(md.find("report cut to fit"), std::string::npos);
  EXPECT_EQ(md.rfind("## :x: gpugate: 10000 regressions", 0), 0u);
}

}  // namespace
}  // namespace gpugate
