// Multi-rank analysis (trace/ranks.h, trace/ranks_render.h) on generated
// rank traces whose figures are worked out by hand (rank_trace_test_data.h).
#include "trace/ranks.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli/run_binary.h"
#include "trace/rank_trace_test_data.h"
#include "trace/ranks_render.h"
#include "util/json.h"

namespace gpugate {
namespace {

using testing::RankTrace;
using testing::RankTraceSpec;

RankSummary Summary(const RankTraceSpec& spec) {
  auto report = AnalyzeTraceText(RankTrace(spec), "rank" + std::to_string(spec.rank) + ".json", {});
  EXPECT_TRUE(report.ok()) << report.error().message;
  return SummarizeRank(*report, spec.rank, true);
}

TEST(RanksTest, CollectiveFromNcclKernelNames) {
  const std::pair<const char*, const char*> cases[] = {
      {"ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)", "AllReduce"},
      {"ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "AllGather"},
      {"ncclKernel_ReduceScatter_RING_SIMPLE_Sum_bfloat16", "ReduceScatter"},
      {"ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)", "SendRecv"},
      {"ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t", "SendRecv"},
      {"ncclDevKernel_Broadcast_RING_LL", "Broadcast"},
      {"ncclKernel_Reduce_RING_LL_Sum_float", "Reduce"},
      {"ncclKernel_AllToAll_RING_LL", "AllToAll"},
      {"void ncclDevKernel_Send(ncclDevKernelArgsStorage<4096ul>)", "SendRecv"},
      {"ncclAllReduceRingLLKernel_sum_f32(CollectiveArgs)", "AllReduce"},
      {"ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "AllReduce"},
      {"ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL", "ReduceScatter"},
      {"ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)", "other"},
      {"ncclDevKernel_Generic_1", "other"},
      {"ncclKernel_AllReduceX_RING", "other"},
      {"nccl_custom_kernel", "other"},
      {"", "other"},
  };
  for (const auto& [name, collective] : cases) EXPECT_EQ(NcclCollective(name), collective) << name;
}

TEST(RanksTest, RankSummaryByHand) {
  RankTraceSpec spec;
  spec.rank = 2;
  spec.nccl_names = {"ncclKernel_AllReduce_RING_LL_Sum_float", "ncclDevKernel_AllGather_RING_LL"};
  RankSummary s = Summary(spec);
  EXPECT_EQ(s.rank, 2);
  EXPECT_TRUE(s.rank_from_trace);
  EXPECT_EQ(s.world_size, 4);
  EXPECT_EQ(s.devices, 1);
  // Window: 5 us into step 0 to step 2 start (400) + 5 + 70: 470 us.
  EXPECT_EQ(s.window_ns, 470000);
  EXPECT_EQ(s.busy_ns, 3 * 70000);
  EXPECT_EQ(s.compute_ns, 3 * 60000);
  EXPECT_EQ(s.communication_ns, 3 * 10000);        // exposed NCCL
  EXPECT_EQ(s.communication_total_ns, 3 * 20000);  // all NCCL
  EXPECT_EQ(s.overlap_ns, 3 * 10000);
  EXPECT_EQ(s.idle_ns, 470000 - 210000);
  EXPECT_EQ(s.kernel_count, 6);
  EXPECT_EQ(s.kernel_time_ns, 3 * 80000);
  ASSERT_TRUE(s.OverlapFraction().has_value());
  EXPECT_DOUBLE_EQ(*s.OverlapFraction(), 0.5);
  ASSERT_EQ(s.collectives.size(), 2u);
  EXPECT_EQ(s.collectives[0].collective, "AllGather");
  EXPECT_EQ(s.collectives[0].count, 1);
  EXPECT_EQ(s.collectives[0].total_ns, 20000);
  EXPECT_EQ(s.collectives[1].collective, "AllReduce");
  EXPECT_EQ(s.collectives[1].count, 2);
  ASSERT_EQ(s.steps.size(), 3u);
  EXPECT_EQ(s.steps[1].number, 1);
  EXPECT_EQ(s.step_median_ns, 200000);
}

TEST(RanksTest, StragglerStepsAndImbalance) {
  // Four ranks, three steps of 200 us; rank 2 takes 300 us in step 1 and
  // rank 3 230 us in step 2 (15% over the median); rank 1 computes 90 us
  // per step instead of 60.
  std::vector<RankSummary> ranks;
  for (int r = 3; r >= 0; --r) {  // out of order: the report sorts by rank
    RankTraceSpec spec;
    spec.rank = r;
    if (r == 2) spec.step_us = {200, 300, 200};
    if (r == 3) spec.step_us = {200, 200, 230};
    if (r == 1) spec.compute_us = 90;
    ranks.push_back(Summary(spec));
  }
  RanksReport r = AnalyzeRanks(std::move(ranks), {}, {});
  ASSERT_EQ(r.ranks.size(), 4u);
  EXPECT_EQ(r.ranks[0].rank, 0);
  EXPECT_EQ(r.ranks[3].rank, 3);
  ASSERT_EQ(r.steps.size(), 3u);
  EXPECT_EQ(r.steps_not_in_all, 0);
  // Step 0: all equal, nothing flagged.
  EXPECT_EQ(r.steps[0].median_ns, 200000);
  EXPECT_EQ(r.steps[0].excess_ns, 0);
  EXPECT_FALSE(r.steps[0].flagged);
  // Step 1: rank 2 at 300 us, median of {200, 200, 300, 200} = 200.
  EXPECT_EQ(r.steps[1].step, 1);
  EXPECT_EQ(r.ranks[r.steps[1].slowest].rank, 2);
  EXPECT_EQ(r.steps[1].excess_ns, 100000);
  EXPECT_DOUBLE_EQ(r.steps[1].excess_fraction, 0.5);
  EXPECT_TRUE(r.steps[1].flagged);
  // Step 2: rank 3 at 230 us, 15% > 10%. The last step's duration is the
  // annotation's, whatever the GPU does.
  EXPECT_EQ(r.ranks[r.steps[2].slowest].rank, 3);
  EXPECT_TRUE(r.steps[2].flagged);
  EXPECT_EQ(r.FlaggedSteps(), 2);
  EXPECT_EQ(r.straggler_count, (std::vector<int64_t>{0, 0, 1, 1}));
  // A 20% threshold keeps only step 1.
  RanksOptions strict;
  strict.straggler_threshold = 0.20;
  RanksReport s = AnalyzeRanks(r.ranks, {}, strict);
  EXPECT_EQ(s.FlaggedSteps(), 1);
  // Compute: 180, 270, 180, 180 us: max/mean = 270 / 202.5.
  ASSERT_TRUE(r.compute_imbalance.has_value());
  EXPECT_DOUBLE_EQ(*r.compute_imbalance, 270.0 / 202.5);
  EXPECT_EQ(r.ranks[r.most_compute].rank, 1);
  EXPECT_EQ(r.ranks[r.least_compute].rank, 0);
  EXPECT_EQ(r.collectives, (std::vector<std::string>{"AllReduce"}));
}

TEST(RanksTest, StepsMissingFromARankAreCountedNotCompared) {
  RankTraceSpec a, b;
  a.rank = 0;
  b.rank = 1;
  b.first_step = 1;  // steps 1..3 against 0..2
  RanksReport r = AnalyzeRanks({Summary(a), Summary(b)}, {}, {});
  ASSERT_EQ(r.steps.size(), 2u);
  EXPECT_EQ(r.steps[0].step, 1);
  EXPECT_EQ(r.steps_not_in_all, 2);
  // Two ranks: the median is the mean of both.
  EXPECT_EQ(r.steps[0].median_ns, 200000);
}

TEST(RanksTest, NoComputeNoImbalanceNoSteps) {
  RankSummary a, b;
  a.rank = 0;
  b.rank = 1;
  RanksReport r = AnalyzeRanks({a, b}, {}, {});
  EXPECT_FALSE(r.compute_imbalance.has_value());
  EXPECT_TRUE(r.steps.empty());
  EXPECT_NE(RenderRanksConsole(r, {}).find("no numbered ProfilerStep#N"), std::string::npos);
  auto json = ParseJson(RenderRanksJson(r, {}), "r.json");
  ASSERT_TRUE(json.ok()) << json.error().message;
  EXPECT_TRUE(json->Find("load_imbalance")->Find("compute_max_over_mean")->IsNull());
}

TEST(RanksTest, SumsBeyond64BitNanosecondsNeitherWrapNorVanish) {
  // Six ranks of 1.9e18 ns of compute each: their sum is beyond 64 bits.
  std::vector<RankSummary> ranks(6);
  for (int i = 0; i < 6; ++i) {
    ranks[i].rank = i;
    ranks[i].compute_ns = 1'900'000'000'000'000'000 + i;
  }
  RanksReport r = AnalyzeRanks(ranks, {}, {});
  ASSERT_TRUE(r.compute_imbalance.has_value());
  EXPECT_NEAR(*r.compute_imbalance, 1.0, 1e-9);
  // A rank of ten GPUs whose windows are 1e18 ns each saturates.
  TraceReport report;
  for (int d = 0; d < 10; ++d) {
    DeviceStats dev;
    dev.device = d;
    dev.active_start_ns = 0;
    dev.active_end_ns = 1'000'000'000'000'000'000;
    dev.window_idle_ns = dev.active_end_ns - 1000;
    dev.busy_ns = 1000;
    report.devices.push_back(dev);
  }
  RankSummary s = SummarizeRank(report, 0, false);
  EXPECT_EQ(s.window_ns, INT64_MAX);
  EXPECT_EQ(s.idle_ns, INT64_MAX);
  EXPECT_EQ(s.busy_ns, 10000);
}

TEST(RanksTest, ComparesRankByRankWithABaselineJob) {
  std::vector<RankSummary> base, current;
  for (int r = 0; r < 3; ++r) {
    RankTraceSpec spec;
    spec.rank = r;
    base.push_back(Summary(spec));
    if (r == 2) continue;  // rank 2 is missing from the current job
    if (r == 1) {
      spec.step_us = {250, 250, 250};
      spec.compute_us = 80;
    }
    current.push_back(Summary(spec));
  }
  RankTraceSpec extra;
  extra.rank = 5;
  extra.world_size = 6;  // a rank the baseline job did not have
  current.push_back(Summary(extra));
  RanksReport r = AnalyzeRanks(current, base, {});
  ASSERT_EQ(r.deltas.size(), 4u);
  EXPECT_EQ(r.deltas[1].rank, 1);
  ASSERT_TRUE(r.deltas[1].base && r.deltas[1].current);
  EXPECT_EQ(r.baseline[*r.deltas[1].base].step_median_ns, 200000);
  EXPECT_EQ(r.ranks[*r.deltas[1].current].step_median_ns, 250000);
  EXPECT_FALSE(r.deltas[2].current.has_value());  // rank 2: only in the baseline
  EXPECT_FALSE(r.deltas[3].base.has_value());     // rank 5: only in this job
  const std::string console = RenderRanksConsole(r, {});
  EXPECT_NE(console.find("200 us -> 250 us (+25.0%)"), std::string::npos) << console;
  EXPECT_NE(console.find("180 us -> 240 us (+33.3%)"), std::string::npos) << console;
  EXPECT_NE(console.find("only in the baseline"), std::string::npos);
  EXPECT_NE(console.find("only in this job"), std::string::npos);
  auto json = ParseJson(RenderRanksJson(r, {}), "r.json");
  ASSERT_TRUE(json.ok()) << json.error().message;
  const JsonValue& cmp = json->Find("comparison")->items[1];
  EXPECT_EQ(cmp.Find("base")->Find("step_median_ns")->integer, 200000);
  EXPECT_EQ(cmp.Find("current")->Find("compute_ns")->integer, 240000);
  EXPECT_TRUE(json->Find("comparison")->items[2].Find("current")->IsNull());
}

TEST(RanksTest, RendersEveryFormat) {
  std::vector<RankSummary> ranks;
  for (int r = 0; r < 2; ++r) {
    RankTraceSpec spec;
    spec.rank = r;
    if (r == 1) spec.step_us = {200, 260, 200};
    ranks.push_back(Summary(spec));
  }
  RanksReport r = AnalyzeRanks(std::move(ranks), {}, {});
  RanksRenderInfo info;
  info.jobs = 2;
  const std::string console = RenderRanksConsole(r, info);
  EXPECT_NE(console.find("2 rank traces analysed with 2 threads; world size 4."), std::string::npos) << console;
  EXPECT_NE(console.find("Only 2 of 4 ranks were given."), std::string::npos);
  EXPECT_NE(console.find("Compute time max/mean 1.000"), std::string::npos) << console;
  EXPECT_NE(console.find("in 1 the slowest rank exceeds the median step time by more than 10%"),
            std::string::npos) << console;
  EXPECT_NE(console.find("AllReduce"), std::string::npos);
  const std::string md = RenderRanksMarkdown(r, info);
  EXPECT_NE(md.find("### Stragglers"), std::string::npos);
  EXPECT_NE(md.find("| rank | trace | GPU window |"), std::string::npos) << md;
  const std::string html = RenderRanksHtml(r, info);
  EXPECT_NE(html.find("<h2>NCCL kernels by collective</h2>"), std::string::npos);
  EXPECT_NE(html.find("</html>"), std::string::npos);
  auto json = ParseJson(RenderRanksJson(r, info), "r.json");
  ASSERT_TRUE(json.ok()) << json.error().message;
  EXPECT_EQ(json->Find("schema")->string, kTraceRanksSchema);
  const JsonValue& rank1 = json->Find("ranks")->items[1];
  EXPECT_EQ(rank1.Find("rank")->integer, 1);
  EXPECT_EQ(rank1.Find("overlap_ns")->integer, 30000);
  EXPECT_DOUBLE_EQ(rank1.Find("overlap_fraction")->number, 0.5);
  EXPECT_EQ(rank1.Find("straggler_steps")->integer, 1);
  EXPECT_EQ(rank1.Find("collectives")->items[0].Find("collective")->string, "AllReduce");
  const JsonValue* st = json->Find("stragglers");
  EXPECT_EQ(st->Find("flagged")->integer, 1);
  ASSERT_EQ(st->Find("steps")->items.size(), 3u);
  const JsonValue& step1 = st->Find("steps")->items[1];
  EXPECT_EQ(step1.Find("slowest_rank")->integer, 1);
  EXPECT_EQ(step1.Find("median_ns")->integer, 230000);  // (200 + 260) / 2
  EXPECT_EQ(step1.Find("duration_ns")->items[1].integer, 260000);
  EXPECT_EQ(json->Find("load_imbalance")->Find("most_compute_rank")->integer, 0);
}

// ---- Files: directory input, ranks, duplicates, hostile names ----------------

class RankFilesTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = testing::MakeTempDir(); }
  void TearDown() override { testing::RemoveTree(dir_); }
  std::string Write(const std::string& name, const RankTraceSpec& spec) {
    std::string path = dir_ + "/" + name;
    testing::WriteAll(path, RankTrace(spec));
    return path;
  }
  std::string dir_;
};

TEST_F(RankFilesTest, DirectoryListsTracesSortedAndRanksComeFromTheTraces) {
  for (int r = 0; r < 5; ++r) {
    RankTraceSpec spec;
    spec.rank = 4 - r;  // file names and ranks in opposite orders
    spec.world_size = 5;
    Write("trace_" + std::to_string(r) + ".json", spec);
  }
  testing::WriteAll(dir_ + "/notes.txt", "not a trace");
  auto paths = ExpandTraceInputs({dir_});
  ASSERT_TRUE(paths.ok()) << paths.error().message;
  ASSERT_EQ(paths->size(), 5u);
  EXPECT_EQ((*paths)[0], dir_ + "/trace_0.json");
  EXPECT_EQ((*paths)[4], dir_ + "/trace_4.json");
  auto ranks = AnalyzeRankTraces(*paths, {}, 3);
  ASSERT_TRUE(ranks.ok()) << ranks.error().message;
  ASSERT_EQ(ranks->size(), 5u);
  for (size_t i = 0; i < 5; ++i) {  // input order, rank from distributedInfo
    EXPECT_EQ((*ranks)[i].path, (*paths)[i]);
    EXPECT_EQ((*ranks)[i].rank, 4 - static_cast<int64_t>(i));
    EXPECT_TRUE((*ranks)[i].rank_from_trace);
    EXPECT_EQ((*ranks)[i].busy_ns, 210000);
  }
}

TEST_F(RankFilesTest, ThreadCountDoesNotChangeTheResult) {
  std::vector<std::string> paths;
  for (int r = 0; r < 6; ++r) {
    RankTraceSpec spec;
    spec.rank = r;
    spec.world_size = 6;
    spec.step_us = {200 + 10 * r, 200, 240 - 5 * r};
    spec.compute_us = 50 + r;
    paths.push_back(Write("r" + std::to_string(r) + ".json", spec));
  }
  auto serial = AnalyzeRankTraces(paths, {}, 1);
  auto parallel = AnalyzeRankTraces(paths, {}, 4);
  ASSERT_TRUE(serial.ok() && parallel.ok());
  EXPECT_EQ(RenderRanksJson(AnalyzeRanks(*serial, {}, {}), {}), RenderRanksJson(AnalyzeRanks(*parallel, {}, {}), {}));
  EXPECT_EQ((*parallel)[5].compute_ns, 3 * 55000);
}

TEST_F(RankFilesTest, RankIsTheInputPositionWithoutDistributedInfo) {
  RankTraceSpec spec;
  spec.distributed_info = false;
  std::string a = Write("b.json", spec), b = Write("a.json", spec);
  auto ranks = AnalyzeRankTraces({a, b}, {}, 2);
  ASSERT_TRUE(ranks.ok()) << ranks.error().message;
  EXPECT_EQ((*ranks)[0].rank, 0);
  EXPECT_EQ((*ranks)[1].rank, 1);
  EXPECT_FALSE((*ranks)[1].rank_from_trace);
}

TEST_F(RankFilesTest, DuplicateRankNamesBothFiles) {
  RankTraceSpec spec;
  spec.rank = 1;
  std::string a = Write("first.json", spec);
  spec.rank = 0;
  std::string other = Write("other.json", spec);
  spec.rank = 1;
  std::string b = Write("second.json", spec);
  auto ranks = AnalyzeRankTraces({a, other, b}, {}, 2);
  ASSERT_FALSE(ranks.ok());
  EXPECT_EQ(ranks.error().code, ExitCode::kInputError);
  EXPECT_EQ(ranks.error().message, "duplicate rank 1: " + a + " and " + b + " (distributedInfo.rank)");
}

TEST_F(RankFilesTest, FirstBadInputInOrderIsTheError) {
  RankTraceSpec spec;
  std::string good = Write("good.json", spec);
  testing::WriteAll(dir_ + "/bad.json", "{\"traceEvents\": [");
  auto ranks = AnalyzeRankTraces({good, dir_ + "/missing.json", dir_ + "/bad.json"}, {}, 3);
  ASSERT_FALSE(ranks.ok());
  EXPECT_NE(ranks.error().message.find("missing.json: cannot open"), std::string::npos) << ranks.error().message;
}

TEST_F(RankFilesTest, DirectoryWithoutTracesIsAnError) {
  testing::WriteAll(dir_ + "/readme.md", "x");
  auto paths = ExpandTraceInputs({dir_});
  ASSERT_FALSE(paths.ok());
  EXPECT_NE(paths.error().message.find("no *.json or *.json.gz traces"), std::string::npos);
}

TEST_F(RankFilesTest, HostileNamesAreEscapedInEveryFormat) {
  RankTraceSpec spec;
  spec.nccl_names = {"ncclKernel_\x1b]0;owned\x07_<script>"};
  const std::string name = "r\x1b[31m<b>|*_#\xe2\x80\xae.json";
  std::string a = Write(name, spec);
  spec.rank = 1;
  spec.nccl_names = RankTraceSpec().nccl_names;
  std::string b = Write("plain.json", spec);
  auto ranks = AnalyzeRankTraces({a, b}, {}, 2);
  ASSERT_TRUE(ranks.ok()) << ranks.error().message;
  RanksReport r = AnalyzeRanks(std::move(ranks).value(), {}, {});
  EXPECT_EQ(r.collectives, (std::vector<std::string>{"AllReduce", "other"}));
  const std::string console = RenderRanksConsole(r, {});
  EXPECT_EQ(console.find('\x1b'), std::string::npos);
  EXPECT_NE(console.find("\\x1b[31m"), std::string::npos) << console;
  EXPECT_EQ(console.find("\xe2\x80\xae"), std::string::npos);
  const std::string md = RenderRanksMarkdown(r, {});
  EXPECT_EQ(md.find('\x1b'), std::string::npos);
  EXPECT_EQ(md.find("<b>"), std::string::npos);
  EXPECT_NE(md.find("&lt;b&gt;\\|\\*\\_\\#"), std::string::npos) << md;
  const std::string html = RenderRanksHtml(r, {});
  EXPECT_EQ(html.find("<b>"), std::string::npos);
  EXPECT_EQ(html.find('\x1b'), std::string::npos);
  const std::string json = RenderRanksJson(r, {});
  EXPECT_EQ(json.find('\x1b'), std::string::npos);
  auto parsed = ParseJson(json, "r.json");
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  EXPECT_EQ(parsed->Find("ranks")->items[0].Find("path")->string, a);  // JSON keeps the value
}

}  // namespace
}  // namespace gpugate
