// JUnit report: mapping of verdicts onto testcases and validation against
// the Apache Ant JUnit schema with xmllint.
#include "report/junit.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "report/report_fixtures.h"
#include "report/report_test_util.h"

namespace gpugate {
namespace {

using testing_fixtures::HaveTool;
using testing_fixtures::MismatchVerdicts;
using testing_fixtures::MixedVerdicts;
using testing_fixtures::PassVerdicts;
using testing_fixtures::RunShell;
using testing_fixtures::TempPath;
using testing_fixtures::WriteText;

std::string Xsd() { return std::string(GPUGATE_SOURCE_DIR) + "/tests/data/junit/JUnit.xsd"; }

TEST(ReportJunit, ValidatesAgainstTheAntSchema) {
  if (!HaveTool("xmllint")) GTEST_SKIP() << "xmllint is not installed";
  int i = 0;
  for (const Verdicts& v : {MixedVerdicts(), MismatchVerdicts(), PassVerdicts(),
                            testing_fixtures::NotJudgedVerdicts(),
                            testing_fixtures::ErrorVerdicts(),
                            testing_fixtures::RequireDetectableVerdicts(), Verdicts{}}) {
    ReportOptions o;
    o.timestamp = "2026-03-04T05:06:07";
    const std::string path = TempPath("_" + std::to_string(i++) + ".xml");
    const std::string xml = RenderJunit(v, o);
    WriteText(path, xml);
    EXPECT_EQ(RunShell("xmllint --noout --schema '" + Xsd() + "' '" + path + "' 2>/dev/null"), 0)
        << xml;
    std::remove(path.c_str());
  }
}

TEST(ReportJunit, SchemaValidationCatchesABrokenDocument) {
  // The validator itself must be able to fail: a testcase without its
  // required time attribute is rejected.
  if (!HaveTool("xmllint")) GTEST_SKIP() << "xmllint is not installed";
  std::string xml = RenderJunit(PassVerdicts());
  const std::string attr = " time=\"0\"/>";
  const size_t at = xml.find(attr);
  ASSERT_NE(at, std::string::npos);
  xml.replace(at, attr.size(), "/>");
  const std::string path = TempPath(".xml");
  WriteText(path, xml);
  EXPECT_NE(RunShell("xmllint --noout --schema '" + Xsd() + "' '" + path + "' 2>/dev/null"), 0);
  std::remove(path.c_str());
}

TEST(ReportJunit, CountsFailuresAndSkips) {
  const std::string xml = RenderJunit(MixedVerdicts());
  // 13 results; only the unwaived fail-severity regression fails; skipped,
  // incomparable, inconclusive (not judged), new and removed are skipped;
  // warn-only and waived pass.
  EXPECT_NE(xml.find("tests=\"13\" failures=\"1\" errors=\"0\" skipped=\"6\""), std::string::npos)
      << xml;
  // The message is the short note; the body has the numbers and the sentence.
  EXPECT_NE(xml.find("<testcase classname=\"gpugate.time\" name=\"saxpy/16M\" time=\"0\">\n"
                     "      <failure type=\"regression\" message=\"significant, above the 2% "
                     "threshold\">change: +4.1% [+2.9%, +5.3%] (95% CI)\n"),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("could see: +1.9% (90% power)\n"), std::string::npos) << xml;
  // The failure ends with the suggestion that explains the regression.
  EXPECT_NE(xml.find("+4.1% [+2.9%, +5.3%] exceeds the 2% threshold; 30 vs 30 samples over 5 "
                     "rounds\n[medium] memory-bound: saxpy/16M runs at 71% of the measured peak "
                     "bandwidth"),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("<testcase classname=\"gpugate.time\" name=\"conv2d/nhwc\" time=\"0\"/>"),
            std::string::npos);
  EXPECT_NE(xml.find("<skipped message=\"incomparable: environments differ: not compared\"/>"),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("<skipped message=\"inconclusive: noise between runs exceeds the effect\"/>"),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("<property name=\"time saxpy/16M\" value=\"verdict=regression ratio=1.041 "
                     "ci=[1.029, 1.053] confidence=0.95 p=0.0012 p_adjusted=0.004 "
                     "threshold=0.02 mde=0.019 severity=fail\"/>"),
            std::string::npos)
      << xml;
}

TEST(ReportJunit, InconclusiveFailsOnlyWhenTheOutcomeSaysSo) {
  Verdicts v = MismatchVerdicts();
  ASSERT_EQ(v.outcome, Outcome::kInconclusive);
  EXPECT_NE(RenderJunit(v).find("failures=\"1\""), std::string::npos);
  EXPECT_NE(RenderJunit(v).find("<failure type=\"inconclusive\""), std::string::npos);
  v.outcome = Outcome::kPass;
  EXPECT_NE(RenderJunit(v).find("failures=\"0\""), std::string::npos);
  EXPECT_EQ(RenderJunit(v).find("<failure"), std::string::npos);
}

// on_incomparable: fail makes the incomparable results what failed (exit 4),
// not the undecided ones the policy lets pass.
TEST(ReportJunit, IncomparableFailsWhereThePolicySaysSo) {
  Verdicts v = MismatchVerdicts();
  v.inconclusive_fails = false;
  v.incomparable_fails = true;
  const std::string xml = RenderJunit(v);
  EXPECT_NE(xml.find("failures=\"1\" errors=\"0\" skipped=\"1\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("<failure type=\"incomparable\""), std::string::npos) << xml;
  EXPECT_EQ(xml.find("<failure type=\"inconclusive\""), std::string::npos) << xml;
  v.inconclusive_fails = true;
  EXPECT_NE(RenderJunit(v).find("failures=\"2\""), std::string::npos);
  // Without the outcome inconclusive (the policy lets it pass): skipped.
  v.outcome = Outcome::kNotJudged;
  EXPECT_NE(RenderJunit(v).find("failures=\"0\" errors=\"0\" skipped=\"2\""), std::string::npos);
}

// A finding of a rule with `emit: fail` fails the gate: a failing test case.
TEST(ReportJunit, ARuleThatFailsTheGateIsAFailingTestCase) {
  const std::string xml = RenderJunit(testing_fixtures::RuleFailureVerdicts("8 blocks <on> 108 SMs"));
  EXPECT_NE(xml.find("failures=\"1\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("<testcase classname=\"gpugate.rule\" name=\"tiny-grid: saxpy/16M\" time=\"0\">\n"
                     "      <failure type=\"rule\" message=\"8 blocks &lt;on&gt; 108 SMs\">"),
            std::string::npos)
      << xml;
}

// New and removed results compared nothing: a run of only those (every
// benchmark renamed, the wrong baseline) shows no passed testcase.
TEST(ReportJunit, NewAndRemovedResultsAreSkippedNotPassed) {
  Verdicts v;
  v.outcome = Outcome::kNotJudged;
  MetricVerdict m;
  m.metric = "time";
  m.workload = "BM_New";
  m.verdict = Verdict::kNew;
  m.reason = Reason::kNewWorkload;
  v.metrics.push_back(m);
  m.workload = "BM_Old";
  m.verdict = Verdict::kRemoved;
  m.reason = Reason::kRemovedWorkload;
  v.metrics.push_back(m);
  const std::string xml = RenderJunit(v);
  EXPECT_NE(xml.find("tests=\"2\" failures=\"0\" errors=\"0\" skipped=\"2\""), std::string::npos)
      << xml;
  EXPECT_NE(xml.find("<skipped message=\"new: not in the baseline\"/>"), std::string::npos) << xml;
}

// A reporter prints a testcase's name as a line of the CI log: a line feed
// in a (kernel, benchmark) name must not start a line of its own there, and
// a line of a failure's text must not start with a workflow command.
TEST(ReportJunit, NamesStayOnOneLineAndNoLineIsAWorkflowCommand) {
  Verdicts v = testing_fixtures::ErrorVerdicts();
  v.metrics[0].workload = "k\n::error::forged\ttab\r";
  v.metrics[0].metric = "kernel:a\nb";
  v.metrics[0].sentence = "current run: failed: stderr (last lines):\n  ::error::pwned\n##[error]old";
  const std::string xml = RenderJunit(v);
  EXPECT_NE(xml.find("name=\"k\uFFFD::error::forged\uFFFDtab\uFFFD\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("classname=\"gpugate.kernel:a\uFFFDb\""), std::string::npos) << xml;
  EXPECT_EQ(xml.find("\n::"), std::string::npos) << xml;
  EXPECT_EQ(xml.find("\n  ::"), std::string::npos) << xml;
  EXPECT_EQ(xml.find("##["), std::string::npos) << xml;
  EXPECT_NE(xml.find("\n  &#58;:error::pwned"), std::string::npos) << xml;
}

// Severity off: reported, ignored by the outcome. Never a passed test (all
// off is a not-judged run, which must not read green) and never a failure.
TEST(ReportJunit, ResultsOfSeverityOffAreSkippedWhateverTheirVerdict) {
  Verdicts v;
  v.outcome = Outcome::kNotJudged;
  for (Verdict verdict : {Verdict::kUnchanged, Verdict::kRegression, Verdict::kInconclusive}) {
    MetricVerdict m = testing_fixtures::Metric(std::string("w-") + ToString(verdict), "time", verdict);
    m.severity = Severity::kOff;
    v.metrics.push_back(m);
  }
  const std::string xml = RenderJunit(v);
  EXPECT_NE(xml.find("tests=\"3\" failures=\"0\" errors=\"0\" skipped=\"3\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("<skipped message=\"ignored (severity off): unchanged"), std::string::npos) << xml;
  v.outcome = Outcome::kInconclusive;  // what another result made it
  v.inconclusive_fails = true;
  EXPECT_NE(RenderJunit(v).find("failures=\"0\" errors=\"0\" skipped=\"3\""), std::string::npos);
}

// require_detectable fails the results too noisy to guard; an inconclusive
// result that could see the required change passes the policy: skipped.
TEST(ReportJunit, RequireDetectableFailsOnlyTheUndetectable) {
  Verdicts v = testing_fixtures::RequireDetectableVerdicts();
  ASSERT_EQ(v.outcome, Outcome::kInconclusive);
  MetricVerdict edge = testing_fixtures::Metric("edge", "time", Verdict::kInconclusive);
  edge.reason = Reason::kStraddlesThreshold;
  edge.mde = 0.056;
  v.metrics.push_back(edge);
  const std::string xml = RenderJunit(v);
  const size_t at = xml.find("name=\"edge\"");
  ASSERT_NE(at, std::string::npos) << xml;
  const std::string skipped = "name=\"edge\" time=\"0\">\n      <skipped message=\"inconclusive";
  EXPECT_EQ(xml.substr(at, skipped.size()), skipped) << xml.substr(at, 200);
}

TEST(ReportJunit, AFailedWorkloadIsAnError) {
  const std::string xml = RenderJunit(testing_fixtures::ErrorVerdicts());
  EXPECT_NE(xml.find("tests=\"4\" failures=\"0\" errors=\"1\" skipped=\"1\""), std::string::npos)
      << xml;
  EXPECT_NE(xml.find("<testcase classname=\"gpugate.time\" name=\"train-step\" time=\"0\">\n"
                     "      <error type=\"current_failed\" message=\"current run: failed: exit "
                     "code 139 (SIGSEGV) in round 3\">"),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("<property name=\"gpugate.outcome\" value=\"error\"/>"), std::string::npos);
  EXPECT_NE(xml.find("\nerror: 1 workload failed to run; "), std::string::npos) << xml;
}

TEST(ReportJunit, NotJudgedPassesNoTestcase) {
  const std::string xml = RenderJunit(testing_fixtures::NotJudgedVerdicts());
  // Every result is undecided: all skipped, none passed, none failed.
  EXPECT_NE(xml.find("tests=\"5\" failures=\"0\" errors=\"0\" skipped=\"5\""), std::string::npos)
      << xml;
  EXPECT_NE(xml.find("<property name=\"gpugate.outcome\" value=\"not_judged\"/>\n"
                     "      <property name=\"gpugate.headline\" value=\"not judged: 4 "
                     "inconclusive; could not see changes below +11%\"/>\n"
                     "      <property name=\"gpugate.could_see\" value=\"+11% \u2026 +30%\"/>"),
            std::string::npos)
      << xml;
  const std::string required = RenderJunit(testing_fixtures::RequireDetectableVerdicts());
  EXPECT_NE(required.find("<property name=\"gpugate.require_detectable\" value=\"0.1\"/>"),
            std::string::npos)
      << required;
}

TEST(ReportJunit, TimestampAndHostname) {
  ReportOptions o;
  EXPECT_NE(RenderJunit(PassVerdicts(), o).find("timestamp=\"1970-01-01T00:00:00\" "
                                                "hostname=\"localhost\""),
            std::string::npos);
  o.timestamp = "2026-03-04T05:06:07.123Z";
  o.hostname = "runner<1>";
  EXPECT_NE(RenderJunit(PassVerdicts(), o).find("timestamp=\"2026-03-04T05:06:07\" "
                                                "hostname=\"runner&lt;1&gt;\""),
            std::string::npos);
  o.timestamp = "yesterday";
  EXPECT_NE(RenderJunit(PassVerdicts(), o).find("timestamp=\"1970-01-01T00:00:00\""),
            std::string::npos);
}

}  // namespace
}  // namespace gpugate
