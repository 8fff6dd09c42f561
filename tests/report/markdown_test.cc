// Markdown report: summary line first, section order, folding, and that
// cmark-gfm renders the tables.
#include "report/markdown.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "report/report_fixtures.h"
#include "report/report_test_util.h"

namespace gpugate {
namespace {

using testing_fixtures::ErrorVerdicts;
using testing_fixtures::HaveTool;
using testing_fixtures::MismatchVerdicts;
using testing_fixtures::MixedVerdicts;
using testing_fixtures::NotJudgedVerdicts;
using testing_fixtures::PassVerdicts;
using testing_fixtures::RequireDetectableVerdicts;
using testing_fixtures::ReadText;
using testing_fixtures::RunShell;
using testing_fixtures::TempPath;
using testing_fixtures::WriteText;

size_t CountOf(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + what.size())) ++n;
  return n;
}

TEST(ReportMarkdown, SummaryLineComesFirst) {
  const std::string md = RenderMarkdown(MixedVerdicts());
  EXPECT_EQ(md.substr(0, md.find('\n')),
            "## :x: gpugate: 3 regressions (1 waived, 1 warn only), 1 improvement, 2 unchanged, "
            "2 inconclusive, 1 new, 1 removed, 1 skipped, 1 incomparable");
  const std::string pass = RenderMarkdown(PassVerdicts());
  EXPECT_EQ(pass.substr(0, pass.find('\n')),
            "## :white_check_mark: gpugate: 0 regressions, 1 improvement, 1 unchanged, "
            "0 inconclusive");
}

TEST(ReportMarkdown, ResultsSkippedInBothRunsAreFoldedAfterTheUnchanged) {
  Verdicts v = MixedVerdicts();
  MetricVerdict skipped;
  skipped.workload = "sweep|<b>";
  skipped.metric = "time";
  skipped.verdict = Verdict::kSkipped;
  skipped.reason = Reason::kSkippedInBoth;
  skipped.sentence = "baseline and current run: skipped: skipped by nvbench";
  v.metrics.push_back(skipped);
  const std::string md = RenderMarkdown(v);
  const size_t unchanged = md.find("<summary>2 unchanged</summary>");
  const size_t both = md.find("<details>\n<summary>1 skipped in both runs</summary>");
  ASSERT_NE(both, std::string::npos) << md;
  EXPECT_LT(unchanged, both);
  EXPECT_NE(md.find("| sweep\\|&lt;b&gt; | time |", both), std::string::npos) << md;
  // Not among the skipped results that are news.
  EXPECT_NE(md.find("New, removed, skipped and incomparable (4)"), std::string::npos) << md;
}

TEST(ReportMarkdown, RegressionsFirstAndUnchangedFolded) {
  const std::string md = RenderMarkdown(MixedVerdicts());
  const size_t reg = md.find("### :x: Regressions (3)");
  const size_t impr = md.find("### :rocket: Improvements (1)");
  const size_t inc = md.find("### :grey_question: Inconclusive (2)");
  const size_t other = md.find("New, removed, skipped and incomparable (4)");
  const size_t details = md.find("<details>\n<summary>2 unchanged</summary>");
  ASSERT_NE(reg, std::string::npos) << md;
  ASSERT_NE(details, std::string::npos) << md;
  EXPECT_LT(reg, impr);
  EXPECT_LT(impr, inc);
  EXPECT_LT(inc, other);
  EXPECT_LT(other, details);
  // The failing regression is the first row; the waived one is marked.
  EXPECT_NE(md.find("| saxpy/16M | time | +4.1% \\[+2.9%, +5.3%\\] | 0.0012 (0.004) | "
                    "1.23 ms \u2192 1.28 ms | significant, above the 2% threshold |"),
            std::string::npos)
      << md;
  EXPECT_LT(md.find("saxpy/16M"), md.find("conv2d/nhwc"));
  EXPECT_NE(md.find("waived (new algorithm lands in \\#&#8203;812, until 2026-12-31): "),
            std::string::npos);
  EXPECT_NE(md.find("### :warning: Warnings"), std::string::npos);
  EXPECT_NE(md.find("- **high** noisy-runner: between-run noise is 4.1x the within-run noise "
                    "\u2014 evidence: CV between runs 18%, within runs 4.4%; hint: keep a "
                    "baseline history of 10 runs or use \\`gpugate ab\\`\n"),
            std::string::npos)
      << md;
}

TEST(ReportMarkdown, RendersTablesWithCmarkGfm) {
  if (!HaveTool("cmark-gfm")) GTEST_SKIP() << "cmark-gfm is not installed";
  struct Case {
    Verdicts verdicts;
    size_t tables;
  };
  // mixed: regressions, improvements, inconclusive, other, unchanged, environment
  const Case cases[] = {{MixedVerdicts(), 6},     {MismatchVerdicts(), 3},
                        {PassVerdicts(), 2},      {NotJudgedVerdicts(), 1},
                        {ErrorVerdicts(), 4},     {RequireDetectableVerdicts(), 2}};
  for (const Case& c : cases) {
    const std::string in = TempPath(".md"), out = TempPath(".html");
    WriteText(in, RenderMarkdown(c.verdicts));
    ASSERT_EQ(RunShell("cmark-gfm -e table '" + in + "' > '" + out + "'"), 0);
    const std::string html = ReadText(out);
    EXPECT_EQ(CountOf(html, "<table>"), c.tables) << html;
    EXPECT_EQ(CountOf(html, "<tr>"), CountOf(html, "</tr>"));
    std::remove(in.c_str());
    std::remove(out.c_str());
  }
}

TEST(ReportMarkdown, WithoutTheTableExtensionNoTableAppears) {
  // Guards the test above: plain CommonMark does not know tables.
  if (!HaveTool("cmark-gfm")) GTEST_SKIP() << "cmark-gfm is not installed";
  const std::string in = TempPath(".md"), out = TempPath(".html");
  WriteText(in, RenderMarkdown(PassVerdicts()));
  ASSERT_EQ(RunShell("cmark-gfm '" + in + "' > '" + out + "'"), 0);
  EXPECT_EQ(ReadText(out).find("<table>"), std::string::npos);
  std::remove(in.c_str());
  std::remove(out.c_str());
}

TEST(ReportMarkdown, NotJudgedHeadingHasNoPassMark) {
  const std::string md = RenderMarkdown(NotJudgedVerdicts());
  const std::string heading = md.substr(0, md.find('\n'));
  EXPECT_EQ(heading.find(":white_check_mark:"), std::string::npos) << heading;
  EXPECT_EQ(heading,
            "## :white_circle: gpugate: not judged: 4 inconclusive; could not see changes below "
            "+11%");
  EXPECT_EQ(md.find(":white_check_mark:"), std::string::npos) << md;
  EXPECT_NE(md.find("Outcome: **not judged** (nothing was decided, so this is not a pass; "),
            std::string::npos)
      << md;
}

TEST(ReportMarkdown, ErrorHeadingNamesFailedWorkloads) {
  const std::string md = RenderMarkdown(ErrorVerdicts());
  EXPECT_EQ(md.substr(0, md.find('\n')),
            "## :no_entry: gpugate: error: 1 workload failed to run; 0 regressions, 1 improvement, "
            "1 unchanged, 0 inconclusive, 1 skipped");
  EXPECT_EQ(md.find(":white_check_mark:"), std::string::npos) << md;
  // The failed workload has a section of its own, first, with its cause.
  EXPECT_LT(md.find("### :no_entry: Failed to run (1)"), md.find("### :rocket: Improvements"));
  EXPECT_NE(md.find("| train-step | time | current run: failed: exit code 139 (SIGSEGV) in round "
                    "3 |"),
            std::string::npos)
      << md;
}

TEST(ReportMarkdown, PassMarkOnlyForAPass) {
  for (const Verdicts& v : {MixedVerdicts(), MismatchVerdicts(), NotJudgedVerdicts(),
                            ErrorVerdicts(), RequireDetectableVerdicts()}) {
    const std::string md = RenderMarkdown(v);
    EXPECT_EQ(md.find(":white_check_mark:"), std::string::npos) << md;
  }
  EXPECT_EQ(RenderMarkdown(PassVerdicts()).rfind("## :white_check_mark: gpugate: ", 0), 0u);
}

TEST(ReportMarkdown, SaysWhatCouldHaveBeenSeen) {
  const std::string md = RenderMarkdown(MixedVerdicts());
  EXPECT_NE(md.find("Could have seen: +1.4% \u2026 +12% (the smallest slowdown each comparison "
                    "catches with 90% power)."),
            std::string::npos)
      << md;
  // Inconclusive rows show what they could have seen; the note does not
  // repeat the interval.
  EXPECT_NE(md.find("| train-step | time | +3.0% \\[-3.0%, +9.0%\\] | 0.21 (0.48) | +12% | noise "
                    "between runs exceeds the effect |"),
            std::string::npos)
      << md;
  const std::string required = RenderMarkdown(RequireDetectableVerdicts());
  EXPECT_NE(required.find("; policy requires +10%: 3 workloads too noisy to guard\n"),
            std::string::npos)
      << required;
}

TEST(ReportMarkdown, EmptyVerdicts) {
  const std::string md = RenderMarkdown(Verdicts{});
  EXPECT_NE(md.find("No results were compared."), std::string::npos);
  EXPECT_EQ(md.find("|"), std::string::npos);
}

}  // namespace
}  // namespace gpugate
