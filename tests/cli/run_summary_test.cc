// The human summary of a run (cli/run_summary.h): notes are listed after the
// table, escaped like every other untrusted text on the terminal.
#include "cli/run_summary.h"

#include <gtest/gtest.h>

namespace gpugate {
namespace {

TEST(RunSummaryTest, NotesAreListedPerWorkloadAndEscaped) {
  Results r;
  WorkloadResult& quiet = r.workloads.emplace_back();
  quiet.name = "quiet";
  WorkloadResult& w = r.workloads.emplace_back();
  w.name = "evil\x1b[2J";
  w.notes = {"ended 1 process the workload left behind (pids 42)", "second\nline"};
  const std::string text = RenderRunSummary(r, /*color=*/false);
  EXPECT_NE(text.find("  note: evil\\x1b[2J: ended 1 process the workload left behind (pids 42)\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  note: evil\\x1b[2J: second\\x0aline\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("note: quiet"), std::string::npos) << text;
  EXPECT_EQ(text.find('\x1b'), std::string::npos);
}

// A median in a long unit and a large sample count keep a blank before the
// next column.
TEST(RunSummaryTest, ColumnsNeverRunTogether) {
  Results r;
  WorkloadResult& w = r.workloads.emplace_back();
  w.name = "c/x";
  w.metric = "instructions";
  w.unit = "instructions";
  w.rounds = {{123456789, 123456789}};
  w.summary.n = 1000000;
  w.summary.median = 123456789;
  w.bytes_per_second = 2e9;
  const std::string text = RenderRunSummary(r, /*color=*/false);
  EXPECT_EQ(text.find("instructions±"), std::string::npos) << text;
  EXPECT_NE(text.find("instructions  ±0.0%"), std::string::npos) << text;
  EXPECT_NE(text.find("1000000/1  2"), std::string::npos) << text;
  // No line ends in blanks.
  EXPECT_EQ(text.find(" \n"), std::string::npos) << text;
}

TEST(RunSummaryTest, ARunThatMeasuredNothingSaysSo) {
  Results r;
  WorkloadResult& w = r.workloads.emplace_back();
  w.name = "saxpy";
  w.status = WorkloadStatus::kSkipped;
  w.reason = "backend cuda requested but no CUDA device";
  const std::string nothing = RenderRunSummary(r, /*color=*/false);
  EXPECT_NE(nothing.find("1 workloads: 0 ok, 0 failed, 1 skipped\n  nothing was measured: compared, "
                         "these results decide nothing"),
            std::string::npos)
      << nothing;
  r.workloads.emplace_back().name = "copy";
  EXPECT_EQ(RenderRunSummary(r, false).find("nothing was measured"), std::string::npos);
}

}  // namespace
}  // namespace gpugate
