// Tests of joining shards of one run (gpugate merge): shards from
// SelectShard merge back into the whole suite; shards of other runs or
// environments, overlapping or duplicate or missing shards are refused.
#include "model/merge.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "config/suite.h"

namespace gpugate {
namespace {

Results Shard(const std::vector<std::string>& workloads, const std::string& shard, const std::string& run_id = "run-1") {
  Results r;
  r.run.suite = "cpu";
  r.run.run_id = run_id;
  r.run.git_sha = "abc1234";
  r.run.shard = shard;
  r.run.time_unix_ns = 1000 + static_cast<int64_t>(shard.empty() ? 0 : shard[0]);
  r.run.time_utc = "t" + shard;
  r.run.env.cpu_model = "Xeon";
  r.run.env.cpu_cores = 2;
  r.run.env.host = "runner-" + shard;  // shards run on different hosts
  for (const auto& w : workloads) {
    WorkloadResult wr;
    wr.name = w;
    wr.rounds = {{1e-3, 1.1e-3}};
    r.workloads.push_back(wr);
  }
  return r;
}

TEST(MergeTest, ShardsFromSelectShardMergeBackToTheSuite) {
  auto suite = LoadSuiteFromString(R"(version: 1
workloads:
  - name: syn/{i}
    kind: synthetic
    params: {i: [a, b, c, d, e, f, g, h, i, j, k, l]}
)", "s.yaml");
  ASSERT_TRUE(suite.ok()) << suite.error().message;
  const int kShards = 3;
  std::vector<Results> shards;
  std::vector<std::string> names;
  std::set<std::string> all;
  for (int i = 1; i <= kShards; ++i) {
    std::vector<std::string> ws;
    for (const auto& w : SelectShard(suite->workloads, i, kShards)) ws.push_back(w.name);
    shards.push_back(Shard(ws, std::to_string(i) + "/" + std::to_string(kShards)));
    names.push_back("shard" + std::to_string(i) + ".json");
  }
  for (const auto& w : suite->workloads) all.insert(w.name);
  // Given in reverse order: the merge orders by shard index.
  std::vector<Results> rev(shards.rbegin(), shards.rend());
  std::vector<std::string> rev_names(names.rbegin(), names.rend());
  auto merged = MergeShards(rev, rev_names);
  ASSERT_TRUE(merged.ok()) << merged.error().message;
  EXPECT_FALSE(merged->run.shard.has_value());
  EXPECT_EQ(merged->run.run_id, "run-1");
  EXPECT_EQ(merged->run.time_utc, "t1/3");  // earliest start
  std::set<std::string> got;
  for (const auto& w : merged->workloads) got.insert(w.name);
  EXPECT_EQ(got, all);
  EXPECT_EQ(merged->workloads.size(), all.size());
  EXPECT_EQ(merged->workloads.front().name, shards[0].workloads.front().name);
}

void ExpectRefused(const std::vector<Results>& shards, const std::string& want, MergeOptions o = {}) {
  std::vector<std::string> names;
  for (size_t i = 0; i < shards.size(); ++i) names.push_back("s" + std::to_string(i) + ".json");
  auto r = MergeShards(shards, names, o);
  ASSERT_FALSE(r.ok()) << want;
  EXPECT_EQ(r.error().code, ExitCode::kInputError);
  EXPECT_NE(r.error().message.find(want), std::string::npos) << r.error().message;
}

TEST(MergeTest, RefusesShardsOfDifferentRuns) {
  ExpectRefused({Shard({"a"}, "1/2"), Shard({"b"}, "2/2", "run-2")},
                "s1.json: not a shard of the same run as s0.json (run_id 'run-1' vs 'run-2')");
  Results other_sha = Shard({"b"}, "2/2");
  other_sha.run.git_sha = "fff0000";
  ExpectRefused({Shard({"a"}, "1/2"), other_sha}, "git_sha 'abc1234' vs 'fff0000'");
  Results other_suite = Shard({"b"}, "2/2");
  other_suite.run.suite = "gpu";
  ExpectRefused({Shard({"a"}, "1/2"), other_suite}, "suite 'cpu' vs 'gpu'");
}

TEST(MergeTest, RefusesOtherEnvironments) {
  Results other = Shard({"b"}, "2/2");
  other.run.env.cpu_model = "EPYC";
  ExpectRefused({Shard({"a"}, "1/2"), other}, "s1.json: environment differs from s0.json (cpu_model 'Xeon' vs 'EPYC')");
}

TEST(MergeTest, AcceptsShardsOfOneRunnerClassOnDifferentCpus) {
  Results one = Shard({"a"}, "1/2");
  Results two = Shard({"b"}, "2/2");
  one.run.env.runner_class = two.run.env.runner_class = "linux-x64-ubuntu24";
  two.run.env.cpu_model = "EPYC";
  Result<Results> merged = MergeShards({one, two}, {"s0.json", "s1.json"});
  ASSERT_TRUE(merged.ok()) << merged.error().message;
  EXPECT_EQ(merged->workloads.size(), 2u);
  two.run.env.runner_class = "other";
  ExpectRefused({one, two}, "runner_class 'linux-x64-ubuntu24' vs 'other'");
}

TEST(MergeTest, RefusesOverlapDuplicatesAndMissing) {
  ExpectRefused({Shard({"a", "b"}, "1/2"), Shard({"b"}, "2/2")}, "workload 'b' is also in s0.json");
  ExpectRefused({Shard({"a"}, "1/2"), Shard({"b"}, "1/2")}, "shard 1/2 is also s0.json");
  ExpectRefused({Shard({"a"}, "1/2"), Shard({"b"}, "2/3")}, "does not match s0.json's shard count");
  ExpectRefused({Shard({"a"}, "1/3"), Shard({"b"}, "3/3")}, "missing shard 2/3 of run");
  // Thousands of missing shards: the first ten and a count.
  ExpectRefused({Shard({"a"}, "1/4096"), Shard({"b"}, "4096/4096")},
                "missing shards 2/4096, 3/4096, 4/4096, 5/4096, 6/4096, 7/4096, 8/4096, 9/4096, 10/4096, 11/4096 "
                "and 4084 more of run");
  ExpectRefused({Shard({"a"}, "1/2"), Shard({"b"}, "")}, "mixes sharded and unsharded");
  ExpectRefused({Shard({"a"}, ""), Shard({"b"}, "")}, "not a shard");
  ExpectRefused({Shard({"a"}, "1/2"), Shard({"b"}, "x/2")}, "s1.json");
}

TEST(MergeTest, PartialWhenAllowedIsMarked) {
  MergeOptions o;
  o.allow_partial = true;
  auto r = MergeShards({Shard({"a"}, "1/3"), Shard({"c"}, "3/3")}, {"a.json", "c.json"}, o);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_TRUE(r->run.shard.has_value());
  EXPECT_EQ(*r->run.shard, "partial:1,3/3");
  EXPECT_EQ(r->workloads.size(), 2u);
}

}  // namespace
}  // namespace gpugate
