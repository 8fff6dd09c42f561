// End-to-end tests of benchmark programs as workloads: the real binary runs
// the example Google Benchmark program (examples/gbench, built by the
// project) and the nvbench stand-in (tests/programs), through validate, run,
// gate and ab.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli/run_binary.h"
#include "model/results_json.h"
#include "report/json.h"

namespace gpugate {
namespace {

using testing::MakeTempDir;
using testing::ReadAll;
using testing::RemoveTree;
using testing::RunGpugate;
using testing::WriteAll;

#ifdef GPUGATE_GBENCH_EXAMPLE_DIR
const std::string kExample = GPUGATE_GBENCH_EXAMPLE_DIR;

// Two benchmarks, two processes, short: about a second per run.
const char* kGbenchSuite = R"yaml(version: 1
name: gb
workloads:
  - name: k
    kind: gbench
    argv: ["{bin}/gbench_kernels"]
    filter: "BM_(HashChain|StringAppend)"
    repetitions: 3
    min_time: 0.01s
    rounds: 2
)yaml";

TEST(ProgramCliTest, ValidateShowsTheCommandLineAndRunListsEveryBenchmark) {
  const std::string dir = MakeTempDir();
  WriteAll(dir + "/s.yaml", kGbenchSuite);
  auto v = RunGpugate({"validate", dir + "/s.yaml", "--bin", kExample + "/base"});
  EXPECT_EQ(v.exit_code, 0) << v.err;
  EXPECT_NE(v.out.find("k  [gbench] runs [" + kExample + "/base/gbench_kernels, "
                       "--benchmark_filter=BM_(HashChain|StringAppend), --benchmark_repetitions=3, "
                       "--benchmark_min_time=0.01, --benchmark_out=<json>, --benchmark_out_format=json] "
                       "2 processes, one round each"),
            std::string::npos)
      << v.out;
  auto r = RunGpugate({"run", dir + "/s.yaml", "--bin", kExample + "/base", "-o", dir + "/r.json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("k/BM_HashChain/4096"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("k/BM_StringAppend/256"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("6/2"), std::string::npos) << r.out;  // 6 samples over 2 processes
  auto results = ReadResultsFile(dir + "/r.json");
  ASSERT_TRUE(results.ok()) << results.error().message;
  ASSERT_EQ(results->workloads.size(), 2u);
  EXPECT_EQ(results->workloads[0].kind, "gbench");
  EXPECT_EQ(results->workloads[0].rounds.size(), 2u);
  RemoveTree(dir);
}

TEST(ProgramCliTest, BinIsRequiredWhenTheSuiteUsesIt) {
  const std::string dir = MakeTempDir();
  WriteAll(dir + "/s.yaml", kGbenchSuite);
  auto r = RunGpugate({"run", dir + "/s.yaml", "-o", dir + "/r.json"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("s.yaml:4:5: workload 'k' uses {bin}: pass --bin DIR"), std::string::npos) << r.err;
  RemoveTree(dir);
}

TEST(ProgramCliTest, ACrashingProgramIsAFailedWorkloadNotAFatalError) {
  const std::string dir = MakeTempDir();
  WriteAll(dir + "/s.yaml", R"(version: 1
workloads:
  - name: crashy
    kind: gbench
    argv: [/bin/sh, -c, "echo 'bad news' >&2; kill -SEGV $$", sh]
)");
  auto r = RunGpugate({"run", dir + "/s.yaml", "-o", dir + "/r.json"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.out.find("crashy"), std::string::npos) << r.out;
  auto results = ReadResultsFile(dir + "/r.json");
  ASSERT_TRUE(results.ok());
  ASSERT_EQ(results->workloads.size(), 1u);
  EXPECT_EQ(results->workloads[0].status, WorkloadStatus::kFailed);
  EXPECT_NE(results->workloads[0].reason.find("process 1 of 5: '/bin/sh' killed by signal SIGSEGV"),
            std::string::npos)
      << results->workloads[0].reason;
  EXPECT_NE(results->workloads[0].reason.find("bad news"), std::string::npos);
  RemoveTree(dir);
}

TEST(ProgramCliTest, AbPairsPerBenchmarkAndCatchesTheSlowedOne) {
  const std::string dir = MakeTempDir();
  WriteAll(dir + "/s.yaml", R"yaml(version: 1
workloads:
  - name: k
    kind: gbench
    argv: ["{bin}/gbench_kernels"]
    filter: "BM_(HashChain|StringAppend)"
    repetitions: 3
    min_time: 0.01s
)yaml");
  auto r = RunGpugate({"ab", dir + "/s.yaml", "--base", kExample + "/base", "--head", kExample + "/head",
                       "--rounds", "10", "--json", dir + "/v.json", "--quiet"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  auto v = VerdictsFromJson(ReadAll(dir + "/v.json"), "v.json");
  ASSERT_TRUE(v.ok()) << v.error().message;
  int found = 0;
  for (const MetricVerdict& m : v->metrics) {
    if (m.metric != "time") continue;
    ++found;
    if (m.workload == "k/BM_HashChain/4096") {
      // BM_HashChain does 30% more work in the head build.
      EXPECT_EQ(m.verdict, Verdict::kRegression) << m.sentence;
    } else {
      EXPECT_EQ(m.workload, "k/BM_StringAppend/256");
      EXPECT_NE(m.verdict, Verdict::kRegression) << m.sentence;
    }
  }
  EXPECT_EQ(found, 2);
  RemoveTree(dir);
}

TEST(ProgramCliTest, GateReRunsOnlyTheDoubtfulBenchmarks) {
  const std::string dir = MakeTempDir();
  WriteAll(dir + "/s.yaml", kGbenchSuite);
  for (int i = 0; i < 3; ++i) {
    auto r = RunGpugate({"run", dir + "/s.yaml", "--bin", kExample + "/base", "-o", dir + "/r.json", "-q"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto up = RunGpugate({"baseline", "update", "--results", dir + "/r.json", "--baseline", dir + "/base.json"});
    ASSERT_EQ(up.exit_code, 0) << up.err;
  }
  auto g = RunGpugate({"gate", dir + "/s.yaml", "--bin", kExample + "/head", "--baseline", dir + "/base.json",
                       "-o", dir + "/g.json", "--json", dir + "/v.json"});
  // Whatever the noise decides about BM_StringAppend, BM_HashChain (+30%) is
  // a regression, and every re-run names only benchmarks of this program.
  EXPECT_EQ(g.exit_code, 1) << g.out << g.err;
  EXPECT_NE(g.err.find("gpugate: confirming "), std::string::npos) << g.err;
  EXPECT_NE(g.err.find("k/BM_HashChain/4096"), std::string::npos) << g.err;
  auto results = ReadResultsFile(dir + "/g.json");
  ASSERT_TRUE(results.ok()) << results.error().message;
  for (const WorkloadResult& w : results->workloads) {
    if (w.name == "k/BM_HashChain/4096") {
      EXPECT_GE(w.confirmation_reruns, 1);
    }
  }
  RemoveTree(dir);
}
#endif

#ifdef GPUGATE_NVBENCH_STANDIN
TEST(ProgramCliTest, NvbenchProgramStatesBecomeWorkloadsAndGpuStatesAreSkipped) {
  const std::string dir = MakeTempDir();
  WriteAll(dir + "/s.yaml", std::string(R"(version: 1
workloads:
  - name: nv
    kind: nvbench
    argv: [")") + GPUGATE_NVBENCH_STANDIN + R"("]
    benchmarks: [hash, gpu_reduce]
    axes: ["Elements=[1000,2000]"]
    rounds: 2
)");
  auto r = RunGpugate({"run", dir + "/s.yaml", "-o", dir + "/r.json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  auto results = ReadResultsFile(dir + "/r.json");
  ASSERT_TRUE(results.ok()) << results.error().message;
  ASSERT_EQ(results->workloads.size(), 4u);
  EXPECT_EQ(results->workloads[0].name, "nv/hash/Elements=1000");
  EXPECT_EQ(results->workloads[0].status, WorkloadStatus::kOk);
  EXPECT_EQ(results->workloads[0].rounds.size(), 2u);
  EXPECT_EQ(results->workloads[0].rounds[0].size(), 20u);
  EXPECT_EQ(results->workloads[2].name, "nv/gpu_reduce/Elements=1000");
  EXPECT_EQ(results->workloads[2].status, WorkloadStatus::kSkipped);
  EXPECT_EQ(results->workloads[2].reason, "skipped by nvbench: No CUDA device is available.");
  RemoveTree(dir);
}
#endif

}  // namespace
}  // namespace gpugate
