// End-to-end: the static kernel lane through the real binary. Two "builds"
// (folders holding tests/data/cubins/heavy_sm90.cubin, or the build of the
// same source with -maxrregcount=16 whose `heavy` spills, each with its ptxas
// log) gated by a suite with a static workload and a timing workload that
// sets skip_unchanged: the same build passes without timing anything, the
// spilling build fails with the new-spill rule in every report.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "cli/run_binary.h"

namespace gpugate {
namespace {

using testing::RunGpugate;

const std::string kCubins = std::string(GPUGATE_SOURCE_DIR) + "/tests/data/cubins/";

class StaticCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::MakeTempDir();
    for (const char* build : {"same", "spill"}) {
      const std::string cubin = std::string("heavy_sm90") + (build == std::string("spill") ? "_spill" : "");
      std::filesystem::create_directories(dir_ + "/" + build);
      std::filesystem::copy_file(kCubins + cubin + ".cubin", dir_ + "/" + build + "/kernels.cubin");
      std::filesystem::copy_file(kCubins + cubin + ".ptxas.txt", dir_ + "/" + build + "/ptxas.log");
    }
    testing::WriteAll(dir_ + "/suite.yaml",
                      "version: 1\n"
                      "name: static-e2e\n"
                      "workloads:\n"
                      "  - name: kernels\n"
                      "    kind: static\n"
                      "    file: \"{bin}/kernels.cubin\"\n"
                      "    ptxas_log: \"{bin}/ptxas.log\"\n"
                      "  - name: triad\n"
                      "    kernel: triad\n"
                      "    backend: cpu\n"
                      "    params: {n: [4Ki]}\n"
                      "    warmup: 0\n"
                      "    rounds: 2\n"
                      "    min_samples: 2\n"
                      "    min_time: 0s\n"
                      "    skip_unchanged: [kernels]\n");
    const auto base = RunGpugate({"run", dir_ + "/suite.yaml", "--bin", dir_ + "/same", "-o",
                                  dir_ + "/base.json", "-q"});
    ASSERT_EQ(base.exit_code, 0) << base.err;
  }
  void TearDown() override { testing::RemoveTree(dir_); }
  std::string dir_;
};

TEST_F(StaticCliTest, UnchangedCodeSkipsTimingAndPasses) {
  const auto o = RunGpugate({"gate", dir_ + "/suite.yaml", "--baseline", dir_ + "/base.json", "--bin",
                             dir_ + "/same", "-o", dir_ + "/out.json", "-v"});
  EXPECT_EQ(o.exit_code, 0) << o.out << o.err;
  EXPECT_NE(o.out.find("not run: the code it runs is unchanged (kernels hold the baseline's SASS"),
            std::string::npos) << o.out;
  EXPECT_NE(o.out.find("code unchanged: all 2 kernels"), std::string::npos) << o.out;
  const std::string results = testing::ReadAll(dir_ + "/out.json");
  EXPECT_NE(results.find("\"code_unchanged\": true"), std::string::npos);
}

TEST_F(StaticCliTest, NewSpillFailsWithTheRuleInEveryReport) {
  const auto o = RunGpugate({"gate", dir_ + "/suite.yaml", "--baseline", dir_ + "/base.json", "--bin",
                             dir_ + "/spill", "--confirm", "0", "--markdown", dir_ + "/r.md", "--junit",
                             dir_ + "/r.xml", "--json", dir_ + "/v.json"});
  EXPECT_EQ(o.exit_code, 1) << o.out << o.err;
  EXPECT_NE(o.out.find("1 rule finding fails the gate (new-spill)"), std::string::npos) << o.out;
  for (const char* report : {"/r.md", "/r.xml", "/v.json"}) {
    const std::string text = testing::ReadAll(dir_ + report);
    EXPECT_NE(text.find("new-spill"), std::string::npos) << report;
    EXPECT_NE(text.find("104 B stored and 132 B loaded per thread"), std::string::npos) << report;
  }
  // The timing workload ran: its code changed.
  EXPECT_EQ(o.out.find("not run: the code it runs is unchanged"), std::string::npos) << o.out;
}

TEST_F(StaticCliTest, StaticFileWithoutBinIsAnInputError) {
  const auto o = RunGpugate({"run", dir_ + "/suite.yaml", "-o", dir_ + "/x.json"});
  EXPECT_EQ(o.exit_code, 2) << o.err;
  EXPECT_NE(o.err.find("uses {bin}: pass --bin DIR"), std::string::npos) << o.err;
}

}  // namespace
}  // namespace gpugate

namespace gpugate {
namespace {

// examples/static.yaml as its comment runs it: the gate against its own run
// skips the timing workload and passes.
TEST(StaticExampleTest, GateAgainstItsOwnRunSkipsTiming) {
  const std::string dir = testing::MakeTempDir();
  const auto run = RunGpugate({"run", "examples/static.yaml", "-o", dir + "/base.json", "-q"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto gate = RunGpugate({"gate", "examples/static.yaml", "--baseline", dir + "/base.json"});
  EXPECT_EQ(gate.exit_code, 0) << gate.out << gate.err;
  EXPECT_NE(gate.out.find("triad/1Mi"), std::string::npos) << gate.out;
  EXPECT_NE(gate.out.find("not run: the code it runs is unchanged"), std::string::npos) << gate.out;
  testing::RemoveTree(dir);
}

}  // namespace
}  // namespace gpugate
