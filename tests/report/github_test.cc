// GitHub Actions output: $GITHUB_OUTPUT lines and workflow-command annotations.
#include "report/github.h"

#include <gtest/gtest.h>

#include <string>

#include "report/markdown.h"
#include "report/report_fixtures.h"
#include "util/text/escape.h"

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

TEST(ReportGithub, TheNotJudgedLineNamesNoResultOfSeverityOff) {
  // Every result ignored by the policy: the line says so and names none.
  Verdicts v = testing_fixtures::NotJudgedVerdicts();
  for (MetricVerdict& m : v.metrics) m.severity = Severity::kOff;
  const std::string all_off = RenderGithubAnnotations(v);
  EXPECT_NE(all_off.find("::warning title=gpugate not judged::"), std::string::npos) << all_off;
  EXPECT_EQ(all_off.find("(time)"), std::string::npos) << all_off;
  // One left counted: only that one is named.
  v.metrics.front().severity = Severity::kFail;
  const std::string one = RenderGithubAnnotations(v);
  EXPECT_NE(one.find(": " + v.metrics.front().workload + " (time)\n"), std::string::npos) << one;
}

TEST(ReportGithub, MultilineValuesUseADelimiterNotInTheValue) {
  EXPECT_EQ(GithubOutputEntry("k", "v"), "k=v\n");
  EXPECT_EQ(GithubOutputEntry("k", "a\nb"), "k<<GPUGATE_EOF\na\nb\nGPUGATE_EOF\n");
  EXPECT_EQ(GithubOutputEntry("k", "a\nGPUGATE_EOF\nb"),
            "k<<GPUGATE_EOF_1\na\nGPUGATE_EOF\nb\nGPUGATE_EOF_1\n");
  EXPECT_EQ(GithubOutputEntry("k", "x\r"), "k<<GPUGATE_EOF\nx\r\nGPUGATE_EOF\n");
}

// The inconclusive annotation says why where the results share one reason
// (it said "noise larger than the effect or too few samples" of results
// with one value per side, which measure no noise at all).
TEST(ReportGithub, TheInconclusiveAnnotationSaysTheirSharedReason) {
  Verdicts v;
  v.outcome = Outcome::kPass;
  for (const char* name : {"a", "b"}) {
    MetricVerdict m = Metric(name, "time", Verdict::kInconclusive);
    m.reason = Reason::kStraddlesThreshold;
    m.threshold = 0.03;
    v.metrics.push_back(m);
  }
  v.metrics.push_back(Metric("c", "time", Verdict::kUnchanged));
  EXPECT_NE(RenderGithubAnnotations(v).find("2 results were inconclusive (interval straddles the 3%25 threshold)"),
            std::string::npos)
      << RenderGithubAnnotations(v);
  v.metrics[1].reason = Reason::kNoReplication;
  EXPECT_NE(RenderGithubAnnotations(v).find("2 results were inconclusive (noise larger than the effect, too few "
                                            "samples, or noise that could not be measured)"),
            std::string::npos)
      << RenderGithubAnnotations(v);
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
            "::notice title=gpugate inconclusive::1 result was inconclusive (noise between runs "
            "exceeds the effect): train-step (time)\n");
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
// The runner keeps 4096 characters of a message and the checks API 255 of a
// title: gpugate shortens them itself, at a character, so each still says
// what it is about.
TEST(ReportGithub, AnnotationsFitGithubsTitleAndMessageLimits) {
  Verdicts v;
  v.outcome = Outcome::kFail;
  MetricVerdict m = Metric("BM_" + std::string(1000, 'x'), "time", Verdict::kRegression);
  m.ratio = 1.5;
  v.metrics.push_back(m);
  // Each bidi control escapes to 6 visible characters (\u202E): bounded after escaping.
  std::string bidi = "BM_";
  for (int i = 0; i < 150; ++i) bidi += "\u202E";
  m.workload = bidi;
  v.metrics.push_back(m);
  MetricVerdict failed = Metric("broken", "time", Verdict::kSkipped);
  failed.reason = Reason::kCurrentFailed;
  failed.sentence = "current run: failed: ";
  for (int i = 0; i < 5000; ++i) failed.sentence += "\u00e9";  // 10,000 bytes
  v.metrics.push_back(failed);
  const std::string text = RenderGithubAnnotations(v);
  size_t lines = 0;
  for (size_t at = 0; at < text.size();) {
    const size_t end = text.find('\n', at);
    const std::string line = text.substr(at, end - at);
    at = end + 1;
    ++lines;
    const size_t title = line.find("title=");
    const size_t sep = line.find("::", title);
    ASSERT_NE(title, std::string::npos) << line;
    // Escaped text decodes to no more characters than it has bytes here.
    EXPECT_LE(sep - title - 6, 255u) << line.substr(0, 300);
    EXPECT_LE(line.size() - sep - 2, 4096u) << line.substr(0, 300);
    EXPECT_EQ(ValidUtf8Prefix(line), line.size());
  }
  EXPECT_GE(lines, 2u);
  EXPECT_NE(text.find("title=gpugate regression%3A BM_xxx"), std::string::npos) << text.substr(0, 400);
  // A cut leaves no half escape (%X, \u20) and no half flag behind.
  for (size_t at = text.find("\u2026"); at != std::string::npos; at = text.find("\u2026", at + 1)) {
    const std::string before = text.substr(at >= 8 ? at - 8 : 0, std::min<size_t>(at, 8));
    EXPECT_NE(before.back(), '%') << before;
    EXPECT_NE(before[before.size() - 2], '%') << before;
    const size_t slash = before.rfind('\\');
    EXPECT_TRUE(slash == std::string::npos || before.size() - slash >= 6) << before;
  }
  Verdicts flags;
  flags.outcome = Outcome::kFail;
  std::string flag_name = "BM_";
  for (int i = 0; i < 100; ++i) flag_name += "\U0001F1E9\U0001F1EA";
  MetricVerdict f = Metric(flag_name, "time", Verdict::kRegression);
  f.ratio = 1.5;
  flags.metrics.push_back(f);
  const std::string flag_text = RenderGithubAnnotations(flags);
  const size_t title = flag_text.find("title=gpugate regression%3A BM_");
  ASSERT_NE(title, std::string::npos) << flag_text.substr(0, 300);
  const size_t dots = flag_text.find("\u2026", title);
  ASSERT_NE(dots, std::string::npos);
  EXPECT_EQ((dots - (title + 31)) % 8, 0u);  // whole flags: pairs of 4-byte indicators
}

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
  // Where all 25 are: without a step summary, the reports.
  EXPECT_NE(text.find("::error title=gpugate%3A 16 more errors::GitHub shows 10 errors per step; the "
                      "--markdown and --json reports list all 25: gpugate regression: bench9 (time); "),
            std::string::npos)
      << text;
  // The step summary only when it holds the whole report.
  ReportOptions whole;
  whole.step_summary_whole = true;
  EXPECT_NE(RenderGithubAnnotations(v, whole).find("per step; the job summary and the reports hold all 25: "),
            std::string::npos);
  ReportOptions shortened;
  shortened.step_summary_whole = false;
  const std::string cut = RenderGithubAnnotations(v, shortened);
  EXPECT_EQ(cut.find("the job summary and the reports hold all"), std::string::npos) << cut;
  EXPECT_NE(cut.find("per step; the job summary had to be shortened to fit GitHub's limit; the --markdown and "
                     "--json reports list all 25: "),
            std::string::npos)
      << cut;
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

TEST(ReportGithub, StepSummaryLeavesOutTheLastRowsWhenStillTooLarge) {
  Verdicts v = ManyResults(10000, Verdict::kRegression);
  v.warnings.push_back("the last warning");
  const std::string md = RenderGithubStepSummary(v);
  EXPECT_LE(md.size(), kGithubStepSummaryLimit);
  EXPECT_GT(md.size(), kGithubStepSummaryLimit - 1000);
  EXPECT_EQ(md.rfind("## :x: gpugate: 10000 regressions", 0), 0u);
  EXPECT_NE(md.find("more rows not listed to fit GitHub's step summary size limit; the --markdown "
                    "and --json reports list every row"),
            std::string::npos);
  EXPECT_NE(md.find("### :x: Regressions (10000)\n"), std::string::npos);  // the heading counts them all
  EXPECT_NE(md.find("- the last warning\n"), std::string::npos);  // after the tables: kept
  EXPECT_EQ(md.find("report cut"), std::string::npos);
}

Verdicts CommentVerdicts(int regressions, int unchanged, int warnings);  // below

// A step's summary file holds every call of that step: a second report is
// fitted into what the first left, or not added when too little is left.
TEST(ReportGithub, StepSummaryFitsIntoWhatTheFileHasLeft) {
  const Verdicts v = ManyResults(10000, Verdict::kRegression);
  ReportOptions options;
  options.step_summary_held = 600000;
  const std::string md = RenderGithubStepSummary(v, options);
  EXPECT_LE(md.size(), kGithubStepSummaryLimit - 600000);
  EXPECT_GT(md.size(), kGithubStepSummaryLimit - 600000 - 1000);
  options.step_summary_held = kGithubStepSummaryLimit - 100;
  EXPECT_EQ(RenderGithubStepSummary(v, options), "");
  // A small report that fits in what is left is added whole, even below the
  // room a fitted report needs.
  const Verdicts small = CommentVerdicts(1, 0, 0);
  ASSERT_LT(RenderMarkdown(small).size(), 3000u);
  options.step_summary_held = kGithubStepSummaryLimit - 3000;
  EXPECT_EQ(RenderGithubStepSummary(small, options), RenderMarkdown(small));
  options.step_summary_held = 2 * kGithubStepSummaryLimit;
  EXPECT_EQ(RenderGithubStepSummary(v, options), "");
}

// The roofline's title (a device profile's name) is shortened like every
// other text: a 40,000-character name had forced the last-resort cut, and the
// comment named no regression.
TEST(ReportGithub, ALongDeviceProfileNameDoesNotCutTheRegressionsAway) {
  Verdicts v = CommentVerdicts(2, 0, 0);
  v.device_profile = std::string(40000, 'd');
  const std::string md = RenderGithubComment(v);
  EXPECT_LE(md.size(), kGithubCommentLimit);
  EXPECT_EQ(md.find("(report cut"), std::string::npos);
  EXPECT_NE(md.find("n=0 | time |"), std::string::npos) << md.substr(0, 2000);
  EXPECT_NE(md.find("n=1 | time |"), std::string::npos);
}

// Where the rules' findings give way to the rows, no row keeps an empty
// "what the rules say" heading.
TEST(ReportGithub, NoEmptyRuleListUnderARow) {
  Verdicts v = CommentVerdicts(10, 0, 0);
  for (Suggestion& s : v.suggestions) s.message = std::string(6000, 'm');  // 60 KB of findings
  const std::string md = RenderMarkdownFitted(v, 4096, "a small place", "elsewhere");
  EXPECT_LE(md.size(), 4096u);
  EXPECT_EQ(md.find("what the rules say:\n\n\n"), std::string::npos) << md;
  size_t rows = 0;
  for (size_t at = md.find("| time |"); at != std::string::npos; at = md.find("| time |", at + 1)) ++rows;
  EXPECT_EQ(rows, 10u) << md;
}

// Where the findings under a row give way, its failing finding stays first.
TEST(ReportGithub, ARowKeepsItsFailingFindingFirst) {
  Verdicts v = CommentVerdicts(4, 0, 0);
  v.suggestions.clear();
  for (int i = 0; i < 4; ++i) {
    Suggestion s;
    s.workload = v.metrics[static_cast<size_t>(i)].workload;
    s.priority = 0;  // critical, but not failing: sorted before the failing one
    for (int k = 0; k < 2; ++k) {
      s.rule = "note-" + std::to_string(k);
      s.message = std::string(900, 'n');
      v.suggestions.push_back(s);
    }
    s.priority = 2;
    s.severity = "fail";
    s.rule = "gate-" + std::to_string(i);
    s.message = "fails the gate";
    v.suggestions.push_back(s);
  }
  const std::string md = RenderMarkdownFitted(v, 6000, "a small place", "elsewhere");
  EXPECT_LE(md.size(), 6000u);
  for (int i = 0; i < 4; ++i) EXPECT_NE(md.find("gate-" + std::to_string(i)), std::string::npos) << md;
}

// A table all of whose rows were left out is not printed (a header over no
// rows); its heading and the note count them.
TEST(ReportGithub, ATableWithNoRowListedIsNotPrinted) {
  Verdicts v = ManyResults(3000, Verdict::kRegression);
  for (int i = 0; i < 3; ++i) v.metrics.push_back(Metric("unsure" + std::to_string(i), "time", Verdict::kInconclusive));
  const std::string md = RenderGithubComment(v);
  const size_t heading = md.find("### :grey_question: Inconclusive (3)\n");
  ASSERT_NE(heading, std::string::npos) << md.substr(md.size() - 2000);
  const std::string section = md.substr(heading, md.find("\n### ", heading + 1) - heading);
  EXPECT_EQ(section.find("| Workload"), std::string::npos) << section;
  EXPECT_NE(section.find("\n\n3 more rows not listed to fit a pull-request comment"), std::string::npos) << section;
}

// A report of `regressions` regression rows (each with a rule's suggestion),
// `unchanged` unchanged rows and `warnings` warnings.
Verdicts CommentVerdicts(int regressions, int unchanged, int warnings) {
  Verdicts v = ManyResults(regressions, Verdict::kRegression);
  const Verdicts same = ManyResults(unchanged, Verdict::kUnchanged);
  for (MetricVerdict m : same.metrics) {
    m.workload = "same/" + m.workload;
    v.metrics.push_back(m);
  }
  for (int i = 0; i < regressions; ++i) {
    Suggestion s;
    s.rule = "rule-" + std::to_string(i);
    s.workload = v.metrics[i].workload;
    s.message = "what to do about workload " + std::to_string(i);
    v.suggestions.push_back(s);
  }
  for (int i = 0; i < warnings; ++i)
    v.warnings.push_back("warning " + std::to_string(i) + std::string(100, 'w'));
  return v;
}

// Every line of a fitted report is a whole line of the report it came from.
void ExpectWholeLinesOf(const std::string& fitted, const std::string& full) {
  size_t at = 0;
  while (at < fitted.size()) {
    const size_t end = fitted.find('\n', at);
    ASSERT_NE(end, std::string::npos) << "the fitted report does not end with a line break";
    const std::string line = fitted.substr(at, end - at);
    if (line.rfind("| ", 0) == 0) {
      EXPECT_EQ(line.back(), '|') << line;
      EXPECT_NE(full.find("\n" + line + "\n"), std::string::npos) << line;
    }
    at = end + 1;
  }
}

TEST(ReportGithub, CommentIsTheMarkdownReportWhenItFits) {
  EXPECT_EQ(RenderGithubComment(MixedVerdicts()), RenderMarkdown(MixedVerdicts()));
  const Verdicts v = CommentVerdicts(3, 10, 1);
  EXPECT_EQ(RenderGithubComment(v), RenderMarkdown(v));
}

TEST(ReportGithub, CommentLeavesOutTheFoldedRowsFirst) {
  const Verdicts v = CommentVerdicts(3, 2000, 1);
  const std::string full = RenderMarkdown(v);
  ASSERT_GT(full.size(), kGithubCommentLimit);
  const std::string md = RenderGithubComment(v);
  EXPECT_LE(md.size(), kGithubCommentLimit);
  EXPECT_EQ(md.find("details>"), std::string::npos) << "no block left, open or closed";
  EXPECT_NE(md.find("2000 unchanged results are not listed to fit a pull-request comment; the "
                    "--markdown and --json reports list every row."),
            std::string::npos);
  EXPECT_EQ(md.find("| same/"), std::string::npos);
  for (int i = 0; i < 3; ++i) EXPECT_NE(md.find("what to do about workload " + std::to_string(i)), std::string::npos);
  EXPECT_NE(md.find("- warning 0"), std::string::npos);
  EXPECT_EQ(md.rfind("## :x: gpugate: 3 regressions, 0 improvements, 2000 unchanged", 0), 0u);
  ExpectWholeLinesOf(md, full);
}

TEST(ReportGithub, CommentThenLeavesOutTheLastRowsOfTheTables) {
  const Verdicts v = CommentVerdicts(3000, 10, 2);
  const std::string full = RenderMarkdown(v);
  const std::string md = RenderGithubComment(v);
  EXPECT_LE(md.size(), kGithubCommentLimit);
  EXPECT_GT(md.size(), kGithubCommentLimit - 2000) << "as many rows as fit";
  EXPECT_EQ(md.rfind("## :x: gpugate: 3000 regressions", 0), 0u);
  EXPECT_NE(md.find("| suite/some-long-workload-name/with/parameters/n=0 |"), std::string::npos);
  EXPECT_EQ(md.find("n=2999 |"), std::string::npos);
  // The count of what was left out, with the rows listed, is every row.
  size_t listed = 0;
  for (size_t at = md.find("\n| suite/"); at != std::string::npos; at = md.find("\n| suite/", at + 1)) ++listed;
  const std::string tail = " more rows not listed to fit a pull-request comment";
  const size_t note = md.find(tail);
  ASSERT_NE(note, std::string::npos) << md.substr(md.size() - 2000);
  const size_t start = md.rfind('\n', note) + 1;
  EXPECT_EQ(std::stoul(md.substr(start, note - start)) + listed, 3000u);
  // The rules' suggestions follow their rows: only those listed.
  EXPECT_NE(md.find("what to do about workload 0\n"), std::string::npos);
  EXPECT_EQ(md.find("what to do about workload 2999\n"), std::string::npos);
  // What comes after the tables stays; the folded rows are counted.
  EXPECT_NE(md.find("- warning 1"), std::string::npos);
  EXPECT_NE(md.find("10 unchanged results are not listed"), std::string::npos);
  EXPECT_EQ(md.find("report cut"), std::string::npos);
  ExpectWholeLinesOf(md, full);
}

// Thousands of warnings: the first ones are listed in at most half the
// room, and the rows too; the rest are counted, nothing is cut.
TEST(ReportGithub, CommentListsTheFirstWarningsWhenTheyAloneAreTooMany) {
  const Verdicts v = CommentVerdicts(3, 0, 2000);  // 2000 warnings of 110 bytes
  const std::string full = RenderMarkdown(v);
  const std::string md = RenderGithubComment(v);
  EXPECT_LE(md.size(), kGithubCommentLimit);
  EXPECT_EQ(md.rfind("## :x: gpugate: 3 regressions", 0), 0u);
  EXPECT_EQ(md.find("report cut"), std::string::npos);
  EXPECT_NE(md.find("n=2 |"), std::string::npos) << "every row is listed";
  EXPECT_NE(md.find("- warning 0w"), std::string::npos);
  size_t listed = 0;
  for (size_t at = md.find("\n- warning "); at != std::string::npos; at = md.find("\n- warning ", at + 1)) ++listed;
  EXPECT_GT(listed, 100u);
  EXPECT_NE(md.find(std::to_string(2000 - listed) + " more warnings not listed to fit a pull-request comment"),
            std::string::npos);
  ExpectWholeLinesOf(md, full);
}

// A gate-failing rule finding is never left out for rows, and the headline
// names only the first few failing rules.
TEST(ReportGithub, CommentKeepsFailingFindingsAndABoundedHeadline) {
  Verdicts v = CommentVerdicts(2000, 0, 0);
  v.outcome = Outcome::kFail;
  for (int i = 0; i < 8; ++i) {
    Suggestion s;
    s.rule = "forbidden-" + std::to_string(i);
    s.severity = "fail";
    s.priority = 0;
    s.workload = "suite/some-long-workload-name/with/parameters/n=1999";
    s.message = "a finding that fails the gate " + std::to_string(i);
    v.suggestions.push_back(s);
  }
  const std::string md = RenderGithubComment(v);
  EXPECT_LE(md.size(), kGithubCommentLimit);
  const std::string headline = md.substr(0, md.find('\n'));
  EXPECT_NE(headline.find("8 rule findings fail the gate (forbidden-0, forbidden-1, forbidden-2, forbidden-3, "
                          "forbidden-4 and 3 more)"),
            std::string::npos)
      << headline;
  EXPECT_EQ(md.find("n=1999 |"), std::string::npos) << "its row is not listed";
  for (int i = 0; i < 8; ++i)
    EXPECT_NE(md.find("a finding that fails the gate " + std::to_string(i)), std::string::npos) << i;
}

// A rule that fails the gate on every regression: its findings are listed
// before other suggestions, but they do not push out every row; those left
// out are counted.
TEST(ReportGithub, ManyFailingFindingsLeaveRoomForTheFirstRows) {
  Verdicts v = CommentVerdicts(400, 0, 0);
  for (Suggestion& s : v.suggestions) {
    s.severity = "fail";
    s.message = "more than 20% slower: " + std::string(120, 'm');
  }
  const std::string md = RenderGithubComment(v);
  EXPECT_LE(md.size(), kGithubCommentLimit);
  for (int i = 0; i < 10; ++i)
    EXPECT_NE(md.find("n=" + std::to_string(i) + " |"), std::string::npos) << "row " << i;
  EXPECT_NE(md.find(" more suggestions not listed to fit a pull-request comment"), std::string::npos);
  EXPECT_EQ(md.find("report cut"), std::string::npos);
}

// A regression whose rules say a great deal is still listed: what they say
// under it is shortened and counted.
TEST(ReportGithub, ARowIsListedEvenWhenItsRulesSayALot) {
  Verdicts v = CommentVerdicts(1, 0, 0);
  for (int i = 0; i < 150; ++i) {
    Suggestion s = v.suggestions[0];
    s.rule = "rule-" + std::to_string(1000 + i);
    s.message = std::string(400, 's');
    v.suggestions.push_back(s);
  }
  const std::string md = RenderGithubComment(v);
  EXPECT_LE(md.size(), kGithubCommentLimit);
  EXPECT_GT(md.size(), kGithubCommentLimit / 2) << "the room is used";
  EXPECT_NE(md.find("n=0 |"), std::string::npos);
  EXPECT_NE(md.find("what the rules say"), std::string::npos);
  EXPECT_NE(md.find(" more suggestions not listed"), std::string::npos);
}

// Kernel tables are rows too: they are shortened before a failing
// regression row is left out.
TEST(ReportGithub, CommentShortensTheKernelTableBeforeTheRegressions) {
  Verdicts v = CommentVerdicts(1, 0, 1);
  for (int i = 0; i < 1200; ++i)
    v.new_kernels.emplace_back("w", "void kernel_with_a_long_templated_name<float, " + std::to_string(i) + ">(float*)");
  const std::string md = RenderGithubComment(v);
  EXPECT_LE(md.size(), kGithubCommentLimit);
  EXPECT_NE(md.find("### :x: Regressions (1)"), std::string::npos);
  EXPECT_NE(md.find("n=0 |"), std::string::npos);
  EXPECT_NE(md.find("### :new: New and vanished kernels (1200)"), std::string::npos);
  EXPECT_NE(md.find(" more rows not listed to fit a pull-request comment"), std::string::npos);
  EXPECT_NE(md.find("- warning 0w"), std::string::npos);
  EXPECT_EQ(md.find("report cut"), std::string::npos);
}

// Only a first line longer than the room is cut inside a line: at a
// character, with a note.
TEST(ReportGithub, AnOverlongRuleIdIsShortenedAtACharacter) {
  Verdicts v = CommentVerdicts(1, 0, 0);
  Suggestion s;
  s.severity = "fail";
  s.rule = "r";
  for (int i = 0; i < 3000; ++i) s.rule += "\u00e9";  // a two-byte character: 6001 bytes
  v.suggestions.push_back(s);
  const std::string md = RenderMarkdownFitted(v, 4096, "a small place", "elsewhere");
  EXPECT_LE(md.size(), 4096u);
  EXPECT_EQ(md.rfind("## :x: gpugate: 1 regression", 0), 0u);
  // The failing rule's id is shortened in the headline and in its finding,
  // not cut with the rest of the report, and the report says so.
  EXPECT_EQ(md.find("(report cut"), std::string::npos) << md;
  EXPECT_NE(md.find("Texts longer than 64 bytes are shortened"), std::string::npos) << md;
  EXPECT_NE(md.find("n=0 | time |"), std::string::npos) << md;
  // Valid UTF-8: no character split by a shortening.
  EXPECT_EQ(ValidUtf8Prefix(md), md.size());
  EXPECT_NE(md.find("r\u00e9\u00e9\u00e9"), std::string::npos);  // the rule id starts as written
}

// One text of tens of kilobytes (a failure reason, a unit, an environment
// field: all untrusted) took the room of every row: the comment listed none,
// not even the failing regression. It is shortened, and every row listed.
TEST(ReportGithub, AnOversizedCellIsShortenedNotAllRowsDropped) {
  Verdicts v = CommentVerdicts(3, 0, 0);
  MetricVerdict failed = Metric("decoy", "time", Verdict::kSkipped);
  failed.reason = Reason::kCurrentFailed;
  failed.sentence = "current run: failed: " + std::string(80000, 'x');
  v.metrics.insert(v.metrics.begin(), failed);
  v.env_differences.push_back({"cpu_model", "AMD EPYC", "AMD EPYC " + std::string(80000, 'y')});
  const std::string md = RenderGithubComment(v);
  EXPECT_LE(md.size(), kGithubCommentLimit);
  for (const char* row : {"| decoy |", "n=0 | time |", "n=1 | time |", "n=2 | time |", "| cpu\\_model |"})
    EXPECT_NE(md.find(row), std::string::npos) << row << "\n" << md.substr(0, 3000);
  EXPECT_EQ(md.find("(report cut"), std::string::npos);
  EXPECT_EQ(md.find("not listed"), std::string::npos) << md.substr(0, 3000);
}

}  // namespace
}  // namespace gpugate
