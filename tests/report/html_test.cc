// HTML report: the headline follows the outcome (never a pass when nothing
// was decided) and a section's colour follows what its results do to the
// gate.
#include "report/html.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "report/report_fixtures.h"

namespace gpugate {
namespace {

using testing_fixtures::ErrorVerdicts;
using testing_fixtures::MismatchVerdicts;
using testing_fixtures::MixedVerdicts;
using testing_fixtures::NotJudgedVerdicts;

constexpr const char* kRed = "#cf222e";
constexpr const char* kAmber = "#9a6700";
constexpr const char* kGreen = "#1a7f37";
constexpr const char* kGrey = "#59636e";

// The class attribute of the <section> whose heading starts with `title`.
std::string SectionClass(const std::string& html, const std::string& title) {
  const size_t h2 = html.find("<h2>" + title);
  if (h2 == std::string::npos) return "";
  const size_t open = html.rfind("<section class=\"", h2);
  if (open == std::string::npos) return "";
  const size_t start = open + 16;
  return html.substr(start, html.find('"', start) - start);
}

// The colour the page's style sheet gives the <h2> of a section with these
// classes ("section.<class> h2{color:...}"), or "" when no rule does.
std::string HeadingColour(const std::string& html, const std::string& section_class) {
  size_t start = 0;
  while (start < section_class.size()) {
    size_t end = section_class.find(' ', start);
    if (end == std::string::npos) end = section_class.size();
    const std::string rule = "section." + section_class.substr(start, end - start) + " h2{color:";
    const size_t at = html.find(rule);
    if (at != std::string::npos) return html.substr(at + rule.size(), 7);
    start = end + 1;
  }
  return "";
}

std::string ColourOf(const Verdicts& v, const std::string& title) {
  const std::string html = RenderHtml(v);
  const std::string cls = SectionClass(html, title);
  EXPECT_NE(cls, "") << title << "\n" << html;
  return cls.empty() ? "" : HeadingColour(html, cls);
}

// Only the regressions of one kind (fail, warn or waived) are kept.
Verdicts KeepRegressions(Verdicts v, bool keep_failing, bool keep_warn, bool keep_waived) {
  std::vector<MetricVerdict> kept;
  for (const MetricVerdict& m : v.metrics) {
    if (m.verdict == Verdict::kRegression) {
      const bool failing = m.severity == Severity::kFail && !m.waived;
      const bool warn = m.severity == Severity::kWarn && !m.waived;
      if ((failing && !keep_failing) || (warn && !keep_warn) || (m.waived && !keep_waived)) {
        continue;
      }
    }
    kept.push_back(m);
  }
  v.metrics = kept;
  return v;
}

// A suite of thousands of workloads: charts for the first 300, regressions
// first; the table still lists every result.
TEST(ReportHtml, WorkloadChartsAreCappedWithRegressionsFirst) {
  Verdicts v;
  v.outcome = Outcome::kFail;
  for (int i = 0; i < 400; ++i) {
    MetricVerdict m;
    m.workload = "w" + std::to_string(i);
    m.metric = "time";
    m.verdict = i >= 395 ? Verdict::kRegression : Verdict::kUnchanged;
    m.ratio = i >= 395 ? 1.5 : 1.0;
    m.plot = MetricPlot{};
    m.plot->baseline_rounds = {{1.0, 1.1}};
    m.plot->current_rounds = {{1.0, 1.2}};
    v.metrics.push_back(m);
  }
  const std::string html = RenderHtml(v);
  EXPECT_NE(html.find("Per workload (300 of 400: regressions, improvements and undecided results first"),
            std::string::npos);
  EXPECT_NE(html.find("data-name=\"w399"), std::string::npos);
  EXPECT_EQ(html.find("<details class=\"workload\" data-verdict=\"unchanged\" data-name=\"w390"), std::string::npos);
  EXPECT_NE(html.find("<details class=\"workload\" data-verdict=\"unchanged\" data-name=\"w0"), std::string::npos);
}

TEST(ReportHtml, RegressionsAreRedOnlyWhenOneFailsTheGate) {
  EXPECT_EQ(ColourOf(MixedVerdicts(), "Regressions"), kRed);
  // Warn-only regressions (and a waived one): amber, not red.
  Verdicts warn = KeepRegressions(MixedVerdicts(), false, true, true);
  warn.outcome = Outcome::kPass;
  EXPECT_EQ(ColourOf(warn, "Regressions"), kAmber);
  // Only a waived regression: neutral (no rule colours it).
  Verdicts waived = KeepRegressions(MixedVerdicts(), false, false, true);
  waived.outcome = Outcome::kPass;
  const std::string html = RenderHtml(waived);
  EXPECT_EQ(SectionClass(html, "Regressions"), "regressions tone-neutral");
  EXPECT_EQ(HeadingColour(html, SectionClass(html, "Regressions")), "");
}

TEST(ReportHtml, OtherSectionsFollowTheirVerdictClass) {
  EXPECT_EQ(ColourOf(MixedVerdicts(), "Improvements"), kGreen);
  // Inconclusive results are grey unless the policy fails them.
  EXPECT_EQ(ColourOf(MixedVerdicts(), "Inconclusive"), kGrey);
  EXPECT_EQ(ColourOf(MismatchVerdicts(), "Inconclusive"), kAmber);
  EXPECT_EQ(ColourOf(ErrorVerdicts(), "Failed to run"), kRed);
  const std::string html = RenderHtml(MixedVerdicts());
  EXPECT_EQ(SectionClass(html, "New, removed, skipped and incomparable"), "other tone-neutral");
}

TEST(ReportHtml, NotJudgedIsAVisibleNeutralBadgeNeverAPass) {
  const std::string html = RenderHtml(NotJudgedVerdicts());
  EXPECT_NE(html.find("<title>gpugate: not judged, 4 inconclusive; could not see changes below "
                      "+11%</title>"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("<h1><span class=\"outcome not_judged\">not judged</span> gpugate: 4 "
                      "inconclusive; could not see changes below +11%</h1>"),
            std::string::npos)
      << html;
  // The badge has a background of its own (white text on white before).
  EXPECT_NE(html.find(std::string(".not_judged{background:") + kGrey + "}"), std::string::npos);
  EXPECT_EQ(html.find(">pass<"), std::string::npos);
  EXPECT_NE(html.find("Could have seen: +11% \u2026 +30%"), std::string::npos) << html;
}

TEST(ReportHtml, ErrorHeadlineNamesTheFailedWorkloads) {
  const std::string html = RenderHtml(ErrorVerdicts());
  EXPECT_NE(html.find("<h1><span class=\"outcome error\">error</span> gpugate: 1 workload failed "
                      "to run; "),
            std::string::npos)
      << html;
}

}  // namespace
}  // namespace gpugate

namespace gpugate {
namespace {

// Both environments side by side, the differing field marked, values escaped.
TEST(ReportHtml, EnvironmentsSideBySideWithTheDifferenceMarked) {
  Verdicts v;
  v.environments = {{"cpu_model", std::string("EPYC 7763"), std::string("EPYC 7763")},
                    {"gpu.name", std::string("NVIDIA A100"), std::string("<b>H100</b>")},
                    {"gpu.driver_version", {}, std::string("550.54")},
                    {"gpu.sm_clock_hz", 1.41e9, 1.41e9},
                    {"gpu.memory_bytes", int64_t{85899345920}, int64_t{85899345920}},
                    {"gpu.ecc_enabled", true, true},
                    {"gpu.power_limit_w", 400.0, 400.0}};
  const std::string html = RenderHtml(v);
  // Numbers in the unit their field names, exactly (a byte count is not "8.59e+10").
  EXPECT_NE(html.find("<tr><td>gpu.sm_clock_hz</td><td>1410 MHz</td><td>1410 MHz</td></tr>"), std::string::npos);
  EXPECT_NE(html.find("<tr><td>gpu.memory_bytes</td><td>80.0 GiB</td><td>80.0 GiB</td></tr>"), std::string::npos);
  EXPECT_NE(html.find("<tr><td>gpu.ecc_enabled</td><td>on</td><td>on</td></tr>"), std::string::npos);
  EXPECT_NE(html.find("<tr><td>gpu.power_limit_w</td><td>400 W</td><td>400 W</td></tr>"), std::string::npos);
  EXPECT_NE(html.find("<h2>Environments (2 differ)</h2>"), std::string::npos) << html;
  EXPECT_NE(html.find("<tr><td>cpu_model</td><td>EPYC 7763</td><td>EPYC 7763</td></tr>"), std::string::npos);
  EXPECT_NE(html.find("<tr class=\"differs\"><td>gpu.name <strong>(differs)</strong></td><td>NVIDIA A100</td>"
                      "<td>&lt;b&gt;H100&lt;/b&gt;</td></tr>"),
            std::string::npos);
  EXPECT_NE(html.find("<td>\u2014</td><td>550.54</td>"), std::string::npos);
}

}  // namespace
}  // namespace gpugate
