// The rule engine with the built-in rules of policies/default.yaml: each rule
// fires on a realistic input (the fixture traces of real PyTorch runs, a
// run's workload results) and stays silent on one that is fine.
#include "rules/engine.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "config/policy.h"
#include "static/occupancy.h"
#include "trace/to_results.h"
#include "trace/trace_test_data.h"

namespace gpugate {
namespace {

std::string Trace(const char* file) { return std::string(GPUGATE_SOURCE_DIR) + "/tests/data/traces/" + file; }

Results FromTrace(const char* file) {
  Result<Results> r = TraceToResults(Trace(file));
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return r.ok() ? std::move(r).value() : Results{};
}

std::vector<Suggestion> Fired(const Results& current, const std::string& rule,
                              const Verdicts* verdicts = nullptr) {
  std::vector<Suggestion> out;
  for (Suggestion& s : EvaluateRules(DefaultPolicy().expr_rules, current, verdicts))
    if (s.rule == rule) out.push_back(std::move(s));
  return out;
}

const ExprRule& Builtin(const std::string& id) {
  for (const ExprRule& r : DefaultPolicy().expr_rules)
    if (r.id == id) return r;
  static ExprRule none;
  ADD_FAILURE() << "no built-in rule " << id;
  return none;
}

TEST(RuleEngine, EveryBuiltinRuleHasMessageSourceAndScope) {
  const std::vector<ExprRule>& rules = DefaultPolicy().expr_rules;
  EXPECT_GE(rules.size(), 11u);
  for (const ExprRule& r : rules) {
    EXPECT_FALSE(r.source.empty()) << r.id;
    EXPECT_FALSE(r.message.parts.empty()) << r.id;
    EXPECT_TRUE(r.hint.has_value()) << r.id;
  }
  EXPECT_EQ(Builtin("small-grid").scope, RuleScope::kKernel);
  EXPECT_EQ(Builtin("pageable-memcpy").scope, RuleScope::kTrace);
  EXPECT_EQ(Builtin("noisy-workload").scope, RuleScope::kWorkload);
}

// kineto_cuda_event_sync.json: a 1-block, 1-thread spin kernel takes 73% of
// the kernel time on a 108-SM A100.
// docs/rules.md's built-in table says, per rule, exactly which values the
// evidence can show: the terms of its condition (a false guard never shows).
TEST(RuleEngine, TheDocsEvidenceColumnListsWhatTheEvidenceShows) {
  std::ifstream in(std::string(GPUGATE_SOURCE_DIR) + "/docs/rules.md");
  ASSERT_TRUE(in) << "docs/rules.md";
  std::map<std::string, std::string> column;  // rule id -> evidence column
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("| `", 0) != 0) continue;
    std::vector<std::string> cols;
    for (size_t at = 0, bar; (bar = line.find(" | ", at)) != std::string::npos; at = bar + 3)
      cols.push_back(line.substr(at, bar - at));
    if (cols.size() < 5) continue;
    column[cols[0].substr(3, cols[0].size() - 4)] = cols[4];
  }
  for (const ExprRule& r : DefaultPolicy().expr_rules) {
    std::string expected;
    for (const std::string& t : rules::TermsUsed(r.when))
      if (t != "kernel.communication") expected += (expected.empty() ? "`" : ", `") + t + "`";
    ASSERT_TRUE(column.count(r.id)) << r.id << " is not in docs/rules.md's built-in table";
    EXPECT_EQ(column[r.id], expected) << r.id;
  }
}

TEST(RuleEngine, SmallGridAndPartialWarpsFireOnTheSpinKernel) {
  const Results r = FromTrace("kineto_cuda_event_sync.json");
  std::vector<Suggestion> small = Fired(r, "small-grid");
  ASSERT_EQ(small.size(), 2u);  // the spin kernel and the 1-block reduction
  const Suggestion& spin = small[0];
  EXPECT_NE(spin.kernel.find("spin_kernel"), std::string::npos) << spin.kernel;
  EXPECT_EQ(spin.priority, 1);
  EXPECT_NE(spin.message.find("a grid of 1 block(s) on a GPU with 108 SMs: 107 SMs sit idle"),
            std::string::npos) << spin.message;
  EXPECT_NE(spin.evidence.find("kernel.grid_blocks = 1"), std::string::npos) << spin.evidence;
  EXPECT_NE(spin.evidence.find("device.sms = 108"), std::string::npos) << spin.evidence;
  ASSERT_TRUE(spin.estimated_speedup.has_value());
  // share 36/49 of the kernel time x 107/108 idle SMs.
  EXPECT_NEAR(*spin.estimated_speedup, 36.0 / 49.0 * 107.0 / 108.0, 0.02);
  std::vector<Suggestion> warps = Fired(r, "partial-warps");
  ASSERT_EQ(warps.size(), 1u);  // 1 thread per block; the others use 128 and 512
  EXPECT_NE(warps[0].kernel.find("spin_kernel"), std::string::npos);
}

// A collective launches one block per channel by design: the kernel shape
// rules leave NCCL kernels alone (their grid is not the user's to change).
TEST(RuleEngine, KernelShapeRulesLeaveCommunicationKernelsAlone) {
  Results r = FromTrace("kineto_cuda_event_sync.json");
  ASSERT_FALSE(Fired(r, "small-grid").empty());
  for (WorkloadResult& w : r.workloads)
    for (KernelResult& k : w.kernels) k.name = "ncclDevKernel_AllReduce_Sum_f32_RING_LL " + k.name;
  EXPECT_TRUE(Fired(r, "small-grid").empty());
  EXPECT_TRUE(Fired(r, "partial-warps").empty());
}

// A trace of two GPUs: each device's workload is judged on its own GPU.
TEST(RuleEngine, EachDeviceOfATraceIsJudgedOnItsOwnGpu) {
  Results r;
  r.run.env.gpu.name = "NVIDIA A100";
  r.run.env.gpu.sm_count = 108;
  r.run.env.gpu.compute_capability = "8.0";
  WorkloadResult w;
  w.name = "gpu1";
  w.kind = "trace";
  w.rounds = {{1e-3}};
  w.summary.n = 1;
  KernelResult k;
  k.name = "on_v100";
  k.count = 1;
  k.total_s = 1e-3;
  k.metrics = {{"grid_blocks", 90}, {"block_threads", 128}};
  w.kernels.push_back(k);
  r.workloads.push_back(w);
  ASSERT_EQ(Fired(r, "small-grid").size(), 1u);  // 90 blocks on the run's 108 SMs
  r.workloads[0].gpu = GpuInfo{};
  r.workloads[0].gpu->name = "Tesla V100";
  r.workloads[0].gpu->sm_count = 80;
  EXPECT_TRUE(Fired(r, "small-grid").empty());  // 90 blocks on its own 80 SMs
}

// kineto_simple_add_a100.json: every heavy kernel launches hundreds of blocks
// of 128 or 256 threads.
TEST(RuleEngine, KernelRulesStaySilentOnWellShapedKernels) {
  const Results r = FromTrace("kineto_simple_add_a100.json");
  EXPECT_TRUE(Fired(r, "small-grid").empty());
  EXPECT_TRUE(Fired(r, "partial-warps").empty());
  EXPECT_TRUE(Fired(r, "launch-overhead").empty());
}

TEST(RuleEngine, PageableMemcpyFiresOnPageableCopiesOnly) {
  std::vector<Suggestion> s = Fired(FromTrace("kineto_simple_add_a100.json"), "pageable-memcpy");
  ASSERT_EQ(s.size(), 1u);
  EXPECT_NE(s[0].message.find("copies"), std::string::npos);
  EXPECT_NE(s[0].evidence.find("trace.pageable_memcpys = 16"), std::string::npos) << s[0].evidence;
  // Only device-to-device copies in the ResNet training trace.
  EXPECT_TRUE(Fired(FromTrace("kineto_ns_resolution_rank0.json.gz"), "pageable-memcpy").empty());
}

// Three pageable copies of which one states its size: the bytes are a lower
// bound, said as one ("3 copies (977 KiB)" read as the copies' total),
// rounded down (977 KiB would be 1,000,448 B).
// None with a size: unknown, not 0 B.
TEST(RuleEngine, CopiesWithoutASizeMakeTheirBytesALowerBound) {
  auto trace = [](bool first_sized) {
    std::string t = R"({"traceEvents":[)";
    for (int i = 0; i < 3; ++i)
      t += std::string(i ? "," : "") +
           R"J({"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD (Pageable -> Device)","pid":0,"tid":7,"ts":)J" +
           std::to_string(200 * i) + R"J(,"dur":100,"args":{"device":0,"stream":7)J" +
           (i == 0 && first_sized ? R"J(,"bytes":1000000)J" : "") + "}}";
    Result<Results> r = TraceTextToResults(t + "]}", "copies.json");
    EXPECT_TRUE(r.ok()) << r.error().message;
    return r.ok() ? *r : Results{};
  };
  std::vector<Suggestion> s = Fired(trace(true), "pageable-memcpy");
  ASSERT_EQ(s.size(), 1u);
  EXPECT_NE(s[0].message.find("3 copies (≥ 976 KiB)"), std::string::npos) << s[0].message;
  // A rule can ask whether the total is exact; the evidence says "≥".
  Result<Policy> policy = LoadPolicyFromString(
      "version: 1\nrules:\n  - id: exact-copies\n    when: trace.unsized_pageable_memcpys == 0 and trace.pageable_memcpys > 0\n"
      "    message: \"{trace.pageable_memcpy_bytes} exactly\"\n"
      "  - id: bounded-copies\n    when: trace.unsized_pageable_memcpys > 0 and trace.pageable_memcpy_bytes > 512KiB\n"
      "    message: \"{trace.pageable_memcpy_bytes / 2} per half\"\n",
      "p.yaml");
  ASSERT_TRUE(policy.ok()) << policy.error().message;
  std::vector<Suggestion> own;
  for (Suggestion& f : EvaluateRules(policy->expr_rules, trace(true), nullptr))
    if (f.rule.find("copies") != std::string::npos) own.push_back(std::move(f));
  ASSERT_EQ(own.size(), 1u);
  EXPECT_EQ(own[0].rule, "bounded-copies");
  EXPECT_EQ(own[0].message, "≥ 488 KiB per half");
  EXPECT_NE(own[0].evidence.find("trace.pageable_memcpy_bytes ≥ 976 KiB"), std::string::npos) << own[0].evidence;
  EXPECT_NE(own[0].evidence.find("trace.unsized_pageable_memcpys = 2"), std::string::npos) << own[0].evidence;
  s = Fired(trace(false), "pageable-memcpy");
  ASSERT_EQ(s.size(), 1u);
  EXPECT_NE(s[0].message.find("3 copies (?)"), std::string::npos) << s[0].message;
}

// A results file written before the count of unsized copies existed: its
// byte sum may have left copies out, so it is a bound (unknown when 0).
TEST(RuleEngine, AnOlderResultsFilesCopyBytesAreABound) {
  const std::string t =
      R"({"traceEvents":[)"
      R"J({"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD (Pageable -> Device)","pid":0,"tid":7,"ts":0,"dur":100,"args":{"device":0,"stream":7,"bytes":1000000}},)J"
      R"J({"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD (Pageable -> Device)","pid":0,"tid":7,"ts":200,"dur":100,"args":{"device":0,"stream":7,"bytes":24}})J"
      "]}";
  Result<Results> r = TraceTextToResults(t, "copies.json");
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->workloads.size(), 1u);
  std::vector<Suggestion> s = Fired(*r, "pageable-memcpy");
  ASSERT_EQ(s.size(), 1u);
  EXPECT_NE(s[0].message.find("2 copies (977 KiB)"), std::string::npos) << s[0].message;
  auto& c = r->workloads[0].counters;
  c.erase("pageable_memcpy_unsized_count");
  s = Fired(*r, "pageable-memcpy");
  ASSERT_EQ(s.size(), 1u);
  EXPECT_NE(s[0].message.find("2 copies (≥ 976 KiB)"), std::string::npos) << s[0].message;
  c["pageable_memcpy_bytes"] = 0;
  s = Fired(*r, "pageable-memcpy");
  ASSERT_EQ(s.size(), 1u);
  EXPECT_NE(s[0].message.find("2 copies (?)"), std::string::npos) << s[0].message;
}

// A copy is a copy by its category, whatever its name says: its bytes and
// its lack of a size count with the other copies.
TEST(RuleEngine, ACopyNamedLikeAMemsetCountsAsACopy) {
  const std::string t =
      R"({"traceEvents":[)"
      R"J({"ph":"X","cat":"gpu_memcpy","name":"Memset (Pageable -> Device)","pid":0,"tid":7,"ts":0,"dur":100,"args":{"device":0,"stream":7,"bytes":4096}},)J"
      R"J({"ph":"X","cat":"gpu_memcpy","name":"Memset","pid":0,"tid":7,"ts":200,"dur":100,"args":{"device":0,"stream":7}},)J"
      R"J({"ph":"X","cat":"gpu_memset","name":"Memset (Device)","pid":0,"tid":7,"ts":400,"dur":100,"args":{"device":0,"stream":7,"bytes":999}})J"
      "]}";
  Result<Results> r = TraceTextToResults(t, "copies.json");
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->workloads.size(), 1u);
  const auto& c = r->workloads[0].counters;
  EXPECT_EQ(c.at("memcpy_count"), 2);
  EXPECT_EQ(c.at("memcpy_bytes"), 4096);
  EXPECT_EQ(c.at("memcpy_unsized_count"), 1);
  EXPECT_EQ(c.at("pageable_memcpy_count"), 1);
  EXPECT_EQ(c.at("pageable_memcpy_bytes"), 4096);
}

// A trace whose GPU waits for its host: 60% idle, 80% of it host-wait.
TEST(RuleEngine, GpuIdleHostWaitFiresWithItsSpeedup) {
  Results r = FromTrace("kineto_simple_add_a100.json");
  ASSERT_FALSE(r.workloads.empty());
  WorkloadResult& w = r.workloads[0];
  const double idle = w.counters.at("idle_fraction");
  const double host = w.counters.at("idle_host_wait_fraction");
  std::vector<Suggestion> s = Fired(r, "gpu-idle-host-wait");
  // The fixture's own figures decide; the rule agrees with them.
  EXPECT_EQ(!s.empty(), idle > 0.30 && host > 0.50) << idle << " " << host;
  w.counters["idle_fraction"] = 0.60;
  w.counters["idle_host_wait_fraction"] = 0.80;
  s = Fired(r, "gpu-idle-host-wait");
  ASSERT_EQ(s.size(), 1u);
  ASSERT_TRUE(s[0].estimated_speedup.has_value());
  EXPECT_NEAR(*s[0].estimated_speedup, 0.48, 1e-9);
  w.counters["idle_host_wait_fraction"] = 0.20;  // idle, but not waiting for the host
  EXPECT_TRUE(Fired(r, "gpu-idle-host-wait").empty());
}

// CUPTI-style kernel results: a 2 us kernel launched 5000 times.
TEST(RuleEngine, LaunchOverheadFiresOnManyTinyLaunches) {
  Results r;
  r.run.env.gpu.sm_count = 108;
  WorkloadResult w;
  w.name = "decode";
  w.rounds = {{1e-2, 1.01e-2}};
  KernelResult tiny, big;
  tiny.name = "add_bias";
  tiny.count = 5000;
  tiny.total_s = 5000 * 2e-6;
  tiny.metrics = {{"grid_blocks", 216}, {"block_threads", 256}};
  big.name = "gemm";
  big.count = 100;
  big.total_s = 100 * 80e-6;
  big.metrics = {{"grid_blocks", 432}, {"block_threads", 256}};
  w.kernels = {tiny, big};
  r.workloads.push_back(w);
  std::vector<Suggestion> s = Fired(r, "launch-overhead");
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].kernel, "add_bias");
  EXPECT_NE(s[0].message.find("launched 5000 times for 2.00 us each"), std::string::npos) << s[0].message;
  r.workloads[0].kernels[0].count = 500;  // fewer launches: not worth a graph
  r.workloads[0].kernels[0].total_s = 500 * 2e-6;
  EXPECT_TRUE(Fired(r, "launch-overhead").empty());
}

// kineto_simple_add_a100.json: cuDNN's 128x64 convolution kernel uses 160
// registers per thread: 3 blocks of 128 threads per SM on sm_80 = 12 of 64
// warps = 18.75%, limited by registers.
TEST(RuleEngine, LowOccupancyFiresOnTheRegisterHeavyCudnnKernel) {
  if (!OccupancyCalculatorAvailable()) GTEST_SKIP() << "built without cuda_occupancy.h";
  std::vector<Suggestion> s = Fired(FromTrace("kineto_simple_add_a100.json"), "low-occupancy");
  const Suggestion* cudnn = nullptr;
  for (const Suggestion& x : s)
    if (x.kernel == "cudnn_ampere_scudnn_128x64_relu_xregs_large_nn_v1") cudnn = &x;
  ASSERT_NE(cudnn, nullptr);
  EXPECT_NE(cudnn->message.find("theoretical occupancy 18.75% at 128 threads per block, limited by registers"),
            std::string::npos) << cudnn->message;
  // The evidence shows both factors of the share threshold, not the raw
  // duration that share() divides.
  EXPECT_EQ(cudnn->evidence,
            "kernel.config_share = 1, kernel.theoretical_occupancy = 0.1875, share(kernel.duration) = 0.1928");
  // The ResNet trace's kernels (V100) keep enough warps resident, or are too
  // small a share of the time.
  for (const Suggestion& x : s) EXPECT_NE(x.kernel.find("elementwise"), 0u) << x.kernel;
}

TEST(RuleEngine, LowOccupancySilentWithoutRegistersOrDevice) {
  Results r = FromTrace("kineto_simple_add_a100.json");
  r.run.env.gpu.compute_capability.reset();
  EXPECT_TRUE(Fired(r, "low-occupancy").empty());
}

// A100 (108 SMs), 256 threads x 32 registers: 8 blocks per SM, 864 blocks a
// wave. 1000 blocks are 1.157 waves: the second wave is 15.7% full.
TEST(RuleEngine, TailEffectFiresOnAPartialLastWave) {
  if (!OccupancyCalculatorAvailable()) GTEST_SKIP() << "built without cuda_occupancy.h";
  Results r;
  r.run.env.gpu.sm_count = 108;
  r.run.env.gpu.compute_capability = "8.0";
  WorkloadResult w;
  w.name = "step";
  w.rounds = {{1e-3, 1e-3}};
  KernelResult k;
  k.name = "scale";
  k.count = 10;
  k.total_s = 10 * 50e-6;
  k.metrics = {{"grid_blocks", 1000}, {"block_threads", 256}, {"registers_per_thread", 32}};
  w.kernels = {k};
  r.workloads = {w};
  std::vector<Suggestion> s = Fired(r, "tail-effect");
  ASSERT_EQ(s.size(), 1u);
  EXPECT_NE(s[0].evidence.find("kernel.waves = 1.157"), std::string::npos) << s[0].evidence;
  ASSERT_TRUE(s[0].estimated_speedup.has_value());
  // (1 - 0.1574) / (1.1574 - 0.1574 + 1) of all the kernel time.
  EXPECT_NEAR(*s[0].estimated_speedup, (1 - 136.0 / 864) / 2.0, 1e-3);
  r.workloads[0].kernels[0].metrics["grid_blocks"] = 1728;  // exactly two waves
  EXPECT_TRUE(Fired(r, "tail-effect").empty());
  r.workloads[0].kernels[0].metrics["grid_blocks"] = 86400;  // 100 waves: the tail is negligible
  EXPECT_TRUE(Fired(r, "tail-effect").empty());
}

// A trace compare: kO goes from 32 to 128 registers per thread at 256
// threads per block on an A100 (sm_80): 8 blocks (64 warps, 100%) per SM
// before, 2 blocks (16 warps, 25%) after. The baseline's occupancy is of its
// own launch on its own GPU, the same way as the current kernel's.
TEST(RuleEngine, OccupancyLostComparesTheLaunchOccupancyOfBothRuns) {
  if (!OccupancyCalculatorAvailable()) GTEST_SKIP() << "built without cuda_occupancy.h";
  auto run = [](double registers, const char* cc = "8.0") {
    Results r;
    r.run.env.gpu.sm_count = 108;
    r.run.env.gpu.compute_capability = cc;
    WorkloadResult w;
    w.name = "gpu0";
    w.kind = "trace";
    w.rounds = {{1e-3}};
    KernelResult k;
    k.name = "kO";
    k.count = 10;
    k.total_s = 10 * 50e-6;
    k.metrics = {{"grid_blocks", 1728}, {"block_threads", 256}, {"registers_per_thread", registers}};
    w.kernels = {k};
    r.workloads = {w};
    return r;
  };
  const Results base = run(32), current = run(128);
  std::vector<Suggestion> s;
  for (Suggestion& x : EvaluateRules(DefaultPolicy().expr_rules, current, nullptr, &base))
    if (x.rule == "occupancy-lost") s.push_back(std::move(x));
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].kernel, "kO");
  EXPECT_NE(s[0].message.find("fell from 100% to 25%, now limited by registers"), std::string::npos)
      << s[0].message;
  // Both on the current run's GPU: an unchanged kernel moved from a T4
  // (sm_75, 32 warps per SM: 64 registers x 256 threads fill it) to an
  // A100 (sm_80, 64 warps: half) did not lose occupancy by any change of
  // its own, and the rule is silent; on the baseline's own GPU it read
  // "fell from 100% to 50%".
  const Results t4 = run(64, "7.5"), a100 = run(64, "8.0");
  for (const Suggestion& x : EvaluateRules(DefaultPolicy().expr_rules, a100, nullptr, &t4))
    EXPECT_NE(x.rule, "occupancy-lost") << x.message;
  // The same change of registers read on the current GPU whatever the
  // baseline's was.
  Results base_elsewhere = base;
  base_elsewhere.run.env.gpu.compute_capability = "7.5";
  s.clear();
  for (Suggestion& x : EvaluateRules(DefaultPolicy().expr_rules, current, nullptr, &base_elsewhere))
    if (x.rule == "occupancy-lost") s.push_back(std::move(x));
  ASSERT_EQ(s.size(), 1u);
  EXPECT_NE(s[0].message.find("fell from 100% to 25%"), std::string::npos) << s[0].message;
}

WorkloadResult TimedWorkload(const std::string& name, std::vector<std::vector<double>> rounds) {
  WorkloadResult w;
  w.name = name;
  w.kind = "builtin";
  w.backend = "cpu";
  w.rounds = std::move(rounds);
  return w;
}

TEST(RuleEngine, NoisyWorkloadAndThrottled) {
  Results r;
  WorkloadResult quiet = TimedWorkload("quiet", {{1.0, 1.001, 0.999}, {1.0, 1.0005, 0.9995}});
  WorkloadResult noisy = TimedWorkload("noisy", {{1.0, 1.2, 0.85}, {1.1, 1.3, 0.9}});
  WorkloadResult hot = quiet;
  hot.name = "hot";
  hot.throttled = true;
  r.workloads = {quiet, noisy, hot};
  std::vector<Suggestion> n = Fired(r, "noisy-workload");
  ASSERT_EQ(n.size(), 1u);
  EXPECT_EQ(n[0].workload, "noisy");
  std::vector<Suggestion> t = Fired(r, "throttled");
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0].workload, "hot");
}

// Google Benchmark repetitions are rounds of one sample: their spread within a
// round is not measured, so it is unknown (not 0%) in the evidence, and the
// rule fires on the spread between them alone.
TEST(RuleEngine, OneSamplePerRoundLeavesTheWithinSpreadUnknown) {
  Results r;
  r.workloads = {TimedWorkload("reps", {{1.0}, {1.2}, {0.85}, {1.1}, {0.95}})};
  std::vector<Suggestion> n = Fired(r, "noisy-workload");
  ASSERT_EQ(n.size(), 1u);
  EXPECT_EQ(n[0].evidence.find("noise_within"), std::string::npos) << n[0].evidence;
  EXPECT_NE(n[0].evidence.find("workload.noise_between = "), std::string::npos) << n[0].evidence;
  EXPECT_EQ(n[0].message.find("0%"), std::string::npos) << n[0].message;
}

TEST(RuleEngine, BoundnessNeedsARegression) {
  Results r;
  WorkloadResult triad = TimedWorkload("triad", {{1e-3, 1e-3}});
  triad.work.bytes = 24000000;
  triad.work.flops = 2000000;
  r.workloads = {triad};
  Verdicts v;
  MetricVerdict m;
  m.workload = "triad";
  m.metric = "time";
  m.verdict = Verdict::kUnchanged;
  m.ratio = 1.0;
  v.metrics.push_back(m);
  EXPECT_TRUE(Fired(r, "memory-bound", &v).empty());
  v.metrics[0].verdict = Verdict::kRegression;
  v.metrics[0].ratio = 1.3;
  std::vector<Suggestion> s = Fired(r, "memory-bound", &v);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_NE(s[0].evidence.find("workload.regressed = true"), std::string::npos) << s[0].evidence;
  EXPECT_TRUE(Fired(r, "compute-bound", &v).empty());
  r.workloads[0].work.flops = 2.4e9;  // 100 FLOP/byte
  EXPECT_EQ(Fired(r, "compute-bound", &v).size(), 1u);
}

TEST(RuleEngine, HighPeakMemoryOnTheDeviceOnly) {
  Results r;
  r.run.env.gpu.memory_bytes = int64_t{80} << 30;
  WorkloadResult w = TimedWorkload("train", {{1.0, 1.0}});
  w.backend = "cuda";
  w.peak_memory_bytes = int64_t{76} << 30;
  r.workloads = {w};
  EXPECT_EQ(Fired(r, "high-peak-memory").size(), 1u);
  r.workloads[0].peak_memory_bytes = int64_t{40} << 30;
  EXPECT_TRUE(Fired(r, "high-peak-memory").empty());
  r.workloads[0].backend = "process";  // a host RSS is not device memory
  r.workloads[0].peak_memory_bytes = int64_t{76} << 30;
  EXPECT_TRUE(Fired(r, "high-peak-memory").empty());
}

TEST(RuleEngine, LaunchBoundFiresOnTheTrainingTraceOrNot) {
  Results r = FromTrace("kineto_ns_resolution_rank0.json.gz");
  ASSERT_FALSE(r.workloads.empty());
  const WorkloadResult& w = r.workloads[0];
  const double launches = w.counters.at("launches_matched");
  const double shorter = w.counters.at("shorter_than_launch");
  EXPECT_EQ(!Fired(r, "launch-bound").empty(), launches >= 10 && shorter > launches / 2);
  r.workloads[0].counters["shorter_than_launch"] = launches;  // every kernel shorter than its launch
  EXPECT_EQ(Fired(r, "launch-bound").size(), 1u);
  r.workloads[0].counters["shorter_than_launch"] = 0;
  EXPECT_TRUE(Fired(r, "launch-bound").empty());
}

TEST(RuleEngine, UnknownNamesNeverFire) {
  // No device: small-grid cannot know the SM count, so it stays silent.
  Results r = FromTrace("kineto_cuda_event_sync.json");
  r.run.env.gpu.sm_count.reset();
  EXPECT_TRUE(Fired(r, "small-grid").empty());
}

TEST(RuleEngine, HostileKernelFiguresAreUnknownNotUndefined) {
  Results r = FromTrace("kineto_simple_add_a100.json");
  ASSERT_FALSE(r.workloads.empty());
  for (KernelResult& k : r.workloads[0].kernels) {
    k.metrics["registers_per_thread"] = 1e300;
    k.metrics["block_threads"] = -5;
    k.metrics["shared_mem_bytes"] = 1e308;
  }
  EXPECT_TRUE(Fired(r, "low-occupancy").empty());
  EXPECT_TRUE(Fired(r, "tail-effect").empty());
}

TEST(RuleEngine, SortedByPriorityThenSpeedup) {
  std::vector<Suggestion> s = EvaluateRules(DefaultPolicy().expr_rules,
                                            FromTrace("kineto_cuda_event_sync.json"), nullptr);
  ASSERT_GE(s.size(), 3u);
  for (size_t i = 1; i < s.size(); ++i) EXPECT_FALSE(SuggestionBefore(s[i], s[i - 1])) << i;
}

}  // namespace
}  // namespace gpugate

namespace gpugate {
namespace {

Results FromTraceText(const std::string& text) {
  Result<Results> r = TraceTextToResults(text, "loop.json");
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return r.ok() ? std::move(r).value() : Results{};
}

// A training loop that copies its 4 MiB batch and a 512-byte mask from
// pageable memory in each of 8 profiler steps, after loading 20 weights of
// 1 MiB at start-up (tests/trace/trace_test_data.h).
TEST(RuleEngine, RepeatedH2dFiresOnPerStepCopies) {
  const Results r = FromTraceText(testing::TrainingLoopTrace(8, {4 << 20, 512}, 0, 20));
  std::vector<Suggestion> s = Fired(r, "repeated-h2d");
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].workload, "gpu0");
  EXPECT_EQ(s[0].priority, 2);
  // The 20 weight copies happen once, at start-up: they do not recur.
  EXPECT_NE(s[0].message.find("16 host-to-device copies (32.0 MiB) repeat the same sizes throughout the trace, "
                              "most often 4.00 MiB (8 times)"),
            std::string::npos) << s[0].message;
  EXPECT_NE(s[0].evidence.find("trace.repeated_h2d_copies = 16"), std::string::npos) << s[0].evidence;
  EXPECT_NE(s[0].hint.find("keep the tensor on the device"), std::string::npos);
  ASSERT_TRUE(s[0].estimated_speedup.has_value());
  // 16 copies x 50 us of 8 x (100 us of copies + 2 ms GEMM) + 20 x 80 us busy.
  EXPECT_NEAR(*s[0].estimated_speedup, 800.0 / 18400.0, 1e-6);
}

// The same loop (without the weights: the first copy of the trace is a
// recurring one) with every per-step copy from pinned memory: no advice to
// pin what is pinned; repeated-h2d-pinned says the rest. One pageable copy
// among them brings the pinning advice back.
TEST(RuleEngine, RepeatedH2dDoesNotAdvisePinningPinnedCopies) {
  std::string text = testing::TrainingLoopTrace(8, {4 << 20, 512}, 0, 0);
  std::string pinned = text;
  for (size_t at = 0; (at = pinned.find("Pageable -> Device", at)) != std::string::npos; at += 6)
    pinned.replace(at, 8, "Pinned");
  const Results r = FromTraceText(pinned);
  EXPECT_TRUE(Fired(r, "repeated-h2d").empty());
  std::vector<Suggestion> s = Fired(r, "repeated-h2d-pinned");
  ASSERT_EQ(s.size(), 1u);
  EXPECT_NE(s[0].message.find("16 host-to-device copies (32.0 MiB), all from pinned memory"), std::string::npos)
      << s[0].message;
  EXPECT_EQ(s[0].hint.find("pin_memory"), std::string::npos) << s[0].hint;
  // The last step's batch copy from pageable memory again.
  const size_t last = pinned.rfind("Pinned -> Device)\", \"pid\": 0, \"tid\": 7, \"ts\": ");
  ASSERT_NE(last, std::string::npos);
  std::string one_pageable = pinned;
  one_pageable.replace(last, 6, "Pageable");
  const Results mixed = FromTraceText(one_pageable);
  EXPECT_TRUE(Fired(mixed, "repeated-h2d-pinned").empty());
  s = Fired(mixed, "repeated-h2d");
  ASSERT_EQ(s.size(), 1u);
  EXPECT_NE(s[0].hint.find("pin_memory=True"), std::string::npos) << s[0].hint;
}

TEST(RuleEngine, RepeatedH2dSilentOnOneTimeAndDeviceCopies) {
  // Only the start-up weight copies: one size, 20 times, but all at the start.
  EXPECT_TRUE(Fired(FromTraceText(testing::TrainingLoopTrace(8, {}, 0, 20)), "repeated-h2d").empty());
  // One small copy in each of 3 steps: it recurs, but 3 copies are too few to matter.
  const Results few = FromTraceText(testing::TrainingLoopTrace(3, {4096}, 0));
  ASSERT_FALSE(few.workloads.empty());
  EXPECT_EQ(few.workloads[0].counters.at("repeated_h2d_count"), 3);
  EXPECT_TRUE(Fired(few, "repeated-h2d").empty());
  // Real traces: one-off HtoD copies (simple add), device-to-device copies
  // only (ResNet training steps).
  EXPECT_TRUE(Fired(FromTrace("kineto_simple_add_a100.json"), "repeated-h2d").empty());
  EXPECT_TRUE(Fired(FromTrace("kineto_ns_resolution_rank0.json.gz"), "repeated-h2d").empty());
}

// kineto_ns_resolution_rank0.json.gz (ResNet training, 5 steps): one
// elementwise kernel on a 1-block grid runs 420 times for 1.9 us each.
TEST(RuleEngine, ManySmallCallsFiresOnTheRepeatedTinyKernel) {
  const Results r = FromTrace("kineto_ns_resolution_rank0.json.gz");
  std::vector<Suggestion> s = Fired(r, "many-small-calls");
  ASSERT_EQ(s.size(), 1u);
  EXPECT_NE(s[0].message.find("one kernel was launched 420 times with the same grid and block, 1.92 us per launch"),
            std::string::npos) << s[0].message;
  EXPECT_NE(s[0].evidence.find("trace.identical_launches = 420"), std::string::npos) << s[0].evidence;
  ASSERT_TRUE(s[0].estimated_speedup.has_value());
  EXPECT_GT(*s[0].estimated_speedup, 0.0);
  EXPECT_LT(*s[0].estimated_speedup, 0.05);
  // The per-name rule does not see it: 805 launches of that name, under 1000.
  EXPECT_TRUE(Fired(r, "launch-overhead").empty());
}

// 1200 calls of a 3 us kernel: launched one by one, both launch rules
// advise a CUDA Graph; launched by 12 graph launches of 100 kernels, the
// host paid 12 launches and neither rule fires.
TEST(RuleEngine, LaunchRulesLeaveGraphLaunchedKernelsAlone) {
  const Results plain = FromTraceText(testing::RepeatedKernelTrace(12, 100, false));
  EXPECT_EQ(Fired(plain, "launch-overhead").size(), 1u);
  EXPECT_EQ(Fired(plain, "many-small-calls").size(), 1u);
  const Results graph = FromTraceText(testing::RepeatedKernelTrace(12, 100, true));
  ASSERT_EQ(graph.workloads.size(), 1u);
  ASSERT_EQ(graph.workloads[0].kernels.size(), 1u);
  EXPECT_EQ(graph.workloads[0].kernels[0].count, 1200);
  EXPECT_EQ(graph.workloads[0].kernels[0].metrics.at("graph_launches"), 1200);
  EXPECT_EQ(plain.workloads[0].kernels[0].metrics.count("graph_launches"), 0u);
  EXPECT_TRUE(Fired(graph, "launch-overhead").empty());
  EXPECT_TRUE(Fired(graph, "many-small-calls").empty());
}

TEST(RuleEngine, ManySmallCallsNeedsManyIdenticalShortLaunches) {
  // 8 steps x 50 launches of a 2 us kernel: 400 identical calls.
  std::vector<Suggestion> s = Fired(FromTraceText(testing::TrainingLoopTrace(8, {}, 50)), "many-small-calls");
  ASSERT_EQ(s.size(), 1u);
  EXPECT_NE(s[0].message.find("launched 400 times"), std::string::npos) << s[0].message;
  // 8 x 10: too few to matter.
  EXPECT_TRUE(Fired(FromTraceText(testing::TrainingLoopTrace(8, {}, 10)), "many-small-calls").empty());
  // The GEMM of each step is the most launched but long (2 ms) kernel of a
  // loop without small calls; the simple-add trace launches each kernel 4 times.
  EXPECT_TRUE(Fired(FromTraceText(testing::TrainingLoopTrace(200, {}, 0)), "many-small-calls").empty());
  EXPECT_TRUE(Fired(FromTrace("kineto_simple_add_a100.json"), "many-small-calls").empty());
}

// kineto_simple_add_a100.json uploads its model and inputs (16 HtoD copies)
// while little else runs: copies with no kernel beside them are 79% of the
// GPU's busy time. The ResNet training steps copy device to device, under 1%.
TEST(RuleEngine, MemcpyHeavyFiresWhenCopiesDominateBusyTime) {
  std::vector<Suggestion> s = Fired(FromTrace("kineto_simple_add_a100.json"), "memcpy-heavy");
  ASSERT_EQ(s.size(), 1u);
  EXPECT_NE(s[0].message.find("copies that overlap no kernel take 78.5"), std::string::npos) << s[0].message;
  EXPECT_NE(s[0].evidence.find("trace.memcpy_share = "), std::string::npos) << s[0].evidence;
  ASSERT_TRUE(s[0].estimated_speedup.has_value());
  EXPECT_NEAR(*s[0].estimated_speedup, 0.785, 0.001);
  EXPECT_TRUE(Fired(FromTrace("kineto_ns_resolution_rank0.json.gz"), "memcpy-heavy").empty());
}

// A data-parallel rank whose gradient all-reduce (2 ms) runs after the
// backward kernel (3 ms): 40% of the busy time is communication only. With
// DDP's overlap the same all-reduce hides under the backward kernel.
TEST(RuleEngine, CommunicationBoundFiresOnAnAllReduceThatOverlapsNothing) {
  std::vector<Suggestion> s = Fired(FromTraceText(testing::DataParallelTrace(4, false)), "communication-bound");
  ASSERT_EQ(s.size(), 1u);
  EXPECT_NE(s[0].message.find("NCCL communication that overlaps no compute kernel takes 40"), std::string::npos)
      << s[0].message;
  EXPECT_NE(s[0].evidence.find("trace.communication_share = 0.4"), std::string::npos) << s[0].evidence;
  EXPECT_TRUE(Fired(FromTraceText(testing::DataParallelTrace(4, true)), "communication-bound").empty());
  EXPECT_TRUE(Fired(FromTrace("kineto_simple_add_a100.json"), "communication-bound").empty());
}

}  // namespace
}  // namespace gpugate
