// End-to-end tests of `--device-profile`: `run` writes each workload's
// regime into the results, `compare` adds a roofline section to the
// reports, and a bad profile is an input error that points at the value.
#include <gtest/gtest.h>

#include <string>

#include "cli/run_binary.h"
#include "model/results_json.h"
#include "stats/summary.h"
#include "util/fs.h"

namespace gpugate {
namespace {

using testing::RunGpugate;

constexpr const char* kSuite =
    "version: 1\n"
    "name: roof\n"
    "defaults: {warmup: 0, min_samples: 3, max_samples: 3, rounds: 2, min_time: 0s}\n"
    "workloads:\n"
    "  - name: triad/{n}\n    kernel: triad\n    backend: cpu\n    params: {n: 64Ki}\n"
    "  - name: sgemm/{n}\n    kernel: sgemm_blocked\n    backend: cpu\n    params: {n: 64}\n";

// A hand-written CPU profile: 10 GB/s, 100 GFLOP/s (ridge 10 FLOP/B).
constexpr const char* kProfile =
    "{\"schema\": \"gpugate/device-profile/v1\", \"device_name\": \"Test <CPU>\", \"kind\": \"cpu\",\n"
    " \"peak_bytes_per_second\": 1e10, \"peak_fp32_flops\": 1e11, \"peak_fp16_flops\": null,\n"
    " \"launch_overhead_s\": 5e-8}\n";

TEST(RooflineCliTest, RunAndCompareAddRegimes) {
  const std::string dir = testing::MakeTempDir();
  testing::WriteAll(dir + "/s.yaml", kSuite);
  testing::WriteAll(dir + "/p.json", kProfile);
  auto run = RunGpugate({"run", dir + "/s.yaml", "-o", dir + "/r.json", "-q", "--device-profile", dir + "/p.json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  Result<Results> r = ReadResultsFile(dir + "/r.json");
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->workloads.size(), 2u);
  for (const WorkloadResult& w : r->workloads) {
    ASSERT_TRUE(w.regime.has_value()) << w.name;
    EXPECT_EQ(w.regime->device, "Test <CPU>");
    EXPECT_GT(w.regime->roof_fraction, 0);
  }
  // Triad: 2 FLOPs per 12 bytes, far below the ridge.
  EXPECT_EQ(r->workloads[0].regime->regime, "memory-bound");
  EXPECT_NEAR(*r->workloads[0].regime->arithmetic_intensity, 1.0 / 6.0, 1e-12);
  // sgemm n=64: 2n^3 / (3n^2 4) = n/6 ~ 10.7 FLOP/B, above the ridge.
  EXPECT_EQ(r->workloads[1].regime->regime, "compute-bound");

  ASSERT_EQ(RunGpugate({"run", dir + "/s.yaml", "-o", dir + "/r2.json", "-q"}).exit_code, 0);
  auto cmp = RunGpugate({"compare", dir + "/r.json", dir + "/r2.json", "--device-profile", dir + "/p.json",
                         "--markdown", dir + "/c.md", "--html", dir + "/c.html", "--json", dir + "/c.json"});
  EXPECT_NE(cmp.exit_code, 2) << cmp.err;
  EXPECT_NE(cmp.out.find("Roofline on Test <CPU> (CPU) (device profile):"), std::string::npos) << cmp.out;
  EXPECT_NE(cmp.out.find("triad/64Ki: memory-bound"), std::string::npos) << cmp.out;
  const std::string md = testing::ReadAll(dir + "/c.md");
  EXPECT_NE(md.find("Roofline on Test &lt;CPU&gt; (CPU) (device profile)"), std::string::npos) << md;
  EXPECT_NE(md.find("| triad/64Ki | - | memory-bound | 0.167 |"), std::string::npos) << md;
  EXPECT_NE(testing::ReadAll(dir + "/c.html").find("Roofline on Test &lt;CPU&gt;"), std::string::npos);
  EXPECT_NE(testing::ReadAll(dir + "/c.json").find("\"roofline\""), std::string::npos);
  testing::RemoveTree(dir);
}

// A run of two workloads with work counts and 12 flat ones, every time
// multiplied by `factor`: 10 rounds of 5 samples with a small fixed jitter.
Results BoundnessRun(double factor, const std::string& id) {
  Results r;
  r.run.run_id = id;
  auto add = [&r](const std::string& name, double median, std::optional<int64_t> bytes, std::optional<double> flops) {
    WorkloadResult w;
    w.name = name;
    w.kind = "builtin";
    w.backend = "cpu";
    for (int round = 0; round < 10; ++round) {
      std::vector<double> samples;
      for (int i = 0; i < 5; ++i) samples.push_back(median * (1 + 0.002 * ((round * 5 + i) % 7 - 3)));
      w.rounds.push_back(samples);
    }
    std::vector<double> all;
    for (const auto& round : w.rounds) all.insert(all.end(), round.begin(), round.end());
    w.summary = Summarize(all);
    w.work.bytes = bytes;
    w.work.flops = flops;
    r.workloads.push_back(std::move(w));
  };
  add("ai08", 1e-3 * factor, 1000000, 800000);
  add("short", 2e-4 * factor, 10000, 100);
  for (int i = 0; i < 12; ++i) add("flat" + std::to_string(i), 1e-3, std::nullopt, std::nullopt);
  return r;
}

// A profile of 2 GB/s and 1 GFLOP/s (ridge 0.5 FLOP/B) with 100 us of launch
// overhead: ai08 (0.8 FLOP/B) is compute-bound and short (200 us) is
// overhead-bound there. The boundness rules say what the roofline section
// says, not the fixed cut of 1 FLOP/byte (memory-bound for both).
TEST(RooflineCliTest, CompareBoundnessRulesFollowTheProfilesRegime) {
  const std::string dir = testing::MakeTempDir();
  testing::WriteAll(dir + "/p.json",
                    "{\"schema\": \"gpugate/device-profile/v1\", \"device_name\": \"cpu x\", \"kind\": \"cpu\",\n"
                    " \"peak_bytes_per_second\": 2e9, \"peak_fp32_flops\": 1e9, \"peak_fp16_flops\": null,\n"
                    " \"launch_overhead_s\": 1e-4}\n");
  ASSERT_TRUE(WriteResultsFile(dir + "/a.json", BoundnessRun(1.0, "a")).ok());
  ASSERT_TRUE(WriteResultsFile(dir + "/b.json", BoundnessRun(1.2, "b")).ok());
  auto cmp = RunGpugate({"compare", dir + "/a.json", dir + "/b.json", "--device-profile", dir + "/p.json"});
  EXPECT_EQ(cmp.exit_code, 1) << cmp.err << cmp.out;
  EXPECT_NE(cmp.out.find("ai08: compute-bound"), std::string::npos) << cmp.out;
  EXPECT_NE(cmp.out.find("short: overhead-bound"), std::string::npos) << cmp.out;
  EXPECT_EQ(cmp.out.find("memory-bound (ai08)"), std::string::npos) << cmp.out;
  EXPECT_EQ(cmp.out.find("memory-bound (short)"), std::string::npos) << cmp.out;
  EXPECT_NE(cmp.out.find("compute-bound (ai08)"), std::string::npos) << cmp.out;
  EXPECT_EQ(cmp.out.find("wrong roofs"), std::string::npos) << cmp.out;
  // The same CPU profile on results of the cuda backend places them under
  // the wrong roofs, and the rules follow it: every report says so, as run
  // does.
  Results ga = BoundnessRun(1.0, "ga"), gb = BoundnessRun(1.2, "gb");
  for (Results* r : {&ga, &gb})
    for (WorkloadResult& w : r->workloads) w.backend = "cuda";
  ASSERT_TRUE(WriteResultsFile(dir + "/ga.json", ga).ok());
  ASSERT_TRUE(WriteResultsFile(dir + "/gb.json", gb).ok());
  auto gpu = RunGpugate({"compare", dir + "/ga.json", dir + "/gb.json", "--device-profile", dir + "/p.json",
                         "--json", dir + "/v.json"});
  EXPECT_NE(gpu.out.find("--device-profile describes a cpu (cpu x) but workload 'ai08' ran on a GPU (cuda): "
                         "its regime is placed under the wrong roofs"),
            std::string::npos)
      << gpu.out;
  Result<std::string> json = ReadFile(dir + "/v.json");
  ASSERT_TRUE(json.ok());
  EXPECT_NE(json->find("placed under the wrong roofs"), std::string::npos);
  // A trace's GPU workloads (backend ingest) ran on a GPU too.
  for (Results* r : {&ga, &gb})
    for (WorkloadResult& w : r->workloads) {
      w.kind = "trace";
      w.backend = "ingest";
    }
  ASSERT_TRUE(WriteResultsFile(dir + "/ta.json", ga).ok());
  ASSERT_TRUE(WriteResultsFile(dir + "/tb.json", gb).ok());
  auto traced = RunGpugate({"compare", dir + "/ta.json", dir + "/tb.json", "--device-profile", dir + "/p.json"});
  EXPECT_NE(traced.out.find("but workload 'ai08' ran on a GPU (trace): its regime is placed under the wrong roofs"),
            std::string::npos)
      << traced.out;
  testing::RemoveTree(dir);
}

TEST(RooflineCliTest, BadProfileIsAnInputErrorWithItsPosition) {
  const std::string dir = testing::MakeTempDir();
  testing::WriteAll(dir + "/s.yaml", kSuite);
  testing::WriteAll(dir + "/p.json", "{\"schema\": \"gpugate/device-profile/v1\",\n \"peak_fp32_flops\": \"fast\"}\n");
  auto run = RunGpugate({"run", dir + "/s.yaml", "-o", dir + "/r.json", "-q", "--device-profile", dir + "/p.json"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("gpugate: error: " + dir + "/p.json:2:21: peak_fp32_flops: expected a finite number "
                         "greater than 0, got string\n"),
            std::string::npos)
      << run.err;
  auto missing = RunGpugate({"compare", dir + "/r.json", dir + "/r.json", "--device-profile", dir + "/none.json"});
  EXPECT_EQ(missing.exit_code, 2) << missing.err;
  testing::RemoveTree(dir);
}

}  // namespace
}  // namespace gpugate
