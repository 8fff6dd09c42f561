// End-to-end tests of `gpugate metrics` and of the suite keys metrics/chip
// through `validate` and `run`: the real binary, exit codes and messages.
// The host API needs no GPU; the tests that need it skip only when this
// build has no CUDA (then the command must say it is unavailable).
#include <gtest/gtest.h>

#include "cli/run_binary.h"
#include "metrics/metric_catalog.h"
#include "model/results_json.h"

namespace gpugate {
namespace {

using testing::RunGpugate;

#define REQUIRE_CUPTI() \
  if (auto reason = MetricPlanningUnavailableReason()) GTEST_SKIP() << *reason

TEST(MetricsCliTest, HelpIsListedAndTrue) {
  auto top = RunGpugate({"--help"});
  EXPECT_NE(top.out.find("metrics"), std::string::npos);
  auto h = RunGpugate({"metrics", "--help"});
  EXPECT_EQ(h.exit_code, 0);
  for (const char* opt : {"--chip", "--list-chips", "--json"}) EXPECT_NE(h.out.find(opt), std::string::npos) << opt;
}

TEST(MetricsCliTest, WithoutCudaSaysUnavailable) {
  if (!MetricPlanningUnavailableReason()) GTEST_SKIP() << "this build has CUPTI";
  auto o = RunGpugate({"metrics", "--chip", "GH100"});
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("gpugate: error: metrics: metric planning is not available: gpugate was built without CUDA"),
            std::string::npos) << o.err;
}

TEST(MetricsCliTest, ListsChips) {
  REQUIRE_CUPTI();
  auto o = RunGpugate({"metrics", "--list-chips"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("  GA100\n"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("  GH100\n"), std::string::npos) << o.out;
}

// CUPTI lists GV11B but its host library refuses it: not listed, and asked
// for, an input error that says why (not a tool failure).
TEST(MetricsCliTest, AChipCuptiListsButCannotPlanForIsAnInputError) {
  REQUIRE_CUPTI();
  auto list = RunGpugate({"metrics", "--list-chips"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  if (list.out.find("  GV11B\n") != std::string::npos) GTEST_SKIP() << "this CUPTI plans for GV11B";
  auto o = RunGpugate({"metrics", "--chip", "GV11B"});
  if (o.err.find("unknown chip 'GV11B'") != std::string::npos) GTEST_SKIP() << "this CUPTI does not list GV11B";
  EXPECT_EQ(o.exit_code, 2) << o.err;
  EXPECT_NE(o.err.find("chip 'GV11B': CUPTI lists it, but its host library cannot plan metrics for it"),
            std::string::npos)
      << o.err;
}

TEST(MetricsCliTest, ListsBaseMetricsOfAChip) {
  REQUIRE_CUPTI();
  auto o = RunGpugate({"metrics", "--chip", "GA100"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_EQ(o.out.rfind("chip GA100: ", 0), 0u) << o.out.substr(0, 200);
  EXPECT_NE(o.out.find("  dram__bytes_read  counter\n"), std::string::npos);
  EXPECT_NE(o.out.find("  sm__throughput  throughput\n"), std::string::npos);
}

TEST(MetricsCliTest, PlansASetAndWritesJson) {
  REQUIRE_CUPTI();
  auto o = RunGpugate({"metrics", "--chip", "GH100", "dram__bytes_read.sum", "sm__inst_executed.sum",
                       "--json", "-"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("\"schema\": \"gpugate/metrics/v1\""), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("\"chip\": \"GH100\""), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("\"passes\": "), std::string::npos) << o.out;
  EXPECT_EQ(o.out.find("replay pass"), std::string::npos) << "no text with --json -";

  auto text = RunGpugate({"metrics", "--chip", "GH100", "dram__bytes_read.sum"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("chip GH100: 1 metric, "), std::string::npos) << text.out;
  EXPECT_NE(text.out.find(" replay pass"), std::string::npos) << text.out;
}

TEST(MetricsCliTest, UnknownMetricNamesMetricAndChipAndExitsTwo) {
  REQUIRE_CUPTI();
  auto o = RunGpugate({"metrics", "--chip", "GA100", "dram__bytes_read.sum", "gpc__cgas_launched.sum",
                       "dram__bytes_raed.sum"});
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_TRUE(o.out.empty()) << o.out;
  EXPECT_NE(o.err.find("gpugate: error: unknown metric 'gpc__cgas_launched.sum' for chip GA100"), std::string::npos)
      << o.err;
  EXPECT_NE(o.err.find("gpugate: error: unknown metric 'dram__bytes_raed.sum' for chip GA100 (did you mean "
                       "'dram__bytes_read.sum'?)"),
            std::string::npos)
      << o.err;
  // The same counter is there on Hopper.
  auto h = RunGpugate({"metrics", "--chip", "GH100", "gpc__cgas_launched.sum"});
  EXPECT_EQ(h.exit_code, 0) << h.err;
}

TEST(MetricsCliTest, UsageErrors) {
  REQUIRE_CUPTI();
  auto no_chip = RunGpugate({"metrics", "dram__bytes_read.sum"});
  EXPECT_EQ(no_chip.exit_code, 2);
  EXPECT_NE(no_chip.err.find("--chip CHIP is required"), std::string::npos) << no_chip.err;
  auto bad_chip = RunGpugate({"metrics", "--chip", "GH101"});
  EXPECT_EQ(bad_chip.exit_code, 2);
  EXPECT_NE(bad_chip.err.find("unknown chip 'GH101' (did you mean 'GH100'?)"), std::string::npos) << bad_chip.err;
  // A chip in another case is the nearest chip, and the message says why.
  auto lower = RunGpugate({"metrics", "--chip", "gh100"});
  EXPECT_EQ(lower.exit_code, 2);
  EXPECT_NE(lower.err.find("unknown chip 'gh100' (did you mean 'GH100'? chip names are case-sensitive)"),
            std::string::npos)
      << lower.err;
  // --json is checked before any work: a folder is exit 2 with nothing printed.
  auto folder = RunGpugate({"metrics", "--chip", "GA100", "--json", std::string(GPUGATE_SOURCE_DIR) + "/docs"});
  EXPECT_EQ(folder.exit_code, 2) << folder.err;
  EXPECT_NE(folder.err.find("is a folder"), std::string::npos) << folder.err;
  EXPECT_EQ(folder.out, "");
  auto both = RunGpugate({"metrics", "--list-chips", "--chip", "GH100"});
  EXPECT_EQ(both.exit_code, 2);
  // An escape sequence in a name reaches the terminal escaped.
  auto hostile = RunGpugate({"metrics", "--chip", "GA100", "x\x1b[31m.sum"});
  EXPECT_EQ(hostile.exit_code, 2);
  EXPECT_EQ(hostile.err.find('\x1b'), std::string::npos) << hostile.err;
}

TEST(MetricsCliTest, ValidateChecksSuiteMetricsAtTheirEntry) {
  REQUIRE_CUPTI();
  auto bad = RunGpugate({"validate", "tests/data/bad_metric_suites/metric_the_chip_lacks.yaml"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("gpugate: error: tests/data/bad_metric_suites/metric_the_chip_lacks.yaml:9:37: unknown "
                         "metric 'gpc__cgas_launched.sum' for chip GA100"),
            std::string::npos)
      << bad.err;
  auto good = RunGpugate({"validate", "examples/metrics.yaml"});
  ASSERT_EQ(good.exit_code, 0) << good.err;
  EXPECT_NE(good.out.find("metrics on GH100: 7, "), std::string::npos) << good.out;
  EXPECT_NE(good.out.find(" replay passes"), std::string::npos) << good.out;
}

TEST(MetricsCliTest, RunSaysMetricsWereNotCollected) {
  REQUIRE_CUPTI();
  const std::string dir = testing::MakeTempDir();
  const std::string suite = dir + "/suite.yaml";
  testing::WriteAll(suite,
                    "version: 1\n"
                    "defaults: {warmup: 0, min_samples: 2, max_samples: 2, rounds: 2, min_time: 0s}\n"
                    "workloads:\n"
                    "  - name: true\n"
                    "    kind: command\n"
                    "    argv: [/bin/true]\n"
                    "    chip: GH100\n"
                    "    metrics: [dram__bytes_read.sum]\n");
  auto o = RunGpugate({"run", suite, "-o", dir + "/results.json"});
  EXPECT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.err.find("gpugate: warning: 1 workload lists metrics, which gpugate collects only for builtin "
                       "kernels on a CUDA device"),
            std::string::npos)
      << o.err;
  EXPECT_NE(o.out.find("note: true: metrics not collected (dram__bytes_read.sum on GH100)"), std::string::npos)
      << o.out;
  Result<Results> r = ReadResultsFile(dir + "/results.json");
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->workloads.size(), 1u);
  // /bin/true's note on peak memory (below gpugate's own), then this one.
  ASSERT_EQ(r->workloads[0].notes.size(), 2u);
  EXPECT_EQ(r->workloads[0].notes[0].rfind("peak memory not measured", 0), 0u) << r->workloads[0].notes[0];
  EXPECT_NE(r->workloads[0].notes[1].find("collects hardware-counter metrics only for builtin kernels"), std::string::npos);
  testing::RemoveTree(dir);
}

}  // namespace
}  // namespace gpugate
