// A suite's `metrics:` checked against its `chip:` with the CUPTI host API
// (no GPU needed): every tests/data/bad_metric_suites/*.yaml begins with
// "# expect: LINE:COL substring" and must fail there with exit code 2; good
// suites get a plan per workload; results carry the not-collected note.
#include "metrics/suite_metrics.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace gpugate {
namespace {

const char kBadMetricSuitesDir[] = GPUGATE_SOURCE_DIR "/tests/data/bad_metric_suites";

bool HostApiAvailable(std::string* why) {
  if (auto reason = MetricPlanningUnavailableReason()) {
    *why = *reason;
    return false;
  }
  Result<std::vector<std::string>> chips = SupportedMetricChips();
  if (!chips.ok()) *why = "CUPTI host API unavailable: " + chips.error().message;
  return chips.ok();
}

std::vector<std::string> BadMetricSuiteFiles() {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(kBadMetricSuitesDir, ec))
    if (entry.path().extension() == ".yaml") files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

TEST(BadMetricSuitesTest, FolderHoldsTheCases) { EXPECT_GE(BadMetricSuiteFiles().size(), 5u); }

class BadMetricSuiteTest : public ::testing::TestWithParam<std::string> {};

TEST_P(BadMetricSuiteTest, FailsAtTheEntryWithExitTwo) {
  std::string why;
  if (!HostApiAvailable(&why)) GTEST_SKIP() << why;
  const std::string& path = GetParam();
  std::ifstream in(path);
  std::string first;
  ASSERT_TRUE(std::getline(in, first));
  const std::string prefix = "# expect: ";
  ASSERT_EQ(first.rfind(prefix, 0), 0u) << path;
  const std::string rest = first.substr(prefix.size());
  const std::string position = rest.substr(0, rest.find(' '));
  const std::string substring = rest.substr(rest.find(' ') + 1);

  Result<Suite> suite = LoadSuiteFile(path);
  ASSERT_TRUE(suite.ok()) << "the suite itself is well formed: " << suite.error().message;
  Result<std::vector<WorkloadMetricPlan>> plans = PlanSuiteMetrics(suite->workloads);
  ASSERT_FALSE(plans.ok()) << path;
  EXPECT_EQ(plans.error().code, ExitCode::kInputError);
  EXPECT_EQ(plans.error().message.rfind(path + ":" + position + ": ", 0), 0u) << plans.error().message;
  EXPECT_NE(plans.error().message.find(substring), std::string::npos) << plans.error().message;
}

std::string CaseName(const ::testing::TestParamInfo<std::string>& info) {
  return std::filesystem::path(info.param).stem().string();
}

INSTANTIATE_TEST_SUITE_P(Files, BadMetricSuiteTest, ::testing::ValuesIn(BadMetricSuiteFiles()), CaseName);

const char kGoodSuite[] = R"(version: 1
workloads:
  - name: saxpy/{n}
    kind: builtin
    kernel: saxpy
    params: {n: [1M, 16M]}
    chip: GH100
    metrics: [dram__bytes_read.sum, dram__bytes_write.sum, gpc__cgas_launched.sum]
  - name: app
    kind: command
    argv: [./app]
    chip: GA100
    metrics: [sm__throughput.avg.pct_of_peak_sustained_elapsed]
  - name: plain
    kind: synthetic
)";

TEST(SuiteMetricsTest, PlansEveryWorkloadThatListsMetrics) {
  std::string why;
  if (!HostApiAvailable(&why)) GTEST_SKIP() << why;
  Result<Suite> suite = LoadSuiteFromString(kGoodSuite, "good.yaml");
  ASSERT_TRUE(suite.ok()) << suite.error().message;
  Result<std::vector<WorkloadMetricPlan>> plans = PlanSuiteMetrics(suite->workloads);
  ASSERT_TRUE(plans.ok()) << plans.error().message;
  ASSERT_EQ(plans->size(), 3u);
  EXPECT_EQ((*plans)[0].workload, "saxpy/1M");
  EXPECT_EQ((*plans)[1].workload, "saxpy/16M");
  EXPECT_EQ((*plans)[2].workload, "app");
  EXPECT_EQ((*plans)[0].plan.chip, "GH100");
  EXPECT_EQ((*plans)[0].plan.metrics.size(), 3u);
  EXPECT_EQ((*plans)[0].plan.passes, (*plans)[1].plan.passes);
  EXPECT_GE((*plans)[0].plan.passes, 1u);
  EXPECT_EQ((*plans)[2].plan.chip, "GA100");
  EXPECT_GE((*plans)[2].plan.passes, 1u);
}

TEST(SuiteMetricsTest, WithoutCudaAnyMetricsKeyIsAnErrorAtItsEntry) {
  if (!MetricPlanningUnavailableReason()) GTEST_SKIP() << "this build has CUPTI";
  Result<Suite> suite = LoadSuiteFromString(kGoodSuite, "good.yaml");
  ASSERT_TRUE(suite.ok()) << suite.error().message;
  Result<std::vector<WorkloadMetricPlan>> plans = PlanSuiteMetrics(suite->workloads);
  ASSERT_FALSE(plans.ok());
  EXPECT_EQ(plans.error().code, ExitCode::kInputError);
  EXPECT_EQ(plans.error().message.rfind("good.yaml:8:15: 'metrics' cannot be checked", 0), 0u)
      << plans.error().message;
}

TEST(SuiteMetricsTest, NoMetricsNoPlansNoCupti) {
  Result<Suite> suite = LoadSuiteFromString("version: 1\nworkloads:\n  - {name: a, kind: synthetic}\n", "s.yaml");
  ASSERT_TRUE(suite.ok()) << suite.error().message;
  Result<std::vector<WorkloadMetricPlan>> plans = PlanSuiteMetrics(suite->workloads);
  ASSERT_TRUE(plans.ok()) << plans.error().message;  // also in a build without CUDA
  EXPECT_TRUE(plans->empty());
}

TEST(SuiteMetricsTest, ParsedKeysKeepTheirPositions) {
  Result<Suite> suite = LoadSuiteFromString(kGoodSuite, "good.yaml");
  ASSERT_TRUE(suite.ok()) << suite.error().message;
  const WorkloadSpec& w = suite->workloads[0];
  EXPECT_EQ(w.chip, "GH100");
  EXPECT_EQ(w.chip_location.ToString(), "good.yaml:7:11");
  ASSERT_EQ(w.metrics.size(), 3u);
  EXPECT_EQ(w.metrics[1].name, "dram__bytes_write.sum");
  EXPECT_EQ(w.metrics[1].location.ToString(), "good.yaml:8:37");
  EXPECT_TRUE(suite->workloads[3].metrics.empty());
  EXPECT_TRUE(suite->workloads[3].chip.empty());
}

TEST(SuiteMetricsTest, ResultsSayTheMetricsWereNotCollected) {
  Result<Suite> suite = LoadSuiteFromString(kGoodSuite, "good.yaml");
  ASSERT_TRUE(suite.ok()) << suite.error().message;
  std::vector<WorkloadResult> results(2);
  NoteMetricsNotCollected(suite->workloads[2], &results);
  NoteMetricsNotCollected(suite->workloads[2], &results);  // once only
  for (const WorkloadResult& r : results) {
    ASSERT_EQ(r.notes.size(), 1u);
    EXPECT_EQ(r.notes[0].rfind("metrics not collected (sm__throughput.avg.pct_of_peak_sustained_elapsed on GA100)", 0), 0u)
        << r.notes[0];
  }
  std::vector<WorkloadResult> plain(1);
  NoteMetricsNotCollected(suite->workloads[3], &plain);
  EXPECT_TRUE(plain[0].notes.empty());
  // A backend that tried to collect (counter metric_ranges) gave its own note.
  std::vector<WorkloadResult> tried(1);
  tried[0].counters["metric_ranges"] = 0;
  NoteMetricsNotCollected(suite->workloads[2], &tried);
  EXPECT_TRUE(tried[0].notes.empty());
}

}  // namespace
}  // namespace gpugate
