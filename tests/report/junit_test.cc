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
  for (const Verdicts& v : {MixedVerdicts(), MismatchVerdicts(), PassVerdicts(), Verdicts{}}) {
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
  // 13 results; only the unwaived fail-severity regression fails; skipped and
  // incomparable are skipped; warn-only, waived and inconclusive pass.
  EXPECT_NE(xml.find("tests=\"13\" failures=\"1\" errors=\"0\" skipped=\"2\""), std::string::npos)
      << xml;
  EXPECT_NE(xml.find("<testcase classname=\"gpugate.time\" name=\"saxpy/16M\" time=\"0\">\n"
                     "      <failure type=\"regression\" message=\"+4.1% [+2.9%, +5.3%] exceeds"),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("<testcase classname=\"gpugate.time\" name=\"conv2d/nhwc\" time=\"0\"/>"),
            std::string::npos);
  EXPECT_NE(xml.find("<skipped message=\"incomparable: SM clock locked"), std::string::npos);
  EXPECT_NE(xml.find("<property name=\"time saxpy/16M\" value=\"verdict=regression ratio=1.041 "
                     "ci=[1.029, 1.053] confidence=0.95 p=0.0012 p_adjusted=0.004 "
                     "threshold=0.02 severity=fail\"/>"),
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
