// Console report: order, folding of unchanged rows, colour only on request.
#include "report/console.h"

#include <gtest/gtest.h>

#include <string>

#include "report/report_fixtures.h"

namespace gpugate {
namespace {

using testing_fixtures::MixedVerdicts;
using testing_fixtures::PassVerdicts;

TEST(ReportConsole, RegressionsFirstAndSummaryLast) {
  const std::string text = RenderConsole(MixedVerdicts());
  const size_t header = text.find("VERDICT");
  ASSERT_NE(header, std::string::npos) << text;
  const size_t first_row = text.find('\n', header) + 1;
  EXPECT_EQ(text.substr(first_row, 10), "regression") << text;
  EXPECT_LT(text.find("saxpy/16M"), text.find("reduce/64M"));
  EXPECT_LT(text.find("regression (warn)"), text.find("regression (waived)"));
  // saxpy/1M's throughput is folded under its time row: two unchanged rows.
  EXPECT_NE(text.find("2 unchanged results not listed"), std::string::npos);
  const std::string last = "FAIL: 3 regressions (1 waived, 1 warn only), 1 improvement, "
                           "2 unchanged, 2 inconclusive, 1 new, 1 removed, 1 skipped, "
                           "1 incomparable\n";
  ASSERT_GE(text.size(), last.size());
  EXPECT_EQ(text.substr(text.size() - last.size()), last);
}

// A benchmark skipped in both runs (nvbench skips type combinations in every
// run) is no news: one count line, like the unchanged, unless verbose.
TEST(ReportConsole, ResultsSkippedInBothRunsAreFolded) {
  Verdicts v = PassVerdicts();
  MetricVerdict skipped;
  skipped.workload = "sweep/In=I8 Out=I8";
  skipped.metric = "time";
  skipped.verdict = Verdict::kSkipped;
  skipped.reason = Reason::kSkippedInBoth;
  skipped.sentence = "baseline and current run: skipped: skipped by nvbench: Not a conversion";
  v.metrics.push_back(skipped);
  skipped.workload = "sweep/In=I16 Out=I8";
  v.metrics.push_back(skipped);
  MetricVerdict lost = skipped;
  lost.workload = "lost";
  lost.reason = Reason::kCurrentSkipped;
  lost.sentence = "current run: skipped: no CUDA device";
  v.metrics.push_back(lost);
  const std::string text = RenderConsole(v);
  EXPECT_EQ(text.find("sweep/In=I8"), std::string::npos) << text;
  EXPECT_NE(text.find("2 results skipped in both runs not listed"), std::string::npos) << text;
  EXPECT_NE(text.find("lost"), std::string::npos) << text;  // skipped only now: listed
  ReportOptions verbose;
  verbose.verbose = true;
  EXPECT_NE(RenderConsole(v, verbose).find("sweep/In=I8 Out=I8"), std::string::npos);
}

TEST(ReportConsole, ColumnsAreAligned) {
  ReportOptions verbose;
  verbose.verbose = true;
  const std::string text = RenderConsole(PassVerdicts(), verbose);
  // Header and both rows put the workload column at the same offset.
  const size_t header = text.find("VERDICT");
  const size_t row1 = text.find("improvement ");
  const size_t row2 = text.find("unchanged ");
  ASSERT_NE(row2, std::string::npos) << text;
  const size_t col = text.find("WORKLOAD") - header;
  EXPECT_EQ(text.find("matmul/bf16/8192") - row1, col) << text;
  EXPECT_EQ(text.find("matmul/bf16/1024") - row2, col) << text;
}

TEST(ReportConsole, ColourOnlyWhenAsked) {
  EXPECT_EQ(RenderConsole(MixedVerdicts()).find('\x1b'), std::string::npos);
  ReportOptions o;
  o.color = true;
  const std::string colored = RenderConsole(MixedVerdicts(), o);
  EXPECT_NE(colored.find("\x1b[1;31mregression\x1b[0m"), std::string::npos);
  EXPECT_NE(colored.find("\x1b[1;31mFAIL\x1b[0m: "), std::string::npos);
}

}  // namespace
}  // namespace gpugate

namespace gpugate {
namespace {

TEST(ReportConsole, LongNamesAreShortenedInTheMiddle) {
  Verdicts v = testing_fixtures::PassVerdicts();
  ASSERT_FALSE(v.metrics.empty());
  std::string name = "void gemm_kernel<" + std::string(500, 'x') + ">(float*, int)_END";
  v.metrics[0].metric = "kernel:" + name;
  ReportOptions verbose;
  verbose.verbose = true;
  const std::string text = RenderConsole(v, verbose);
  EXPECT_EQ(text.find(name), std::string::npos);
  EXPECT_NE(text.find("kernel:void gemm_kernel<"), std::string::npos) << text;
  EXPECT_NE(text.find("\u2026"), std::string::npos) << text;
  EXPECT_NE(text.find("int)_END"), std::string::npos) << text;
  for (size_t pos = 0, next; (next = text.find('\n', pos)) != std::string::npos; pos = next + 1)
    EXPECT_LT(next - pos, 400u) << text.substr(pos, next - pos);
}

// Two long names that differ only in their middle would print alike: each
// gets a hash of its whole name after the ellipsis.
TEST(ReportConsole, LongNamesThatWouldLookAlikeAreToldApart) {
  Verdicts v = testing_fixtures::PassVerdicts();
  ASSERT_GE(v.metrics.size(), 2u);
  std::string a = "BM_" + std::string(200, 'a'), b = a;
  b[100] = 'b';
  v.metrics[0].workload = a;
  v.metrics[1].workload = b;
  ReportOptions verbose;
  verbose.verbose = true;
  const std::string text = RenderConsole(v, verbose);
  std::vector<std::string> shown;
  for (size_t pos = 0, next; (next = text.find('\n', pos)) != std::string::npos; pos = next + 1) {
    const std::string line = text.substr(pos, next - pos);
    if (line.find("BM_aaa") != std::string::npos) shown.push_back(line.substr(line.find("BM_aaa"), 70));
  }
  ASSERT_GE(shown.size(), 2u) << text;
  EXPECT_NE(shown[0], shown[1]) << text;
  EXPECT_NE(shown[0].find("\u2026#"), std::string::npos) << text;
}

// The closing line of a report.
std::string LastLine(std::string text) {
  if (!text.empty() && text.back() == '\n') text.pop_back();
  return text.substr(text.rfind('\n') + 1);
}

TEST(ReportConsole, ErrorSummaryNamesTheFailureAndNeverSaysPass) {
  const std::string text = RenderConsole(testing_fixtures::ErrorVerdicts());
  const std::string last = LastLine(text);
  EXPECT_EQ(last.rfind("ERROR: 1 workload failed to run; ", 0), 0u) << last;
  EXPECT_EQ(last.find("PASS"), std::string::npos) << last;
  EXPECT_EQ(last.find("pass"), std::string::npos) << last;
  // The failed workload is the first row, with its cause.
  const size_t header = text.find("VERDICT");
  const size_t first_row = text.find('\n', header) + 1;
  EXPECT_EQ(text.substr(first_row, 6), "failed") << text;
  EXPECT_NE(text.find("exit code 139 (SIGSEGV)"), std::string::npos) << text;
}

TEST(ReportConsole, NotJudgedIsNeitherPassNorFail) {
  const std::string text = RenderConsole(testing_fixtures::NotJudgedVerdicts());
  EXPECT_EQ(LastLine(text), "NOT JUDGED: 4 inconclusive; could not see changes below +11%");
  EXPECT_EQ(text.find("PASS"), std::string::npos) << text;
  EXPECT_NE(text.find("could have seen: +11% \u2026 +30% (90% power)\n"), std::string::npos)
      << text;
  ReportOptions color;
  color.color = true;
  EXPECT_NE(RenderConsole(testing_fixtures::NotJudgedVerdicts(), color)
                .find("\x1b[1mNOT JUDGED\x1b[0m: "),
            std::string::npos);
}

TEST(ReportConsole, ShortNotesWithoutTheIntervalAndDerivedThroughputFolded) {
  ReportOptions verbose;
  verbose.verbose = true;
  const std::string plain = RenderConsole(testing_fixtures::NotJudgedVerdicts());
  // One row for outliers: its throughput is derived from time, same verdict.
  EXPECT_EQ(plain.find("throughput"), std::string::npos) << plain;
  // The interval is a column; the note does not repeat it.
  EXPECT_EQ(plain.find("[-13.8%, +16.0%]"), plain.rfind("[-13.8%, +16.0%]")) << plain;
  EXPECT_NE(plain.find("+30%       noise between runs exceeds the effect\n"), std::string::npos)
      << plain;
  EXPECT_EQ(plain.find("Welch"), std::string::npos) << plain;
  // Verbose output adds each full sentence on a line of its own.
  const std::string full = RenderConsole(testing_fixtures::NotJudgedVerdicts(), verbose);
  EXPECT_NE(full.find("\n              +0.0% [-13.8%, +16.0%]: noise between runs exceeds the "
                      "effect; use a baseline history"),
            std::string::npos)
      << full;
}

TEST(ReportConsole, RequireDetectableIsInTheSummary) {
  const std::string text = RenderConsole(testing_fixtures::RequireDetectableVerdicts());
  EXPECT_EQ(LastLine(text),
            "INCONCLUSIVE: 0 regressions, 0 improvements, 2 unchanged, 4 inconclusive; policy "
            "requires +10%: 3 workloads too noisy to guard");
  EXPECT_NE(text.find("too noisy to guard: policy requires +10%"), std::string::npos) << text;
}

}  // namespace
}  // namespace gpugate
