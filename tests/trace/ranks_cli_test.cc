// End-to-end tests of `gpugate analyze` with several traces (one per rank):
// the real binary on generated rank traces, its outputs and exit codes.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "cli/run_binary.h"
#include "trace/rank_trace_test_data.h"
#include "util/json.h"

namespace gpugate {
namespace {

using testing::RankTrace;
using testing::RankTraceSpec;
using testing::ReadAll;
using testing::RunGpugate;

class RanksCliTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = testing::MakeTempDir(); }
  void TearDown() override { testing::RemoveTree(dir_); }
  /// A job of `n` ranks in dir_/name/; rank `slow` takes 300 us in step 1.
  std::string Job(const std::string& name, int n, int slow, int step_us = 200) {
    const std::string job = dir_ + "/" + name;
    std::filesystem::create_directories(job);
    for (int r = 0; r < n; ++r) {
      RankTraceSpec spec;
      spec.rank = r;
      spec.world_size = n;
      spec.step_us = {step_us, r == slow ? 300 : step_us, step_us};
      spec.nccl_names = {"ncclKernel_AllReduce_RING_LL_Sum_float", "ncclDevKernel_ReduceScatter_RING_LL"};
      testing::WriteAll(job + "/rank" + std::to_string(r) + ".json", RankTrace(spec));
    }
    return job;
  }
  std::string dir_;
};

TEST_F(RanksCliTest, DirectoryOfRanksConsoleAndFiles) {
  const std::string job = Job("job", 4, 2);
  auto o = RunGpugate({"analyze", job, "--jobs", "2", "--json", dir_ + "/r.json", "--markdown", dir_ + "/r.md",
                       "--html", dir_ + "/r.html"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("4 rank traces analysed with 2 threads; world size 4."), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("3 steps in every rank; in 1 the slowest rank exceeds the median step time by more than 10%"),
            std::string::npos) << o.out;
  EXPECT_NE(o.out.find("ReduceScatter"), std::string::npos);
  auto json = ParseJson(ReadAll(dir_ + "/r.json"), "r.json");
  ASSERT_TRUE(json.ok()) << json.error().message;
  EXPECT_EQ(json->Find("schema")->string, "gpugate/trace-ranks/v1");
  EXPECT_EQ(json->Find("ranks")->items.size(), 4u);
  EXPECT_EQ(json->Find("ranks")->items[2].Find("straggler_steps")->integer, 1);
  EXPECT_EQ(json->Find("stragglers")->Find("steps")->items[1].Find("slowest_rank")->integer, 2);
  EXPECT_NE(ReadAll(dir_ + "/r.md").find("### Communication/compute overlap"), std::string::npos);
  EXPECT_NE(ReadAll(dir_ + "/r.html").find("<h2>Stragglers</h2>"), std::string::npos);
}

// PyTorch's tensorboard_trace_handler writes one file per profiling cycle
// of a schedule, <worker>.<time>.pt.trace.json: two cycles of one process
// in a folder are read as ranks, and that is said. Ranks that name
// themselves, or files of several workers, are not.
TEST_F(RanksCliTest, CyclesOfOneWorkerAreSaidToBeReadAsRanks) {
  const std::string cycles = dir_ + "/cycles";
  std::filesystem::create_directories(cycles);
  for (int c = 0; c < 2; ++c) {
    RankTraceSpec spec;
    spec.distributed_info = false;
    spec.first_step = 4 * c;
    testing::WriteAll(cycles + "/train.179601569883" + std::to_string(c) + ".pt.trace.json", RankTrace(spec));
  }
  auto o = RunGpugate({"analyze", cycles});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.err.find("gpugate: warning: 2 traces of one worker 'train' and none names its rank"), std::string::npos)
      << o.err;
  auto job = RunGpugate({"analyze", Job("job", 2, 1)});
  ASSERT_EQ(job.exit_code, 0) << job.err;
  EXPECT_EQ(job.err.find("traces of one worker"), std::string::npos) << job.err;
}

TEST_F(RanksCliTest, FilesAsArgumentsJsonToStdout) {
  const std::string job = Job("job", 2, -1);
  auto o = RunGpugate({"analyze", job + "/rank1.json", job + "/rank0.json", "--json", "-"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  auto json = ParseJson(o.out, "stdout");
  ASSERT_TRUE(json.ok()) << json.error().message << o.out;
  EXPECT_EQ(json->Find("ranks")->items[0].Find("rank")->integer, 0);
  EXPECT_EQ(json->Find("stragglers")->Find("flagged")->integer, 0);
}

TEST_F(RanksCliTest, OneTraceIsTheSingleTraceReport) {
  const std::string job = Job("job", 1, -1);
  auto o = RunGpugate({"analyze", job + "/rank0.json", "--json", "-"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  auto json = ParseJson(o.out, "stdout");
  ASSERT_TRUE(json.ok()) << json.error().message;
  EXPECT_EQ(json->Find("schema")->string, "gpugate/trace-analysis/v2");
  auto t = RunGpugate({"analyze", job + "/rank0.json", "--straggler-threshold", "5"});
  EXPECT_EQ(t.exit_code, 2);
  EXPECT_NE(t.err.find("--straggler-threshold applies to several traces"), std::string::npos) << t.err;
}

TEST_F(RanksCliTest, ComparesWithABaselineJob) {
  const std::string base = Job("base", 2, -1);
  const std::string current = Job("current", 2, -1, 250);
  auto o = RunGpugate({"analyze", current, "--baseline", base, "--json", dir_ + "/r.json"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("Change against the baseline job"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("200 us -> 250 us (+25.0%)"), std::string::npos) << o.out;
  auto json = ParseJson(ReadAll(dir_ + "/r.json"), "r.json");
  ASSERT_TRUE(json.ok()) << json.error().message;
  EXPECT_EQ(json->Find("comparison")->items.size(), 2u);
}

TEST_F(RanksCliTest, InputErrorsExitTwo) {
  const std::string job = Job("job", 2, -1);
  // Two files with the same distributedInfo.rank.
  testing::WriteAll(dir_ + "/dup.json", ReadAll(job + "/rank1.json"));
  auto dup = RunGpugate({"analyze", job + "/rank1.json", dir_ + "/dup.json"});
  EXPECT_EQ(dup.exit_code, 2);
  EXPECT_NE(dup.err.find("gpugate: error: duplicate rank 1: " + job + "/rank1.json and " + dir_ + "/dup.json"),
            std::string::npos) << dup.err;
  // A rank that is not a whole number from 0 is refused where it stands, not
  // rounded (1.5 would read as rank 2) or replaced by the file's position.
  const std::string text = ReadAll(job + "/rank1.json");
  const size_t at = text.find("\"rank\"");
  ASSERT_NE(at, std::string::npos);
  for (const std::string& bad : {std::string("1.5"), std::string("-1"), std::string("\"3\""), std::string("true")}) {
    std::string mutated = text;
    const size_t value = mutated.find(':', at) + 1;
    mutated.replace(value, mutated.find_first_of(",}", value) - value, " " + bad);
    testing::WriteAll(dir_ + "/badrank.json", mutated);
    auto r = RunGpugate({"analyze", job + "/rank0.json", dir_ + "/badrank.json"});
    EXPECT_EQ(r.exit_code, 2) << bad;
    EXPECT_NE(r.err.find("badrank.json:"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("distributedInfo.rank: expected a whole number from 0 to 1000000"), std::string::npos)
        << r.err;
  }
  // Single-trace options are refused with several traces.
  auto flame = RunGpugate({"analyze", job, "--flame", dir_ + "/f.html"});
  EXPECT_EQ(flame.exit_code, 2);
  EXPECT_NE(flame.err.find("--flame applies to one trace; got 2 traces"), std::string::npos) << flame.err;
  auto policy = RunGpugate({"analyze", job, "--policy", "policies/default.yaml"});
  EXPECT_EQ(policy.exit_code, 2);
  for (const char* view : {"cpu", "bogus"}) {
    auto flame_view = RunGpugate({"analyze", job, "--flame-view", view});
    EXPECT_EQ(flame_view.exit_code, 2) << view;
    EXPECT_NE(flame_view.err.find("--flame-view applies to one trace; got 2 traces"), std::string::npos)
        << flame_view.err;
  }
  auto jobs = RunGpugate({"analyze", job, "--jobs", "-1"});
  EXPECT_EQ(jobs.exit_code, 2);
  EXPECT_NE(jobs.err.find("--jobs must be from 0 to 1024"), std::string::npos);
  std::filesystem::create_directories(dir_ + "/nothing");
  testing::WriteAll(dir_ + "/nothing/readme.md", "x");
  auto none = RunGpugate({"analyze", dir_ + "/nothing"});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("no *.json or *.json.gz traces in the directory"), std::string::npos) << none.err;
}

}  // namespace
}  // namespace gpugate
