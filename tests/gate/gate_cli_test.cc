// End-to-end tests of `gpugate gate` when a workload fails: the exit code is
// the verdicts' (ExitCodeFor), and a failed workload makes it 3.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli/run_binary.h"
#include "model/results_json.h"

namespace gpugate {
namespace {

using testing::RunGpugate;

// Four synthetic workloads and a command workload `probe_name` that fails
// once the file `dir/broken` exists.
std::string Suite(const std::string& dir, const std::string& probe_name) {
  return "version: 1\n"
         "name: gate-failures\n"
         "defaults: {warmup: 0, min_samples: 40, max_samples: 60, rounds: 5, min_time: 0s}\n"
         "workloads:\n"
         "  - name: a\n    kind: synthetic\n    synthetic: {median: 1ms, cv: 1%, seed: 11}\n"
         "  - name: b\n    kind: synthetic\n    synthetic: {median: 2ms, cv: 1%, seed: 12}\n"
         "  - name: c\n    kind: synthetic\n    synthetic: {median: 500us, cv: 1%, seed: 13}\n"
         "  - name: d\n    kind: synthetic\n    synthetic: {median: 3ms, cv: 1%, seed: 14}\n"
         "  - name: " + probe_name + "\n    kind: command\n"
         "    argv: [/bin/sh, -c, 'test ! -e " + dir + "/broken']\n"
         "    warmup: 0\n    min_samples: 3\n    max_samples: 3\n    rounds: 3\n"
         "    min_time: 0s\n";
}

class GateCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::MakeTempDir();
    testing::WriteAll(dir_ + "/suite.yaml", Suite(dir_, "probe"));
    testing::WriteAll(dir_ + "/suite_new.yaml", Suite(dir_, "new-probe"));
    ASSERT_EQ(RunGpugate({"run", dir_ + "/suite.yaml", "-o", dir_ + "/base.json", "-q"}).exit_code,
              0);
    testing::WriteAll(dir_ + "/broken", "");
  }
  void TearDown() override { testing::RemoveTree(dir_); }
  std::string dir_;
};

// A baseline of another suite (a wrong path) would compare nothing: every
// workload new, every baseline workload removed. Refused, as `baseline
// update` refuses it.
TEST_F(GateCliTest, ABaselineOfAnotherSuiteIsRefused) {
  std::string other = testing::ReadAll(dir_ + "/suite.yaml");
  other.replace(other.find("name: gate-failures"), 19, "name: other-suite");
  testing::WriteAll(dir_ + "/other.yaml", other);
  auto o = RunGpugate({"gate", dir_ + "/other.yaml", "--baseline", dir_ + "/base.json"});
  EXPECT_EQ(o.exit_code, 2) << o.out << o.err;
  EXPECT_NE(o.err.find("base.json: a baseline of suite 'gate-failures', but the suite is "
                       "'other-suite'"),
            std::string::npos)
      << o.err;
}

// --bigger-is-better reads a custom-JSON baseline; the measured run's
// direction is the suite's. Given with any other baseline it would change
// nothing, so it is refused before the suite runs; `ab` has no such option.
TEST_F(GateCliTest, BiggerIsBetterReadsOnlyACustomJsonBaseline) {
  auto o = RunGpugate({"gate", dir_ + "/suite.yaml", "--baseline", dir_ + "/base.json", "--bigger-is-better"});
  EXPECT_EQ(o.exit_code, 2) << o.out << o.err;
  EXPECT_NE(o.err.find("--bigger-is-better reads a --baseline of custom benchmark JSON, and " + dir_ +
                       "/base.json is not one"),
            std::string::npos)
      << o.err;
  EXPECT_EQ(o.err.find("confirming"), std::string::npos) << o.err;
  auto ab = RunGpugate({"ab", "--help"});
  EXPECT_EQ(ab.out.find("bigger-is-better"), std::string::npos) << ab.out;
}

// A selection measures part of the suite: the baseline's other workloads
// were not asked for, so they are not "removed" (a sharded job would list
// every other shard's workloads, and all-new selections read not judged).
TEST_F(GateCliTest, WorkloadsOutsideTheSelectionAreNotRemoved) {
  for (const std::vector<std::string>& pick :
       {std::vector<std::string>{"--filter", "a"}, std::vector<std::string>{"--shard", "1/2"}}) {
    std::vector<std::string> args = {"gate", dir_ + "/suite.yaml", "--baseline", dir_ + "/base.json",
                                     "--json", dir_ + "/v.json", "-q"};
    args.insert(args.end(), pick.begin(), pick.end());
    auto o = RunGpugate(args);
    EXPECT_EQ(o.exit_code, 0) << pick[0] << o.out << o.err;
    const std::string json = testing::ReadAll(dir_ + "/v.json");
    EXPECT_EQ(json.find("\"verdict\": \"removed\""), std::string::npos) << pick[0] << json;
    EXPECT_NE(json.find("\"removed\": 0"), std::string::npos) << pick[0] << json;
    EXPECT_NE(json.find("workloads of the baseline are outside this run's --filter/--tag/--shard selection"),
              std::string::npos)
        << pick[0] << json;
  }
}

// A result belongs to the workload of its own name before the program whose
// name prefixes it: `bench/w` is not one of `bench`'s benchmarks.
TEST(GateSelectionTest, AResultBelongsToItsOwnWorkloadBeforeAPrefix) {
  const std::string dir = testing::MakeTempDir();
  testing::WriteAll(dir + "/suite.yaml",
                    "version: 1\nname: prefix\nworkloads:\n"
                    "  - name: bench\n    kind: command\n    shell: true\n"
                    "    argv: [\"printf '[{\\\"name\\\":\\\"x\\\",\\\"unit\\\":\\\"ms\\\",\\\"value\\\":1.0}]' > " + dir +
                        "/out.json\"]\n"
                    "    results: " + dir + "/out.json\n    rounds: 3\n    tags: [a]\n"
                    "  - name: bench/w\n    kind: command\n    argv: [/bin/true]\n"
                    "    min_samples: 3\n    max_samples: 3\n    rounds: 2\n    tags: [b]\n");
  auto run = RunGpugate({"run", dir + "/suite.yaml", "-o", dir + "/base.json", "-q"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  auto o = RunGpugate({"gate", dir + "/suite.yaml", "--baseline", dir + "/base.json", "--tag", "a", "--confirm", "0",
                       "--json", dir + "/v.json", "-q"});
  EXPECT_EQ(o.exit_code, 0) << o.err;
  const std::string json = testing::ReadAll(dir + "/v.json");
  EXPECT_EQ(json.find("\"verdict\": \"removed\""), std::string::npos) << json;
  EXPECT_NE(json.find("1 workload of the baseline is outside"), std::string::npos) << json;
  EXPECT_NE(json.find("\"bench/x\""), std::string::npos) << json;
  testing::RemoveTree(dir);
}

TEST_F(GateCliTest, WorkloadFailingInTheRunExitsThree) {
  auto o = RunGpugate({"gate", dir_ + "/suite.yaml", "--baseline", dir_ + "/base.json", "--seed",
                       "3", "-o", dir_ + "/gate.json"});
  EXPECT_EQ(o.exit_code, 3) << o.out << o.err;
  EXPECT_NE((o.out + o.err).find("probe"), std::string::npos) << o.out << o.err;
  auto r = ReadResultsFile(dir_ + "/gate.json");
  ASSERT_TRUE(r.ok());
  const WorkloadResult* probe = r->Find("probe");
  ASSERT_NE(probe, nullptr);
  EXPECT_EQ(probe->status, WorkloadStatus::kFailed);
}

// A failing workload that the baseline does not know yet must fail the gate
// too. This relies on the judge reporting a failed new workload as an error
// (compare/); until it does, the verdict is `new` and this test fails.
TEST_F(GateCliTest, NewWorkloadFailingInTheRunExitsThree) {
  auto o = RunGpugate({"gate", dir_ + "/suite_new.yaml", "--baseline", dir_ + "/base.json",
                       "--seed", "3"});
  EXPECT_EQ(o.exit_code, 3) << o.out << o.err;
}

}  // namespace
}  // namespace gpugate
