// Tests of baseline histories: environment keys, JSON round trip, append with
// keep K, environment/suite/shard refusals, prune, version checks, and a
// baseline file that survives SIGKILL in the middle of writes.
#include "model/baseline.h"
#include "model/environment.h"
#include "model/history_series.h"

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "cli/run_binary.h"
#include "util/fs.h"

namespace gpugate {
namespace {

Environment CpuEnv(const std::string& model = "Intel(R) Xeon(R) Platinum 8370C CPU @ 2.80GHz", int cores = 2) {
  Environment e;
  e.host = "runner-1";
  e.os = "Linux 6.1.0 x86_64";
  e.cpu_model = model;
  e.cpu_cores = cores;
  e.compiler = "GNU 12.2.0";
  return e;
}

/// A run with `workloads` workloads of `samples` samples in 2 rounds.
Results MakeRun(const std::string& id, int workloads = 2, int samples = 6, double base = 1e-3,
                Environment env = CpuEnv()) {
  Results r;
  r.run.tool_version = "0.1.0";
  r.run.suite = "cpu";
  r.run.run_id = id;
  r.run.time_utc = "2026-11-20T10:00:00Z";
  r.run.time_unix_ns = 1795000000000000000;
  r.run.git_sha = "abc1234def";
  r.run.env = std::move(env);
  for (int w = 0; w < workloads; ++w) {
    WorkloadResult wr;
    wr.name = "synthetic/w" + std::to_string(w);
    wr.kind = "synthetic";
    wr.backend = "synthetic";
    wr.rounds.resize(2);
    for (int s = 0; s < samples; ++s) wr.rounds[s % 2].push_back(base * (1.0 + 0.001 * s + 0.01 * w));
    wr.summary.n = samples;
    wr.summary.median = base;
    r.workloads.push_back(std::move(wr));
  }
  return r;
}

TEST(BaselineTest, EnvironmentKeyCpuAndGpu) {
  EXPECT_EQ(EnvironmentKey(CpuEnv()), "intel-xeon-platinum-8370c-cpu-2.80ghz-2c");
  Environment g = CpuEnv();
  g.gpu.name = "NVIDIA A100-SXM4-80GB";
  g.gpu.driver_version = "550.54.15";
  g.gpu.cuda_version = "13.0";
  EXPECT_EQ(EnvironmentKey(g), "nvidia-a100-sxm4-80gb-drv550-cuda13.0");
  // Host and OS do not enter the key.
  Environment other = CpuEnv();
  other.host = "runner-7";
  other.os = "Linux 6.8";
  EXPECT_EQ(EnvironmentKey(other), EnvironmentKey(CpuEnv()));
  EXPECT_EQ(Slug("  ##  "), "unknown");
  // No slug names the folder git reserves, or the parent; other leading
  // dots stay (an existing history's folder does not move).
  EXPECT_EQ(Slug(".git"), "git");
  EXPECT_EQ(Slug(".GIT"), "git");
  EXPECT_EQ(Slug(".perf"), ".perf");
  EXPECT_EQ(Slug(".git-hooks"), ".git-hooks");
  EXPECT_EQ(Slug(" .. "), "unknown");
  EXPECT_EQ(Slug("a.b"), "a.b");
  EXPECT_EQ(BaselinePath("baselines/", "My Suite", "k"), "baselines/my-suite/k.json");
}

TEST(BaselineTest, RunnerClassKeysTheFileAndAllowsOtherCpusWithinIt) {
  Environment a = CpuEnv();
  a.runner_class = "linux-x64-ubuntu24";
  Environment b = CpuEnv("AMD EPYC 7763 64-Core Processor", 4);
  b.runner_class = "linux-x64-ubuntu24";
  EXPECT_EQ(EnvironmentKey(a), "linux-x64-ubuntu24");
  EXPECT_TRUE(EnvironmentDifferences(a, b).empty());
  Baseline base;
  ASSERT_TRUE(AppendRun(base, MakeRun("r1", 2, 6, 1e-3, a), 5, false).ok());
  Status same_class = AppendRun(base, MakeRun("r2", 2, 6, 1e-3, b), 5, false);
  EXPECT_TRUE(same_class.ok()) << same_class.error().message;
  EXPECT_EQ(base.environment_key, "linux-x64-ubuntu24");
  // Another class, or none, is another environment.
  Environment c = b;
  c.runner_class = "gpu-a100";
  Status other = AppendRun(base, MakeRun("r3", 2, 6, 1e-3, c), 5, false);
  ASSERT_FALSE(other.ok());
  EXPECT_NE(other.error().message.find("runner_class 'linux-x64-ubuntu24' vs 'gpu-a100'"), std::string::npos)
      << other.error().message;
  Status none = AppendRun(base, MakeRun("r4", 2, 6, 1e-3, CpuEnv()), 5, false);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().message.find("vs none"), std::string::npos) << none.error().message;
  // A GPU stays strict within a class.
  Environment g1 = a, g2 = a;
  g1.gpu.name = "NVIDIA A100-SXM4-80GB";
  g2.gpu.name = "NVIDIA H100 80GB HBM3";
  EXPECT_FALSE(EnvironmentDifferences(g1, g2).empty());
}

TEST(BaselineTest, RunnerClassFromTheProcessEnvironment) {
  auto from = [](std::map<std::string, std::string> vars) {
    return RunnerClassFromVariables([&vars](const char* name) -> const char* {
      auto it = vars.find(name);
      return it == vars.end() ? nullptr : it->second.c_str();
    });
  };
  EXPECT_EQ(from({}), std::nullopt);
  EXPECT_EQ(from({{"GPUGATE_ENV_KEY", "Ubuntu 24.04 (4 cores)"}}), "ubuntu-24.04-4-cores");
  EXPECT_EQ(from({{"GITHUB_ACTIONS", "true"}, {"RUNNER_OS", "Linux"}, {"RUNNER_ARCH", "X64"},
                  {"ImageOS", "ubuntu24"}}),
            "linux-x64-ubuntu24");
  // Self-hosted runners have no image: the user names the class.
  EXPECT_EQ(from({{"GITHUB_ACTIONS", "true"}, {"RUNNER_OS", "Linux"}, {"RUNNER_ARCH", "X64"}}), std::nullopt);
  EXPECT_EQ(from({{"GPUGATE_ENV_KEY", "gpu-a100"}, {"GITHUB_ACTIONS", "true"}, {"ImageOS", "ubuntu24"}}),
            "gpu-a100");
  EXPECT_FALSE(ParseRunnerClass("").ok());
  EXPECT_FALSE(ParseRunnerClass("--/..").ok());
  EXPECT_EQ(*ParseRunnerClass("../../etc"), "..-..-etc");
}

TEST(BaselineTest, RoundTrip) {
  Baseline b;
  ASSERT_TRUE(AppendRun(b, MakeRun("r1"), 5, false).ok());
  ASSERT_TRUE(AppendRun(b, MakeRun("r2", 3, 8, 2e-3), 5, false).ok());
  std::string text = BaselineToJson(b);
  auto back = BaselineFromJson(text, "b.json");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->suite, "cpu");
  EXPECT_EQ(back->environment_key, EnvironmentKey(CpuEnv()));
  ASSERT_EQ(back->runs.size(), 2u);
  EXPECT_EQ(back->runs[0].run.run_id, "r1");
  EXPECT_EQ(back->runs[1].run.run_id, "r2");
  ASSERT_EQ(back->runs[1].workloads.size(), 3u);
  EXPECT_EQ(back->runs[1].workloads[2].rounds, b.runs[1].workloads[2].rounds);
  EXPECT_EQ(BaselineToJson(*back), text);  // stable bytes
}

TEST(BaselineTest, AppendKeepsNewestK) {
  Baseline b;
  for (int i = 1; i <= 7; ++i) ASSERT_TRUE(AppendRun(b, MakeRun("r" + std::to_string(i)), 3, false).ok());
  ASSERT_EQ(b.runs.size(), 3u);
  EXPECT_EQ(b.runs[0].run.run_id, "r5");
  EXPECT_EQ(b.runs[2].run.run_id, "r7");
  EXPECT_EQ(PruneBaseline(b, 1), 2);
  ASSERT_EQ(b.runs.size(), 1u);
  EXPECT_EQ(b.runs[0].run.run_id, "r7");
  EXPECT_EQ(PruneBaseline(b, 4), 0);
  EXPECT_FALSE(AppendRun(b, MakeRun("r8"), 0, false).ok());
}

// A workload's unit is the history's: a run in another (custom JSON in MB/s,
// then GB/s) is refused, and a history that already mixes them (written
// before) is read in its newest run's unit, so the change reads as no step.
TEST(BaselineTest, AHistoryKeepsOneUnitPerWorkload) {
  auto in = [](const std::string& id, const std::string& unit, double value) {
    Results r = MakeRun(id, 1);
    WorkloadResult& w = r.workloads[0];
    w.metric = "value";
    w.unit = unit;
    w.lower_is_better = false;
    for (auto& round : w.rounds)
      for (double& x : round) x = value;
    return r;
  };
  Baseline b;
  for (int i = 0; i < 8; ++i) ASSERT_TRUE(AppendRun(b, in("m" + std::to_string(i), "MB/s", 1000 + i), 20, false).ok());
  // "MB/sec" is the same unit spelled another way.
  ASSERT_TRUE(AppendRun(b, in("same", "MB/sec", 1003), 20, false).ok());
  Status st = AppendRun(b, in("g0", "GB/s", 1.004), 20, false);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code, ExitCode::kInputError);
  EXPECT_NE(st.error().message.find("stores 'synthetic/w0' ('value') in 'MB/sec' and this run in 'GB/s'"),
            std::string::npos)
      << st.error().message;
  EXPECT_EQ(b.runs.size(), 9u);
  EXPECT_NE(st.error().message.find("or pass --force"), std::string::npos);
  // --force starts the workload anew in its new unit: its older values go,
  // and with them the runs that held nothing else.
  Baseline forced = b;
  std::vector<std::string> notes;
  ASSERT_TRUE(AppendRun(forced, in("g0", "GB/s", 1.004), 20, true, "", nullptr, &notes).ok());
  EXPECT_EQ(forced.runs.size(), 1u);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("1 workload ('synthetic/w0') changed unit: 9 older values in the other unit were dropped"),
            std::string::npos)
      << notes[0];
  // A history written before the refusal: 8 runs in MB/s, then 8 in GB/s.
  for (int i = 0; i < 8; ++i) b.runs.push_back(in("g" + std::to_string(i), "GB/s", 1.000 + 0.001 * i));
  std::vector<WorkloadHistory> hs = BuildHistories(b, "value", {}, {});
  ASSERT_EQ(hs.size(), 1u);
  EXPECT_EQ(hs[0].values.size(), 8u);
  EXPECT_TRUE(hs[0].steps.empty());
}

// A merged run's shards may run on several CPUs: each workload's own CPU
// model (what merge records) is the one its value is scaled by, as compare
// does. Here the second half of the workloads ran on a 25% slower CPU for
// 8 runs, then on the newest run's CPU: no step, and w0's real one is seen.
TEST(BaselineTest, EachWorkloadsOwnCpuModelIsTheOneItsValueIsScaledBy) {
  Baseline b;
  for (int i = 0; i < 16; ++i) {
    Results r = MakeRun("r" + std::to_string(i), 8, 6, 1e-3, CpuEnv("A"));
    for (size_t w = 0; w < r.workloads.size(); ++w) {
      const bool slow_shard = w >= 4 && i < 8;
      if (w >= 4) r.workloads[w].cpu_model = slow_shard ? "B" : "A";
      for (auto& round : r.workloads[w].rounds)
        for (double& x : round) x *= (slow_shard ? 1.25 : 1.0) * (1.0 + 0.004 * ((i * 7) % 5)) * (w == 0 && i >= 12 ? 1.4 : 1.0);
    }
    b.runs.push_back(std::move(r));
  }
  std::vector<CpuSpeed> cpus;
  const std::vector<WorkloadHistory> hs = BuildHistories(b, "time", {}, {}, 0, &cpus);
  ASSERT_EQ(cpus.size(), 1u);
  EXPECT_EQ(cpus[0].cpu_model, "B");
  EXPECT_TRUE(cpus[0].scaled);
  EXPECT_EQ(cpus[0].runs, 8u);
  EXPECT_NEAR(cpus[0].ratio, 1.25, 0.02);
  for (const WorkloadHistory& h : hs) {
    if (h.name == "synthetic/w0") {
      ASSERT_EQ(h.steps.size(), 1u);
      EXPECT_EQ(h.steps[0].run, 12u);
    } else {
      EXPECT_TRUE(h.steps.empty()) << h.name << ": " << StepText(h.steps.front());
    }
    // The values are the stored medians, not the scaled series.
    if (h.name == "synthetic/w5") {
      EXPECT_GT(h.levels.front() / h.levels.back(), 1.2);
    }
  }
  // The speeds are read from every workload; a filter only chooses what is
  // shown (a filter of one moved workload left it unscaled: a -20% step).
  cpus.clear();
  const std::vector<WorkloadHistory> one = BuildHistories(b, "time", {"synthetic/w5"}, {}, 0, &cpus);
  ASSERT_EQ(one.size(), 1u);
  ASSERT_EQ(cpus.size(), 1u);
  EXPECT_TRUE(cpus[0].scaled);
  EXPECT_TRUE(one[0].steps.empty()) << StepText(one[0].steps.front());
  // A CPU model per workload and run (as many models as values) is read in
  // time and memory that grow with the values, not with the models squared.
  Baseline many;
  for (int i = 0; i < 300; ++i) {
    Results r = MakeRun("m" + std::to_string(i), 6, 6, 1e-3, CpuEnv("A"));
    for (size_t w = 0; w < r.workloads.size(); ++w) r.workloads[w].cpu_model = "cpu-" + std::to_string(i * 6 + w);
    many.runs.push_back(std::move(r));
  }
  cpus.clear();
  EXPECT_EQ(BuildHistories(many, "time", {}, {}, 0, &cpus).size(), 6u);
  EXPECT_EQ(cpus.size(), 1800u);  // every model but the newest run's own, none reachable
}

// A level of 0 (a throughput or a count that fell to 0) is a level: the
// series is searched as measured, the fall is a step "to 0", and the
// values kept are the stored ones.
TEST(BaselineTest, ALevelOfZeroIsAStepNotAGap) {
  Baseline b;
  for (int i = 0; i < 20; ++i) {
    Results r = MakeRun("r" + std::to_string(i), 1, 6, 1e-3, CpuEnv("A"));
    WorkloadResult& w = r.workloads[0];
    w.metric = "value";
    w.unit = "ops/sec";
    w.lower_is_better = false;
    for (auto& round : w.rounds)
      for (double& x : round) x = i < 12 ? 1000.0 : 0.0;
    b.runs.push_back(std::move(r));
  }
  const std::vector<WorkloadHistory> hs = BuildHistories(b, "value", {}, {});
  ASSERT_EQ(hs.size(), 1u);
  EXPECT_FALSE(hs[0].log_scale);
  ASSERT_EQ(hs[0].levels.size(), 20u);
  EXPECT_EQ(hs[0].levels.front(), 1000.0);
  EXPECT_EQ(hs[0].levels.back(), 0.0);
  ASSERT_EQ(hs[0].steps.size(), 1u);
  EXPECT_EQ(hs[0].steps[0].run, 12u);
  EXPECT_EQ(StepText(hs[0].steps[0]), "to 0");
  HistoryStep from_zero;
  from_zero.ratio = std::numeric_limits<double>::infinity();
  EXPECT_EQ(StepText(from_zero), "from 0");
  // Beyond the doubles on a log scale: the factor as a power of ten.
  HistoryStep huge;
  huge.log_ratio = 317 * std::log(10.0);
  huge.ratio = std::exp(huge.log_ratio);
  EXPECT_EQ(StepText(huge), "×1.00e+317");
  huge.log_ratio = 316.999999 * std::log(10.0);  // a mantissa that rounds up to 10.00
  EXPECT_EQ(StepText(huge), "×1.00e+317");
  huge.log_ratio = -317 * std::log(10.0);
  huge.ratio = 0;
  EXPECT_EQ(StepText(huge), "×1.00e-317");
}

// The search stops at max_change_points and says so: a staircase of 13
// steps with a cap of 10 is marked capped, one of 3 is not.
TEST(BaselineTest, AHistoryWithMoreStepsThanTheSearchTakesSaysItStopped) {
  auto staircase = [](int levels) {
    Baseline b;
    for (int i = 0; i < levels * 8; ++i)
      b.runs.push_back(MakeRun("r" + std::to_string(i), 1, 6, 1e-3 * std::pow(1.2, i / 8), CpuEnv("A")));
    return b;
  };
  std::vector<WorkloadHistory> hs = BuildHistories(staircase(14), "time", {}, {});
  ASSERT_EQ(hs.size(), 1u);
  EXPECT_EQ(hs[0].steps.size(), 10u);
  EXPECT_TRUE(hs[0].search_capped);
  hs = BuildHistories(staircase(4), "time", {}, {});
  EXPECT_EQ(hs[0].steps.size(), 3u);
  EXPECT_FALSE(hs[0].search_capped);
}

// A runner class whose machines changed CPU: the history reads the older
// CPU's runs on the newest one's scale, so the change of machine is no step
// and a change of the code on one machine still is.
TEST(BaselineTest, AHistoryAcrossCpuModelsIsReadOnTheNewestCpusScale) {
  auto history = [](int workloads, int suite_step_at = -1) {
    Baseline b;
    for (int i = 0; i < 16; ++i) {
      const bool newer = i >= 8;
      Results r = MakeRun("r" + std::to_string(i), workloads, 6, newer ? 1.25e-3 : 1e-3,
                          CpuEnv(newer ? "Intel Xeon 8370C" : "AMD EPYC 7763"));
      const double suite = suite_step_at >= 0 && i >= suite_step_at ? 1.2 : 1.0;  // every workload
      for (WorkloadResult& w : r.workloads)
        for (auto& round : w.rounds)
          for (double& x : round) x *= suite * (1.0 + 0.004 * ((i * 7) % 5));  // a little noise between runs
      // w0 gets 40% slower at run 13, on the newer CPU.
      if (i >= 12)
        for (auto& round : r.workloads[0].rounds)
          for (double& x : round) x *= 1.4;
      b.runs.push_back(std::move(r));
    }
    return b;
  };
  std::vector<CpuSpeed> cpus;
  std::vector<WorkloadHistory> hs = BuildHistories(history(6), "time", {}, {}, 0, &cpus);
  ASSERT_EQ(cpus.size(), 1u);
  EXPECT_TRUE(cpus[0].scaled);
  EXPECT_NEAR(cpus[0].ratio, 0.8, 0.02);
  EXPECT_EQ(cpus[0].runs, 8u);
  ASSERT_EQ(hs.size(), 6u);
  for (const WorkloadHistory& h : hs) {
    if (h.name == "synthetic/w0") {
      ASSERT_EQ(h.steps.size(), 1u) << h.name;
      EXPECT_EQ(h.steps[0].run, 12u);
      EXPECT_NEAR(h.steps[0].ratio, 1.4, 0.05);
    } else {
      EXPECT_TRUE(h.steps.empty()) << h.name;
    }
  }
  const std::vector<std::string> lines = CpuSpeedLines(cpus, "Intel Xeon 8370C");
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("8 runs on 'AMD EPYC 7763' are read on the scale of the newest run's CPU"),
            std::string::npos)
      << lines[0];
  // A change of the whole suite two runs after the change of CPU is the
  // code's: the CPU's speed is read where the CPUs meet, not over all runs.
  cpus.clear();
  hs = BuildHistories(history(6, 10), "time", {}, {}, 0, &cpus);
  ASSERT_EQ(cpus.size(), 1u);
  EXPECT_NEAR(cpus[0].ratio, 0.8, 0.02);
  for (const WorkloadHistory& h : hs) {
    if (h.name == "synthetic/w0") continue;  // its own step at run 12 is 2 runs on
    ASSERT_EQ(h.steps.size(), 1u) << h.name;
    EXPECT_EQ(h.steps.front().run, 10u) << h.name;
    EXPECT_NEAR(h.steps.front().ratio, 1.2, 0.04) << h.name;
  }
  // Three CPUs in a row: the oldest never meets the newest, and is reached
  // through the one between them.
  Baseline three;
  for (int i = 0; i < 18; ++i) {
    const char* model = i < 6 ? "A" : i < 12 ? "B" : "C";
    Results r = MakeRun("t" + std::to_string(i), 6, 6, i < 6 ? 1e-3 : i < 12 ? 1.25e-3 : 1.5e-3, CpuEnv(model));
    for (WorkloadResult& w : r.workloads)
      for (auto& round : w.rounds)
        for (double& x : round) x *= 1.0 + 0.004 * ((i * 7) % 5);
    three.runs.push_back(std::move(r));
  }
  cpus.clear();
  hs = BuildHistories(three, "time", {}, {}, 0, &cpus);
  ASSERT_EQ(cpus.size(), 2u);
  EXPECT_EQ(cpus[0].cpu_model, "A");
  EXPECT_TRUE(cpus[0].scaled && cpus[1].scaled);
  EXPECT_NEAR(cpus[0].ratio, 1 / 1.5, 0.02);
  EXPECT_NEAR(cpus[1].ratio, 1.25 / 1.5, 0.02);
  for (const WorkloadHistory& h : hs) EXPECT_TRUE(h.steps.empty()) << h.name;
  // The oldest CPU meets the next in 2 workloads only: no CPU is scaled,
  // for scaling B alone would make a step at A to B that is neither the
  // raw one nor none.
  for (size_t i = 0; i < 6; ++i)
    std::erase_if(three.runs[i].workloads, [](const WorkloadResult& w) {
      return w.name != "synthetic/w0" && w.name != "synthetic/w1";
    });
  cpus.clear();
  hs = BuildHistories(three, "time", {}, {}, 0, &cpus);
  ASSERT_EQ(cpus.size(), 2u);
  EXPECT_FALSE(cpus[0].scaled || cpus[1].scaled);
  EXPECT_EQ(cpus[0].workloads, 2u);
  EXPECT_NE(CpuSpeedLines(cpus, "C")[0].find("this one at most in 2 workloads"), std::string::npos)
      << CpuSpeedLines(cpus, "C")[0];
  // Two workloads cannot tell a CPU's speed from the code's: left as
  // measured, and the sentence says a step may be the CPU's.
  cpus.clear();
  hs = BuildHistories(history(2), "time", {}, {}, 0, &cpus);
  ASSERT_EQ(cpus.size(), 1u);
  EXPECT_FALSE(cpus[0].scaled);
  EXPECT_NE(CpuSpeedLines(cpus, "x")[0].find("may be the CPU's"), std::string::npos);
}

TEST(BaselineTest, RefusesOtherEnvironmentUnlessForced) {
  Baseline b;
  ASSERT_TRUE(AppendRun(b, MakeRun("r1"), 5, false).ok());
  Results other = MakeRun("r2", 2, 6, 1e-3, CpuEnv("AMD EPYC 7763 64-Core Processor", 4));
  Status st = AppendRun(b, other, 5, false);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code, ExitCode::kInputError);
  EXPECT_NE(st.error().message.find("cpu_model 'Intel(R) Xeon(R) Platinum 8370C CPU @ 2.80GHz' vs "
                                    "'AMD EPYC 7763 64-Core Processor'"), std::string::npos)
      << st.error().message;
  EXPECT_NE(st.error().message.find("cpu_cores 2 vs 4"), std::string::npos);
  EXPECT_NE(st.error().message.find("--force"), std::string::npos);
  EXPECT_NE(st.error().message.find("(baselines/"), std::string::npos) << st.error().message;
  // The path it suggests is beside the file given, not in a baselines/ folder.
  Status beside = AppendRun(b, other, 5, false, "perf-hist/bm/ci.json");
  ASSERT_FALSE(beside.ok());
  EXPECT_NE(beside.error().message.find("(perf-hist/bm/amd-epyc-7763-64-core-processor-4c.json)"), std::string::npos)
      << beside.error().message;
  // ... unless that is the file given: a file named for the run's class that
  // holds another's runs.
  Status named = AppendRun(b, other, 5, false, "h/amd-epyc-7763-64-core-processor-4c.json");
  ASSERT_FALSE(named.ok());
  EXPECT_NE(named.error().message.find("this file is named for environment 'amd-epyc-7763-64-core-processor-4c' but "
                                       "holds another's runs"),
            std::string::npos)
      << named.error().message;
  EXPECT_EQ(b.runs.size(), 1u);
  // --force re-keys the history and drops the runs of the old environment.
  int dropped = -1;
  ASSERT_TRUE(AppendRun(b, other, 5, true, "", &dropped).ok());
  EXPECT_EQ(b.runs.size(), 1u);
  EXPECT_EQ(dropped, 1);
  EXPECT_EQ(b.runs.back().run.run_id, "r2");
  EXPECT_EQ(b.environment_key, "amd-epyc-7763-64-core-processor-4c");
}

// A history keeps one suite: a run naming none is refused, and so is
// another suite's run when the file's own suite field is empty (its runs
// name it): taken as a new history, it was relabelled and then unreadable.
TEST(BaselineTest, OneSuitePerHistoryEvenWhenItsFileNamesNone) {
  Baseline b;
  Results nameless = MakeRun("r0");
  nameless.run.suite.clear();
  Status st = AppendRun(b, nameless, 5, false);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("name no suite"), std::string::npos) << st.error().message;
  Results a = MakeRun("r1");
  a.run.suite = "a";
  ASSERT_TRUE(AppendRun(b, a, 5, false).ok());
  b.suite.clear();
  Results other = MakeRun("r2");
  other.run.suite = "b";
  st = AppendRun(b, other, 5, false);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("results are of suite 'b' but the baseline holds suite 'a'"), std::string::npos)
      << st.error().message;
  EXPECT_EQ(b.runs.size(), 1u);
}

TEST(BaselineTest, GpuHardwareSettingsAndBuildTypeAreAnotherEnvironment) {
  auto gpu_run = [](const std::string& id, double clock, bool ecc) {
    Results r = MakeRun(id);
    r.run.env.gpu.name = "NVIDIA A100";
    r.run.env.gpu.sm_clock_hz = clock;
    r.run.env.gpu.ecc_enabled = ecc;
    r.run.env.gpu.sm_count = 108;
    return r;
  };
  Baseline b;
  ASSERT_TRUE(AppendRun(b, gpu_run("r1", 1410e6, false), 5, false).ok());
  ASSERT_TRUE(AppendRun(b, gpu_run("r2", 1400e6, false), 5, false).ok());  // within 2%
  Status st = AppendRun(b, gpu_run("r3", 1000e6, true), 5, false);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("gpu.sm_clock_hz 1400 MHz vs 1000 MHz; gpu.ecc_enabled off vs on"),
            std::string::npos)
      << st.error().message;
  Results debug = MakeRun("d1");
  debug.run.source_context["library_build_type"] = "debug";
  Baseline c;
  Results release = MakeRun("r1");
  release.run.source_context["library_build_type"] = "release";
  ASSERT_TRUE(AppendRun(c, release, 5, false).ok());
  st = AppendRun(c, debug, 5, false);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("library_build_type 'release' vs 'debug'"), std::string::npos);
}

TEST(BaselineTest, RefusesShardsOtherSuitesAndDuplicates) {
  Baseline b;
  ASSERT_TRUE(AppendRun(b, MakeRun("r1"), 5, false).ok());
  Results shard = MakeRun("r2");
  shard.run.shard = "1/2";
  Status st = AppendRun(b, shard, 5, false);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("gpugate merge"), std::string::npos);
  // A partial merge was merged already: what is missing is a shard.
  shard.run.shard = "partial:1,2/3";
  st = AppendRun(b, shard, 5, false);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("a partial merge (partial:1,2/3)"), std::string::npos) << st.error().message;
  EXPECT_NE(st.error().message.find("without --allow-partial"), std::string::npos) << st.error().message;
  Results empty_shard = MakeRun("r3");
  empty_shard.run.shard = "";  // `gpugate run` without --shard
  EXPECT_TRUE(AppendRun(b, empty_shard, 5, false).ok());
  Results other = MakeRun("r4");
  other.run.suite = "gpu";
  EXPECT_FALSE(AppendRun(b, other, 5, true).ok());
  st = AppendRun(b, MakeRun("r1"), 5, false);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("already"), std::string::npos);
}

// A run that measured nothing (a GPU suite on a runner without a device)
// must not take a slot of the history; one measured workload is enough.
TEST(BaselineTest, RefusesARunThatMeasuredNothing) {
  Baseline b;
  ASSERT_TRUE(AppendRun(b, MakeRun("r1"), 2, false).ok());
  ASSERT_TRUE(AppendRun(b, MakeRun("r2"), 2, false).ok());
  Results nothing = MakeRun("r3", 3);
  for (WorkloadResult& w : nothing.workloads) {
    w.status = WorkloadStatus::kSkipped;
    w.rounds.clear();
  }
  nothing.workloads[2].status = WorkloadStatus::kFailed;
  Status st = AppendRun(b, nothing, 2, false);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message,
            "results of run 'r3' measured no workload (2 skipped, 1 failed): nothing to add to the "
            "history, which is left unchanged");
  ASSERT_EQ(b.runs.size(), 2u);  // r1 was not pushed out
  EXPECT_EQ(b.runs[0].run.run_id, "r1");
  Results empty = MakeRun("r4", 0);
  EXPECT_FALSE(AppendRun(b, empty, 2, false).ok());
  // "ok" without a sample measured nothing either.
  Results no_samples = MakeRun("r6", 2);
  for (WorkloadResult& w : no_samples.workloads) w.rounds = {{}};
  Status bare = AppendRun(b, no_samples, 2, false);
  ASSERT_FALSE(bare.ok());
  EXPECT_EQ(bare.error().message,
            "results of run 'r6' measured no workload (0 skipped, 0 failed, 2 without a sample): nothing to "
            "add to the history, which is left unchanged");
  Results one = MakeRun("r5", 3);
  one.workloads[0].status = WorkloadStatus::kSkipped;
  one.workloads[1].status = WorkloadStatus::kFailed;
  EXPECT_TRUE(AppendRun(b, one, 2, false).ok());
}

TEST(BaselineTest, AGzippedHistoryIsNamedWhereItIsKeptUncompressed) {
  const std::string dir = testing::MakeTempDir();
  testing::WriteAll(dir + "/b.json.gz", std::string("\x1f\x8b\x08\x00rest", 8));
  Result<Baseline> b = ReadBaselineFile(dir + "/b.json.gz");
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.error().code, ExitCode::kInputError);
  EXPECT_EQ(b.error().message,
            dir + "/b.json.gz: a gzip file; a baseline history is read and written uncompressed "
                  "here (gunzip it first; compare and gate read it compressed)");
  testing::RemoveTree(dir);
}

TEST(BaselineTest, RejectsBadFiles) {
  auto check = [](const std::string& text, const std::string& want) {
    auto r = BaselineFromJson(text, "b.json");
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_EQ(r.error().code, ExitCode::kInputError);
    EXPECT_NE(r.error().message.find(want), std::string::npos) << r.error().message;
  };
  check("[1]", "b.json:1:1: expected a JSON object");
  check("{\"schema\": \"gpugate/baseline/v2\", \"suite\": \"s\", \"environment_key\": \"k\", \"runs\": []}",
        "b.json:1:2: schema: unsupported baseline schema 'gpugate/baseline/v2' (this gpugate reads v1)");
  // Files before the one schema convention also name the major as an integer.
  check("{\"schema\": \"gpugate/baseline/v1\", \"version\": 2, \"suite\": \"s\", \"environment_key\": \"k\", \"runs\": []}",
        "unsupported baseline version 2");
  EXPECT_TRUE(BaselineFromJson("{\"schema\": \"gpugate/baseline/v1\", \"version\": 1, \"suite\": \"s\", "
                               "\"environment_key\": \"k\", \"runs\": []}",
                               "b.json")
                  .ok());
  EXPECT_EQ(BaselineToJson(Baseline{}).find("\"version\""), std::string::npos);
  check("{\"schema\": \"gpugate/results/v1\"}", "this is a results file");
  check("{\"schema\": \"gpugate/baseline/v1\", \"suite\": \"s\", \"environment_key\": \"k\"}", "missing 'runs'");
  check("{\"schema\": \"gpugate/baseline/v1\", \"suite\": 3, \"environment_key\": \"k\", \"runs\": []}",
        "b.json:1:35: suite: expected a string");
  check("{\"schema\": \"gpugate/baseline/v1\",\n \"suite\": \"s\", \"environment_key\": \"k\", \"runs\": [7]}",
        "b.json:2:49: runs[0]: expected a results object");
  // A UTF-8 byte order mark is no part of the document nor of its columns.
  EXPECT_TRUE(BaselineFromJson("\xEF\xBB\xBF{\"schema\": \"gpugate/baseline/v1\", \"suite\": \"s\", "
                               "\"environment_key\": \"k\", \"runs\": []}",
                               "b.json")
                  .ok());
  check("\xEF\xBB\xBF{\"schema\": \"gpugate/baseline/v1\", \"suite\": 3, \"environment_key\": \"k\", \"runs\": []}",
        "b.json:1:35: suite: expected a string");
  // Only one: a second is invalid JSON, and 6000 of them are no crash.
  std::string marks;
  for (int i = 0; i < 6000; ++i) marks += "\xEF\xBB\xBF";
  check(marks + "{}", "b.json:1:");
  check("\xEF\xBB\xBF\xEF\xBB\xBF{}", "b.json:1:1: invalid JSON");
  // Columns count characters, as editors do: "日本" is 2 columns, 6 bytes.
  check("{\"schema\": \"gpugate/baseline/v1\", \"suite\": \"日本\", \"environment_key\": 4, \"runs\": []}",
        "b.json:1:50: environment_key: expected a string");
  check("{\"schema\": \"gpugate/baseline/v1\", \"suite\": \"日本\", \"environment_key\": \"k\", \"runs\": [7]}",
        "b.json:1:83: runs[0]: expected a results object");
  check("{\"schema\": \"gpugate/baseline/v1\", \"suite\": \"s\", \"environment_key\": \"k\", \"runs\": [",
        "b.json:1:82: unexpected end of file (truncated?): Invalid value.");
  check("{\"schema\": \"gpugate/baseline/v1\", \"suite\": \"s\", \"environment_key\": \"k\", \"runs\": [}]}",
        "b.json:1:82: invalid JSON: Invalid value.");
  check(std::string("{\"schema\": \"gpugate/baseline/v1\", \"suite\": \"s\", \"environment_key\": "
                    "\"k\", \"runs\": []}\n\0junk", 89),
        "b.json:2:1: a NUL byte, which JSON text cannot hold (binary data?)");
  // An error inside a run points into the baseline file.
  Baseline b;
  ASSERT_TRUE(AppendRun(b, MakeRun("r1"), 5, false).ok());
  std::string text = BaselineToJson(b);
  size_t at = text.find("\"run_id\": \"r1\"");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 14, "\"run_id\": 17  ");
  int line = 1;
  for (size_t i = 0; i < at; ++i) line += text[i] == '\n';
  auto r = BaselineFromJson(text, "b.json");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("b.json:" + std::to_string(line) + ":"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("(in runs[0])"), std::string::npos);
}

TEST(BaselineTest, AFileHoldsRunsOfOneSuiteEachOnce) {
  Baseline b;
  ASSERT_TRUE(AppendRun(b, MakeRun("r1"), 5, false).ok());
  ASSERT_TRUE(AppendRun(b, MakeRun("r2"), 5, false).ok());
  ASSERT_TRUE(BaselineFromJson(BaselineToJson(b), "b.json").ok());

  Baseline mixed = b;
  mixed.runs[1].run.suite = "other";
  std::string text = BaselineToJson(mixed);
  auto r = BaselineFromJson(text, "b.json");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("runs[1] is a run of suite 'other', but the baseline holds suite '" +
                                   b.suite + "'"),
            std::string::npos)
      << r.error().message;
  // Positioned at the run's opening brace.
  const size_t run1 = text.find("{", text.find("},\n    {") + 1);
  int line = 1;
  for (size_t i = 0; i < run1; ++i) line += text[i] == '\n';
  EXPECT_EQ(r.error().message.rfind("b.json:" + std::to_string(line) + ":5: ", 0), 0u) << r.error().message;

  Baseline twice = b;
  twice.runs[1].run.run_id = "r1";
  r = BaselineFromJson(BaselineToJson(twice), "b.json");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("runs[1] has run id 'r1', as runs[0] does"), std::string::npos)
      << r.error().message;
}

TEST(BaselineTest, RepeatedTopLevelKeysAndDeepNestingAreRefused) {
  auto r = BaselineFromJson(
      "{\"schema\": \"gpugate/baseline/v1\", \"suite\": \"a\", \"suite\": \"b\", \"environment_key\": \"k\", \"runs\": []}",
      "b.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "b.json:1:49: duplicate key 'suite'");
  r = BaselineFromJson("{\"x\": " + std::string(2000, '[') + std::string(2000, ']') + "}", "b.json");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("nesting deeper than 512 levels"), std::string::npos);
}

TEST(BaselineTest, FileRoundTripIsAtomic) {
  std::string dir = testing::MakeTempDir();
  std::string path = dir + "/b.json";
  Baseline b;
  ASSERT_TRUE(AppendRun(b, MakeRun("r1"), 5, false).ok());
  ASSERT_TRUE(WriteBaselineFile(path, b).ok());
  auto back = ReadBaselineFile(path);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->runs.size(), 1u);
  size_t entries = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) entries += e.is_regular_file();
  EXPECT_EQ(entries, 1u);  // no temp file left behind
  testing::RemoveTree(dir);
}

// A history beyond the input limit could not be read again, not even to
// prune it: it is not written, and the old file stays.
TEST(BaselineTest, AHistoryItsReadersWouldRefuseIsNotWritten) {
  std::string dir = testing::MakeTempDir();
  std::string path = dir + "/b.json";
  Baseline b;
  ASSERT_TRUE(AppendRun(b, MakeRun("r1"), 5, false).ok());
  ASSERT_TRUE(WriteBaselineFile(path, b).ok());
  const std::string before = testing::ReadAll(path);
  ASSERT_TRUE(AppendRun(b, MakeRun("r2"), 5, false).ok());
  const std::string limit = std::to_string(before.size() + before.size() / 2);
  ::setenv("GPUGATE_MAX_INPUT_BYTES", limit.c_str(), 1);
  Status st = WriteBaselineFile(path, b);
  ::unsetenv("GPUGATE_MAX_INPUT_BYTES");
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code, ExitCode::kInputError);
  EXPECT_NE(st.error().message.find("with 2 runs, beyond the "), std::string::npos) << st.error().message;
  EXPECT_NE(st.error().message.find("keep fewer runs (--keep)"), std::string::npos);
  EXPECT_EQ(testing::ReadAll(path), before);
  testing::RemoveTree(dir);
}

/// Version k of the baseline the writer child produces: (k % 4) + 1 runs whose
/// ids and first sample encode k.
Baseline Version(int k) {
  Baseline b;
  for (int i = 0; i <= k % 4; ++i) {
    Results r = MakeRun("v" + std::to_string(k) + "-" + std::to_string(i), 60, 200, 1e-3 + k * 1e-6);
    EXPECT_TRUE(AppendRun(b, r, 10, false).ok());
  }
  return b;
}

TEST(BaselineTest, SurvivesSigkillMidWrite) {
  std::string dir = testing::MakeTempDir();
  std::string path = dir + "/b.json";
  ASSERT_TRUE(WriteBaselineFile(path, Version(0)).ok());
  // Kill after 0.2 to 4 times the time one write takes on this machine (a
  // sanitized build writes several times slower), so kills land before,
  // during and after the rename and the writer gets through several versions.
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_TRUE(WriteBaselineFile(path, Version(3)).ok());
  const int64_t write_us = std::max<int64_t>(
      1000, std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0).count());
  std::mt19937 rng(20261122);
  const int kKills = 25;
  int versions_seen = 0, last_k = -1;
  for (int kill = 0; kill < kKills; ++kill) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      for (int k = 1;; ++k)
        if (!WriteBaselineFile(path, Version(k)).ok()) _exit(3);
    }
    std::this_thread::sleep_for(std::chrono::microseconds(write_us / 5 + static_cast<int64_t>(rng() % (4 * write_us))));
    ASSERT_EQ(::kill(pid, SIGKILL), 0);
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFSIGNALED(status)) << "writer ended on its own: " << status;
    auto b = ReadBaselineFile(path);
    ASSERT_TRUE(b.ok()) << "after kill " << kill << ": " << b.error().message;
    ASSERT_FALSE(b->runs.empty());
    // Identify the version from the first run id and check it is complete.
    const std::string& id = b->runs[0].run.run_id;
    int k = std::stoi(id.substr(1, id.find('-') - 1));
    ASSERT_EQ(b->runs.size(), static_cast<size_t>(k % 4 + 1)) << id;
    for (size_t i = 0; i < b->runs.size(); ++i) {
      EXPECT_EQ(b->runs[i].run.run_id, "v" + std::to_string(k) + "-" + std::to_string(i));
      ASSERT_EQ(b->runs[i].workloads.size(), 60u);
      EXPECT_EQ(AllSamples(b->runs[i].workloads[59]).size(), 200u);
    }
    EXPECT_EQ(BaselineToJson(*b), BaselineToJson(Version(k)));
    if (k != last_k) ++versions_seen;
    last_k = k;
    // The killed writer may leave its temp file (never the target); the
    // next write removes it, as its lock died with the writer.
    int temps = 0;
    for (const auto& e : std::filesystem::directory_iterator(dir)) temps += e.path().filename() != "b.json";
    EXPECT_LE(temps, 1) << "after kill " << kill;
  }
  ASSERT_TRUE(WriteBaselineFile(path, Version(0)).ok());
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), std::filesystem::directory_iterator()), 1)
      << "temp files left after the next write";
  std::printf("baseline SIGKILL test: %d kills, file intact every time, %d distinct versions observed\n", kKills,
              versions_seen);
  EXPECT_GE(versions_seen, 3);
  testing::RemoveTree(dir);
}

}  // namespace
}  // namespace gpugate
