// Tests of the trace analyses: a hand-made trace with every number worked out
// by hand (tests/trace/trace_test_data.h), and the real Kineto fixtures with
// reference values from an independent Python script.
#include "trace/analysis.h"

#include <gtest/gtest.h>

#include "config/policy.h"
#include "trace/findings.h"
#include "trace/report_render.h"
#include "trace/timeline.h"
#include "trace/trace_reader.h"
#include "trace/trace_test_data.h"
#include "util/json.h"

namespace gpugate {
namespace {

using testing::TraceDataPath;

TraceReport AnalyzeHand(AnalysisOptions opt = {}) {
  TraceAnalyzer analyzer(opt);
  auto info = ReadTraceFromString(testing::kHandTrace, "hand.json", analyzer);
  EXPECT_TRUE(info.ok()) << info.error().message;
  return analyzer.Finish(*info);
}

const KernelStats* FindKernel(const std::vector<KernelStats>& ks, const std::string& name) {
  for (const KernelStats& k : ks)
    if (k.name == name) return &k;
  return nullptr;
}

TEST(TraceAnalysisTest, TemporalBreakdownOfHandTrace) {
  TraceReport r = AnalyzeHand();
  EXPECT_EQ(r.span_start_ns, 0);
  EXPECT_EQ(r.span_end_ns, 200000);
  ASSERT_EQ(r.devices.size(), 2u);
  const DeviceStats& d0 = r.devices[0];
  EXPECT_EQ(d0.device, 0);
  EXPECT_EQ(d0.busy_ns, 34000);
  EXPECT_EQ(d0.compute_ns, 20000);
  EXPECT_EQ(d0.communication_ns, 10000);
  EXPECT_EQ(d0.memcpy_ns, 3000);
  EXPECT_EQ(d0.memset_ns, 1000);
  EXPECT_EQ(d0.idle_ns, 166000);
  EXPECT_EQ(d0.idle.host_wait_ns, 160990);
  EXPECT_EQ(d0.idle.kernel_wait_ns, 5010);  // 5 us and 10 ns gaps, both < 30 us
  EXPECT_EQ(d0.idle.other_ns, 0);
  // The GPU window [20, 76.01) holds the gaps between GPU work only.
  EXPECT_EQ(d0.WindowNs(), 56010);
  EXPECT_EQ(d0.window_idle_ns, 22010);
  EXPECT_EQ(d0.window_idle.host_wait_ns, 17000);
  EXPECT_EQ(d0.window_idle.kernel_wait_ns, 5010);
  EXPECT_EQ(d0.window_idle.other_ns, 0);
  // The NCCL kernel [65,75) overlaps no compute kernel.
  EXPECT_EQ(d0.communication_total_ns, 10000);
  EXPECT_EQ(d0.comm_compute_overlap_ns, 0);
  EXPECT_EQ(d0.kernel_count, 4);
  EXPECT_EQ(d0.memcpy_count, 1);
  EXPECT_EQ(d0.memset_count, 1);
  EXPECT_EQ(d0.kernel_time_ns, 35000);
  EXPECT_EQ(d0.active_start_ns, 20000);
  EXPECT_EQ(d0.active_end_ns, 76010);

  const DeviceStats& d1 = r.devices[1];
  EXPECT_EQ(d1.busy_ns, 50000);
  EXPECT_EQ(d1.compute_ns, 50000);
  EXPECT_EQ(d1.idle.other_ns, 100000);
  EXPECT_EQ(d1.idle.host_wait_ns, 50000);

  // Over both devices: span 400 us, idle 316 us, compute 70 us, NCCL 10 us.
  EXPECT_DOUBLE_EQ(r.gpu_idle_share, 0.79);
  EXPECT_DOUBLE_EQ(r.compute_share, 0.175);
  EXPECT_DOUBLE_EQ(r.communication_share, 0.025);
}

TEST(TraceAnalysisTest, PerStreamIdleFollowsHtaDefinition) {
  TraceReport r = AnalyzeHand();
  const DeviceStats& d0 = r.devices[0];
  ASSERT_EQ(d0.streams.size(), 2u);
  const StreamStats& s7 = d0.streams[0].stream == 7 ? d0.streams[0] : d0.streams[1];
  const StreamStats& s8 = d0.streams[0].stream == 8 ? d0.streams[0] : d0.streams[1];
  // Stream 7: k1 [20,30), k1 [40,45), memcpy [62,70), memset [75.01,76.01).
  EXPECT_EQ(s7.kernels, 2);
  EXPECT_EQ(s7.memcpys, 1);
  EXPECT_EQ(s7.memsets, 1);
  EXPECT_EQ(s7.busy_ns, 24000);
  EXPECT_EQ(s7.idle.host_wait_ns, 17000);  // [45,62), memcpy launched at 60
  EXPECT_EQ(s7.idle.kernel_wait_ns, 15010);  // [30,40) launch 15; [70,75.01) launch 21; < 30 us
  EXPECT_EQ(s7.idle.other_ns, 0);
  // Stream 8: k2 [25,35), NCCL [65,75) launched at 61 > 35.
  EXPECT_EQ(s8.busy_ns, 20000);
  EXPECT_EQ(s8.idle.host_wait_ns, 30000);
}

TEST(TraceAnalysisTest, KernelBreakdownAndAttributes) {
  AnalysisOptions opt;
  opt.keep_kernel_samples = true;
  TraceReport r = AnalyzeHand(opt);
  const KernelStats* k1 = FindKernel(r.devices[0].kernels, "k1");
  ASSERT_NE(k1, nullptr);
  EXPECT_EQ(k1->count, 2);
  EXPECT_EQ(k1->total_ns, 15000);
  EXPECT_EQ(k1->min_ns, 5000);
  EXPECT_EQ(k1->max_ns, 10000);
  EXPECT_DOUBLE_EQ(k1->mean_ns, 7500);
  EXPECT_DOUBLE_EQ(k1->share, 15.0 / 35.0);
  EXPECT_DOUBLE_EQ(*k1->mean_achieved_occupancy, 0.6);
  EXPECT_EQ(k1->registers_per_thread, 32);
  EXPECT_EQ(k1->grid[1], 2);
  EXPECT_EQ(k1->durations_ns, (std::vector<int64_t>{10000, 5000}));
  const KernelStats* nccl = FindKernel(r.devices[0].kernels, "ncclKernel_AllReduce_RING_LL_Sum_float");
  ASSERT_NE(nccl, nullptr);
  EXPECT_TRUE(nccl->communication);
  // Across devices, k3 (50 us) leads.
  ASSERT_GE(r.top_kernels.size(), 2u);
  EXPECT_EQ(r.top_kernels[0].name, "k3");
  EXPECT_EQ(r.top_kernels[1].name, "k1");
  EXPECT_EQ(r.distinct_kernels, 4);
  opt.top_n = 1;
  EXPECT_EQ(AnalyzeHand(opt).top_kernels.size(), 1u);
}

TEST(TraceAnalysisTest, LaunchStatistics) {
  TraceReport r = AnalyzeHand();
  const LaunchStats& l = r.launch;
  EXPECT_EQ(l.gpu_ops_matched, 6);    // 4 kernels, memcpy, memset on GPU 0
  EXPECT_EQ(l.gpu_ops_unmatched, 1);  // k3 has no correlation
  EXPECT_EQ(l.kernels, 4);
  EXPECT_DOUBLE_EQ(l.delay_mean_ns, 12500);
  EXPECT_EQ(l.delay_min_ns, 4000);
  EXPECT_EQ(l.delay_max_ns, 25000);
  EXPECT_EQ(l.delay_p50_ns, 12000);
  EXPECT_EQ(l.launch_cost_ns, 11000);
  EXPECT_EQ(l.kernel_runtime_ns, 35000);
  EXPECT_EQ(l.shorter_than_launch, 1);
  ASSERT_EQ(l.short_kernels.size(), 1u);
  EXPECT_EQ(l.short_kernels[0].name, "k1");
  EXPECT_EQ(l.short_kernels[0].launch_ns, 6000);
  EXPECT_EQ(l.short_kernels[0].kernel_ns, 5000);
}

TEST(TraceAnalysisTest, MemoryTrafficCpuOpsAndMemoryEvents) {
  AnalysisOptions opt;
  opt.collect_memory_timeline = true;
  TraceReport r = AnalyzeHand(opt);
  ASSERT_EQ(r.memory_traffic.size(), 2u);
  EXPECT_EQ(r.memory_traffic[0].kind, "HtoD");
  EXPECT_EQ(r.memory_traffic[0].route, "Pinned -> Device");
  EXPECT_EQ(r.memory_traffic[0].memory, "pinned");
  EXPECT_EQ(r.memory_traffic[0].bytes, 8000);
  EXPECT_EQ(r.memory_traffic[0].total_ns, 8000);
  EXPECT_DOUBLE_EQ(r.memory_traffic[0].BandwidthGBps().value_or(-1), 1.0);
  EXPECT_EQ(r.memory_traffic[1].kind, "Memset");
  EXPECT_EQ(r.memory_traffic[1].bytes, 64);

  // outer [1,100) contains inner [10,30): self 79 us; inner self 20 us.
  ASSERT_EQ(r.cpu_ops.size(), 2u);
  EXPECT_EQ(r.cpu_ops[0].name, "outer");
  EXPECT_EQ(r.cpu_ops[0].total_ns, 99000);
  EXPECT_EQ(r.cpu_ops[0].self_ns, 79000);
  EXPECT_EQ(r.cpu_ops[1].self_ns, 20000);

  ASSERT_EQ(r.memory.size(), 1u);
  EXPECT_EQ(r.memory[0].device_type, 1);
  EXPECT_EQ(r.memory[0].events, 2);
  EXPECT_EQ(r.memory[0].peak_allocated, 4096);
  EXPECT_EQ(r.memory[0].peak_reserved, 2097152);
  EXPECT_EQ(r.memory[0].peak_ts_ns, 5000);
  ASSERT_EQ(r.memory_timeline.size(), 2u);
  EXPECT_EQ(r.memory_timeline[1].bytes, -4096);
}

TEST(TraceAnalysisTest, DeviceFilterAndThreshold) {
  AnalysisOptions opt;
  opt.device = 1;
  TraceReport r = AnalyzeHand(opt);
  ASSERT_EQ(r.devices.size(), 1u);
  EXPECT_EQ(r.devices[0].device, 1);
  EXPECT_DOUBLE_EQ(r.gpu_idle_share, 0.75);

  // With a 6 us threshold the 5 us gap [35,40) becomes kernel-wait.
  AnalysisOptions wide;
  wide.kernel_wait_threshold_ns = 6000;
  TraceReport w = AnalyzeHand(wide);
  EXPECT_EQ(w.devices[0].idle.kernel_wait_ns, 5010);
  EXPECT_EQ(w.devices[0].idle.other_ns, 0);
}

TEST(TraceAnalysisTest, ClassifyMemcpyNames) {
  MemcpyStats a = ClassifyMemcpy("Memcpy DtoH (Device -> Pageable)");
  EXPECT_EQ(a.kind, "DtoH");
  EXPECT_EQ(a.memory, "pageable");
  MemcpyStats b = ClassifyMemcpy("Memcpy DtoD (Device -> Device)");
  EXPECT_EQ(b.kind, "DtoD");
  EXPECT_EQ(b.memory, "device");
  MemcpyStats c = ClassifyMemcpy("Memcpy PtoP (Device -> Device)");
  EXPECT_EQ(c.kind, "PtoP");
  EXPECT_EQ(c.memory, "device");
  EXPECT_EQ(ClassifyMemcpy("Memset (Device)").memory, "device");
  EXPECT_EQ(ClassifyMemcpy("Memcpy HtoD (Host -> Device)").memory, "unknown");
  EXPECT_EQ(ClassifyMemcpy("Memcpy DtoH (Device -> Host)").memory, "unknown");
}

// The findings are the rule engine's: GPU 0 of the hand trace idles 83% of
// the span, 97% of it waiting for the host; GPU 1 idles 75%, a third of it
// host-wait (the rest before its first kernel, which has no launch call).
// k1 (43% of GPU 0's kernel time) launches 8 blocks on a 132-SM GPU.
TEST(TraceAnalysisTest, FindingsComeFromThePolicyRules) {
  TraceReport r = AnalyzeHand();
  std::vector<Suggestion> f = TraceFindings(r, DefaultPolicy().expr_rules);
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[1].rule, "small-grid");
  EXPECT_EQ(f[1].kernel, "k1");
  EXPECT_EQ(f[0].rule, "gpu-idle-host-wait");
  EXPECT_EQ(f[0].workload, "gpu0");
  EXPECT_NE(f[0].message.find("the GPU is idle 83"), std::string::npos) << f[0].message;
  EXPECT_NE(f[0].evidence.find("trace.gpu_idle = "), std::string::npos) << f[0].evidence;
  // The same rules as `compare` reads them from a policy: switched off, silent.
  auto quiet = LoadPolicyFromString(
      "version: 1\nrules:\n  - {id: gpu-idle-host-wait, emit: off}\n  - {id: small-grid, emit: off}\n", "quiet.yaml");
  ASSERT_TRUE(quiet.ok()) << quiet.error().message;
  EXPECT_TRUE(TraceFindings(r, quiet->expr_rules).empty());
  TraceFindingSet set{"quiet", {}};
  EXPECT_NE(RenderTraceConsole(r, set).find("Findings (policy quiet)\n  none: no rule of policy 'quiet' fires"),
            std::string::npos);
}

// Reference values: /usr/bin/python3 over the same files with json.load(...,
// parse_float=Decimal), ns = Decimal(ts) * 1000; kernels = X events with cat
// "kernel"; busy = union of kernel, gpu_memcpy and gpu_memset intervals after
// sorting; span = min ts .. max ts+dur over non-"M" events:
//   kernels=[e for e in ev if e.get('ph')=='X' and e.get('cat')=='kernel']
//   sum(ns(e['dur']) for e in kernels); sum(int(e['args']['bytes']) for memcpys)
TEST(TraceAnalysisTest, SimpleAddFixtureMatchesIndependentCount) {
  auto r = AnalyzeTrace(TraceDataPath("kineto_simple_add_a100.json"), {});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->info.events, 1348);
  ASSERT_EQ(r->devices.size(), 1u);
  const DeviceStats& d = r->devices[0];
  EXPECT_EQ(d.kernel_count, 79);
  EXPECT_EQ(d.kernel_time_ns, 10728000);
  EXPECT_EQ(d.memcpy_count, 16);
  EXPECT_EQ(d.memset_count, 3);
  EXPECT_EQ(d.busy_ns, 49758000);
  EXPECT_EQ(r->SpanNs(), 41602740000);
  EXPECT_EQ(r->distinct_kernels, 16);
  int64_t memcpy_bytes = 0;
  for (const MemcpyStats& m : r->memory_traffic)
    if (m.kind != "Memset") memcpy_bytes += m.bytes;
  EXPECT_EQ(memcpy_bytes, 244403360);
  EXPECT_EQ(r->memory_traffic[0].memory, "pageable");
  EXPECT_EQ(r->memory_traffic[0].kind, "HtoD");
  // Self time by op, same nesting rule in Python (sort by start, longer first,
  // stack of containing frames): aten::empty_strided 26 calls, 24610368000 ns.
  ASSERT_FALSE(r->cpu_ops.empty());
  EXPECT_EQ(r->cpu_ops[0].name, "aten::empty_strided");
  EXPECT_EQ(r->cpu_ops[0].count, 26);
  EXPECT_EQ(r->cpu_ops[0].self_ns, 24610368000);
}

TEST(TraceAnalysisTest, CudaEventSyncFixtureMatchesIndependentCount) {
  auto r = AnalyzeTrace(TraceDataPath("kineto_cuda_event_sync.json"), {});
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->devices.size(), 1u);
  EXPECT_EQ(r->devices[0].kernel_count, 4);
  EXPECT_EQ(r->devices[0].kernel_time_ns, 49000);
  EXPECT_EQ(r->devices[0].busy_ns, 51000);
  EXPECT_EQ(r->SpanNs(), 3287000);
  ASSERT_EQ(r->memory_traffic.size(), 1u);
  EXPECT_EQ(r->memory_traffic[0].bytes, 1);
}

TEST(TraceAnalysisTest, NsResolutionGzipFixtureMatchesIndependentCount) {
  auto r = AnalyzeTrace(TraceDataPath("kineto_ns_resolution_rank0.json.gz"), {});
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->devices.size(), 1u);
  const DeviceStats& d = r->devices[0];
  EXPECT_EQ(d.kernel_count, 4350);
  EXPECT_EQ(d.kernel_time_ns, 468153602);
  EXPECT_EQ(d.memcpy_count, 1600);
  EXPECT_EQ(d.memset_count, 145);
  EXPECT_EQ(d.busy_ns, 472454441);
  EXPECT_EQ(r->SpanNs(), 597891386);
  EXPECT_EQ(r->distinct_kernels, 77);
  int64_t memcpy_bytes = 0;
  for (const MemcpyStats& m : r->memory_traffic)
    if (m.kind != "Memset") memcpy_bytes += m.bytes;
  EXPECT_EQ(memcpy_bytes, 512205160);
  // Python, same nesting rule: aten::convolution_backward 265 calls, total
  // 93057800 ns, self 91570437 ns.
  ASSERT_FALSE(r->cpu_ops.empty());
  EXPECT_EQ(r->cpu_ops[0].name, "aten::convolution_backward");
  EXPECT_EQ(r->cpu_ops[0].total_ns, 93057800);
  EXPECT_EQ(r->cpu_ops[0].self_ns, 91570437);
}

// 8 steps that each copy a 4 MiB batch and a 512-byte mask, after 20 copies
// of 1 MiB weights at start-up (tests/trace/trace_test_data.h).
TEST(TraceAnalysisTest, RepeatedHostToDeviceCopiesRecurPerStep) {
  auto r = AnalyzeTraceText(testing::TrainingLoopTrace(8, {4 << 20, 512}, 0, 20), "loop.json", {});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->profiler_steps, 8);
  ASSERT_EQ(r->repeated_h2d.size(), 2u);  // not the weights: 20 copies, all in the first 2 ms
  const RepeatedCopy& batch = r->repeated_h2d[0];
  EXPECT_EQ(batch.device, 0);
  EXPECT_EQ(batch.bytes, 4 << 20);
  EXPECT_EQ(batch.count, 8);
  EXPECT_EQ(batch.total_ns, 8 * 50000);
  EXPECT_EQ(batch.first_ns, 2100000 + 200000);
  EXPECT_EQ(batch.last_ns, 2100000 + 7 * 10000000 + 200000);
  EXPECT_EQ(r->repeated_h2d[1].bytes, 512);
  EXPECT_EQ(r->h2d_copies_untracked, 0);
  AnalysisOptions top1;
  top1.top_n = 1;
  auto one = AnalyzeTraceText(testing::TrainingLoopTrace(8, {4 << 20, 512}, 0, 20), "loop.json", top1);
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one->repeated_h2d.size(), 2u);  // the report keeps all; the text lists the top N
  const std::string console = RenderTraceConsole(*one, {});
  EXPECT_NE(console.find("Recurring host-to-device copies (top 1 of 2 sizes, 8 profiler steps)"), std::string::npos)
      << console;
  // Without profiler steps a size must recur 10 times: 8 copies do not, 10 do.
  auto without_steps = [](std::string t) {
    for (size_t at = t.find("ProfilerStep#"); at != std::string::npos; at = t.find("ProfilerStep#"))
      t.replace(at, 13, "step-");
    return t;
  };
  auto eight = AnalyzeTraceText(without_steps(testing::TrainingLoopTrace(8, {4 << 20}, 0)), "loop.json", {});
  ASSERT_TRUE(eight.ok()) << eight.error().message;
  EXPECT_EQ(eight->profiler_steps, 0);
  EXPECT_TRUE(eight->repeated_h2d.empty());
  auto ten = AnalyzeTraceText(without_steps(testing::TrainingLoopTrace(10, {4 << 20}, 0)), "loop.json", {});
  ASSERT_TRUE(ten.ok());
  ASSERT_EQ(ten->repeated_h2d.size(), 1u);
  EXPECT_EQ(ten->repeated_h2d[0].count, 10);
}

// A step that two threads annotate is one step: the recurring-copy rule's
// bar (a copy per step) stays at the trace's 8 steps, not 16 (probe DD1).
TEST(TraceAnalysisTest, AStepAnnotatedOnTwoThreadsCountsOnce) {
  std::string t = testing::TrainingLoopTrace(8, {4 << 20}, 0);
  // Each step's annotation again, on thread 101.
  std::string copies;
  for (size_t at = t.find(R"({"ph": "X", "cat": "user_annotation")"); at != std::string::npos;
       at = t.find(R"({"ph": "X", "cat": "user_annotation")", at + 1)) {
    std::string event = t.substr(at, t.find('}', at) + 1 - at);
    event.replace(event.find(R"("tid": 100)"), 10, R"("tid": 101)");
    copies += ", " + event;
  }
  ASSERT_FALSE(copies.empty());
  const size_t end = t.rfind(']');
  ASSERT_NE(end, std::string::npos);
  t.insert(t.rfind('}', end) + 1, copies);
  auto r = AnalyzeTraceText(t, "loop.json", {});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->profiler_steps, 8);
  ASSERT_EQ(r->repeated_h2d.size(), 1u);
  EXPECT_EQ(r->repeated_h2d[0].count, 8);
}

// --device for a GPU the trace has nothing on: the reports say which GPUs
// have activity, not that the trace has none (probe DD2).
TEST(TraceAnalysisTest, ADeviceWithoutActivityNamesTheGpusThatHaveIt) {
  AnalysisOptions gpu3;
  gpu3.device = 3;
  auto r = AnalyzeTraceText(testing::TrainingLoopTrace(2, {4 << 20}, 0), "loop.json", gpu3);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(r->devices.empty());
  EXPECT_EQ(r->other_devices, std::vector<int64_t>{0});
  const std::string want = "no GPU activity on GPU 3: the trace's GPU activity is on GPU 0";
  EXPECT_NE(RenderTraceConsole(*r, {}).find(want), std::string::npos) << RenderTraceConsole(*r, {});
  EXPECT_NE(RenderTraceMarkdown(*r, {}).find(want), std::string::npos);
  EXPECT_EQ(RenderTraceConsole(*r, {}).find("the trace has no kernels"), std::string::npos);
  auto all = AnalyzeTraceText(testing::TrainingLoopTrace(2, {4 << 20}, 0), "loop.json", {});
  ASSERT_TRUE(all.ok());
  EXPECT_TRUE(all->other_devices.empty());
}

TEST(TraceAnalysisTest, IdenticalLaunchesGroupByNameGridAndBlock) {
  auto r = AnalyzeTraceText(testing::TrainingLoopTrace(8, {}, 50), "loop.json", {});
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->identical_launches.size(), 2u);
  const RepeatedLaunch& small = r->identical_launches[0];
  EXPECT_EQ(small.device, 0);
  EXPECT_EQ(small.count, 400);
  EXPECT_EQ(small.total_ns, 400 * 2000);
  EXPECT_DOUBLE_EQ(small.MeanNs(), 2000.0);
  EXPECT_EQ(small.grid[0], 1);
  EXPECT_EQ(small.block[0], 128);
  EXPECT_EQ(r->identical_launches[1].name, "ampere_sgemm_128x64_tn");
  EXPECT_EQ(r->identical_launches[1].count, 8);
  EXPECT_EQ(r->launches_untracked, 0);
  // The ResNet fixture (a Python count over (name, grid, block)): 420
  // launches of one unary elementwise kernel on a 1-block grid.
  auto ns = AnalyzeTrace(TraceDataPath("kineto_ns_resolution_rank0.json.gz"), {});
  ASSERT_TRUE(ns.ok()) << ns.error().message;
  ASSERT_FALSE(ns->identical_launches.empty());
  EXPECT_EQ(ns->identical_launches[0].count, 420);
  EXPECT_EQ(ns->identical_launches[0].name.rfind("void at::native::vectorized_elementwise_kernel<4, "
                                                 "at::native::AUnaryFunctor<float, float, float,", 0), 0u)
      << ns->identical_launches[0].name;
  EXPECT_EQ(ns->identical_launches[1].count, 265);
  EXPECT_EQ(ns->identical_launches.size(), 10u);  // top N
}

TEST(TraceAnalysisTest, TraceWithoutKernelsSaysSo) {
  auto r = AnalyzeTrace(TraceDataPath("kineto_cupti_profiler_range.json"), {});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(r->devices.empty());
  EXPECT_EQ(r->info.events, 4222);
  EXPECT_EQ(r->info.events_by_category[static_cast<int>(TraceCategory::kUnknown)], 79);  // 77 profiler ranges + 2 Trace
  // A fact, not a finding: nothing to judge.
  EXPECT_TRUE(TraceFindings(*r, DefaultPolicy().expr_rules).empty());
  const std::string console = RenderTraceConsole(*r, {});
  EXPECT_NE(console.find("no GPU activity: the trace has no kernels, memcpys or memsets"), std::string::npos);
  EXPECT_NE(console.find("none: no GPU activity to judge"), std::string::npos) << console;
  // No GPU time and no launch delay to measure: null, not "100% idle" and 0 ns.
  auto doc = ParseJson(RenderTraceJson(*r, {}), "report.json");
  ASSERT_TRUE(doc.ok()) << doc.error().message;
  for (const char* key : {"gpu_idle_share", "compute_share", "gpu_window_idle_share", "memset_share"})
    EXPECT_TRUE(doc->Find("summary")->Find(key)->IsNull()) << key;
  for (const char* key : {"delay_mean_ns", "delay_min_ns", "delay_p50_ns", "delay_p95_ns", "delay_max_ns"})
    EXPECT_TRUE(doc->Find("launch")->Find(key)->IsNull()) << key;
  EXPECT_EQ(doc->Find("launch")->Find("kernels")->integer, 0);
}

TEST(TraceAnalysisTest, JsonReportParsesAndCarriesSummary) {
  TraceReport r = AnalyzeHand();
  TraceFindingSet findings{"default", TraceFindings(r, DefaultPolicy().expr_rules)};
  std::string json = RenderTraceJson(r, findings);
  auto doc = ParseJson(json, "report.json");
  ASSERT_TRUE(doc.ok()) << doc.error().message;
  EXPECT_EQ(doc->Find("schema")->string, "gpugate/trace-analysis/v2");
  const JsonValue* summary = doc->Find("summary");
  ASSERT_NE(summary, nullptr);
  EXPECT_DOUBLE_EQ(summary->Find("gpu_idle_share")->number, 0.79);
  EXPECT_DOUBLE_EQ(summary->Find("compute_share")->number, 0.175);
  EXPECT_DOUBLE_EQ(summary->Find("communication_share")->number, 0.025);
  EXPECT_FALSE(doc->Find("launch")->Find("delay_p50_ns")->IsNull());
  EXPECT_TRUE(summary->Find("top_kernels")->IsArray());
  const JsonValue* found = summary->Find("findings");
  ASSERT_TRUE(found != nullptr && found->IsArray());
  ASSERT_EQ(found->items.size(), 2u);
  EXPECT_EQ(found->items[0].Find("rule")->string, "gpu-idle-host-wait");
  EXPECT_EQ(found->items[0].Find("workload")->string, "gpu0");
  EXPECT_EQ(found->items[0].Find("priority")->integer, 1);
  EXPECT_NE(found->items[0].Find("estimated_speedup"), nullptr);
  EXPECT_EQ(doc->Find("options")->Find("policy")->string, "default");
  EXPECT_EQ(doc->Find("devices")->items[0].Find("idle")->Find("host_wait_ns")->integer, 160990);
}

TEST(TraceAnalysisTest, RenderersEscapeHostileNames) {
  const char* text =
      R"({"traceEvents":[{"ph":"X","cat":"kernel","name":"evil|<b>*x*\u001b[31m","pid":0,"tid":7,"ts":1,"dur":1,)"
      R"("args":{"device":0,"stream":7}}]})";
  TraceAnalyzer analyzer({});
  auto info = ReadTraceFromString(text, "evil.json", analyzer);
  ASSERT_TRUE(info.ok());
  TraceReport r = analyzer.Finish(*info);
  std::string md = RenderTraceMarkdown(r, {});
  // One text layer: the Markdown cell escapes like every Markdown report
  // (a control character becomes U+FFFD), the console shows it as \x1b.
  EXPECT_NE(md.find("evil\\|&lt;b&gt;\\*x\\*\xEF\xBF\xBD\\[31m"), std::string::npos) << md;
  std::string console = RenderTraceConsole(r, {});
  EXPECT_EQ(console.find('\x1b'), std::string::npos);
  EXPECT_NE(console.find("evil|<b>*x*\\x1b[31m"), std::string::npos) << console;
}

TEST(TraceAnalysisTest, TextReportsListTheFirstRowsOfManyCopyRoutes) {
  // A route is text from the trace: one per event gives one row per event.
  // The text reports list the first top_n rows and say how many there are;
  // the JSON report keeps them all.
  std::string text = R"({"traceEvents":[)";
  for (int i = 0; i < 25; ++i) {
    if (i) text += ",";
    text += "{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"Memcpy HtoD (route " + std::to_string(i) +
            ")\",\"pid\":0,\"tid\":7,\"ts\":" + std::to_string(10 * i) +
            ",\"dur\":1,\"args\":{\"device\":0,\"stream\":7,\"bytes\":" + std::to_string(1000 + i) + "}}";
  }
  text += "]}";
  AnalysisOptions opt;
  opt.top_n = 10;
  TraceAnalyzer analyzer(opt);
  auto info = ReadTraceFromString(text, "routes.json", analyzer);
  ASSERT_TRUE(info.ok()) << info.error().message;
  TraceReport r = analyzer.Finish(*info);
  ASSERT_EQ(r.memory_traffic.size(), 25u);
  const std::string console = RenderTraceConsole(r, {});
  const std::string md = RenderTraceMarkdown(r, {});
  const std::string html = RenderTraceHtml(r, {});
  const std::string json = RenderTraceJson(r, {});
  for (const std::string* out : {&console, &md, &html}) {
    EXPECT_NE(out->find("first 10 of 25 rows"), std::string::npos) << *out;
    EXPECT_NE(out->find("route 24"), std::string::npos);  // the most bytes
    EXPECT_NE(out->find("route 15"), std::string::npos);
    EXPECT_EQ(out->find("route 14"), std::string::npos);
  }
  EXPECT_NE(json.find("route 0"), std::string::npos);
  EXPECT_NE(json.find("route 24"), std::string::npos);
}

TEST(TraceAnalysisTest, BandwidthCountsOnlyCopiesOfKnownSize) {
  // Three copies of 100 us: 1 MB, no size, an impossible size. The one copy
  // of known size moved 1e6 B in 100 us: 10 GB/s, not 3.33.
  const char* text =
      R"J({"traceEvents":[)J"
      R"J({"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD (Pinned -> Device)","pid":0,"tid":7,"ts":0,"dur":100,"args":{"device":0,"stream":7,"bytes":1000000}},)J"
      R"J({"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD (Pinned -> Device)","pid":0,"tid":7,"ts":200,"dur":100,"args":{"device":0,"stream":7}},)J"
      R"J({"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD (Pinned -> Device)","pid":0,"tid":7,"ts":400,"dur":100,"args":{"device":0,"stream":7,"bytes":-5}}]})J";
  TraceAnalyzer analyzer({});
  auto info = ReadTraceFromString(text, "sizes.json", analyzer);
  ASSERT_TRUE(info.ok()) << info.error().message;
  TraceReport r = analyzer.Finish(*info);
  ASSERT_EQ(r.memory_traffic.size(), 1u);
  EXPECT_EQ(r.memory_traffic[0].count, 3);
  EXPECT_EQ(r.memory_traffic[0].total_ns, 300000);
  EXPECT_EQ(r.memory_traffic[0].without_bytes, 2);
  EXPECT_DOUBLE_EQ(r.memory_traffic[0].BandwidthGBps().value_or(-1), 10.0);
}

// Kineto of PyTorch 1.8/1.9 named its categories Kernel, Memcpy, Memset,
// Runtime and Operator, linked launches by an "async" flow, and gave
// [memory] events only each allocation's Bytes. A ROCm trace's kernels carry
// no grid or block and its copies neither a size nor a host memory kind.
TEST(TraceAnalysisTest, OlderKinetoAndRocmTracesAreReadWhole) {
  const char* text =
      R"J({"traceEvents":[)J"
      R"J({"ph":"X","cat":"Operator","name":"aten::conv2d","pid":1,"tid":"1","ts":0,"dur":50,"args":{"External id":2}},)J"
      R"J({"ph":"X","cat":"Runtime","name":"cudaLaunchKernel","pid":1,"tid":"1","ts":10,"dur":5,"args":{"correlation":7}},)J"
      R"J({"ph":"s","id":7,"pid":1,"tid":1,"ts":10,"cat":"async","name":"launch"},)J"
      R"J({"ph":"X","cat":"Kernel","name":"k","pid":0,"tid":"stream 7","ts":20,"dur":10,"args":{"device":0,"stream":7,"correlation":7}},)J"
      R"J({"ph":"f","id":7,"pid":0,"tid":"stream 7","ts":20,"cat":"async","name":"launch","bp":"e"},)J"
      R"J({"ph":"X","cat":"Memcpy","name":"Memcpy HtoD (Pageable -> Device)","pid":0,"tid":"stream 7","ts":40,"dur":10,"args":{"device":0,"stream":7,"bytes":10000}},)J"
      R"J({"ph":"X","cat":"Memset","name":"Memset (Device)","pid":0,"tid":"stream 7","ts":60,"dur":2,"args":{"device":0,"stream":7,"bytes":128}},)J"
      R"J({"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD (Host -> Device)","pid":0,"tid":"stream 7","ts":70,"dur":10,"args":{"device":0,"stream":7}},)J"
      R"J({"ph":"i","s":"t","name":"[memory]","pid":1,"tid":1,"ts":5,"args":{"Device Type":1,"Device Id":0,"Bytes":4096}}]})J";
  AnalysisOptions options;
  options.collect_memory_timeline = true;
  TraceAnalyzer analyzer(options);
  auto info = ReadTraceFromString(text, "old.json", analyzer);
  ASSERT_TRUE(info.ok()) << info.error().message;
  TraceReport r = analyzer.Finish(*info);
  ASSERT_EQ(r.devices.size(), 1u);
  EXPECT_EQ(r.devices[0].kernel_count, 1);
  EXPECT_EQ(r.devices[0].memcpy_count, 2);
  EXPECT_EQ(r.devices[0].memset_count, 1);
  EXPECT_EQ(r.launch.kernels, 1);  // the Runtime call launched the kernel
  ASSERT_EQ(r.cpu_ops.size(), 1u);
  EXPECT_EQ(r.cpu_ops[0].name, "aten::conv2d");
  // Copies: the pageable one's bandwidth; the host-to-device one of no size
  // and no host memory kind has neither.
  const MemcpyStats* pageable = nullptr;
  const MemcpyStats* host = nullptr;
  for (const MemcpyStats& m : r.memory_traffic) {
    if (m.memory == "pageable") pageable = &m;
    if (m.route == "Host -> Device") host = &m;
  }
  ASSERT_NE(pageable, nullptr);
  EXPECT_DOUBLE_EQ(pageable->BandwidthGBps().value_or(-1), 1.0);
  ASSERT_NE(host, nullptr);
  EXPECT_EQ(host->memory, "unknown");
  EXPECT_FALSE(host->BandwidthGBps().has_value());
  // [memory] events that state no total: the peak is unknown, not 0 B at
  // the epoch.
  ASSERT_EQ(r.memory.size(), 1u);
  EXPECT_EQ(r.memory[0].events, 1);
  EXPECT_FALSE(r.memory[0].peak_allocated.has_value());
  EXPECT_FALSE(r.memory[0].peak_ts_ns.has_value());
  EXPECT_TRUE(r.memory_chart.empty());  // nothing drawn at 0 B
  EXPECT_EQ(RenderMemoryTimelineCsv(r.memory_timeline),
            "ts_ns,device_type,device_id,bytes,total_allocated,total_reserved\n5000,1,0,4096,,\n");
  const std::string console = RenderTraceConsole(r, {});
  EXPECT_NE(console.find("peak allocated unknown (no [memory] event states a total)"), std::string::npos) << console;
  EXPECT_NE(console.find("n/a  Host -> Device"), std::string::npos) << console;
  const std::string json = RenderTraceJson(r, {});
  EXPECT_NE(json.find("\"peak_offset_ns\": null"), std::string::npos) << json;
  EXPECT_NE(json.find("\"bandwidth_gbps\": null"), std::string::npos) << json;
}

// A real ROCm 6.2 trace (HTA's MI250 fixture): its copies name no host memory
// kind and no size, its kernels no grid or block.
TEST(TraceAnalysisTest, RocmFixtureCopiesAndLaunchesOfUnknownShape) {
  TraceAnalyzer analyzer({});
  auto info = ReadTrace(TraceDataPath("hta_amd_mi250_rocm6_2.json.gz"), analyzer);
  ASSERT_TRUE(info.ok()) << info.error().message;
  TraceReport r = analyzer.Finish(*info);
  ASSERT_EQ(r.devices.size(), 1u);
  EXPECT_EQ(r.devices[0].device, 2);
  EXPECT_EQ(r.devices[0].kernel_count, 14);
  EXPECT_EQ(r.devices[0].memcpy_count, 2);
  ASSERT_EQ(r.memory_traffic.size(), 1u);
  EXPECT_EQ(r.memory_traffic[0].route, "Host -> Device");
  EXPECT_EQ(r.memory_traffic[0].memory, "unknown");
  EXPECT_EQ(r.memory_traffic[0].without_bytes, 2);
  EXPECT_FALSE(r.memory_traffic[0].BandwidthGBps().has_value());
  const std::string console = RenderTraceConsole(r, {});
  EXPECT_EQ(console.find("0.00 GB/s"), std::string::npos) << console;
  EXPECT_EQ(console.find("0x0x0"), std::string::npos) << console;
  EXPECT_NE(console.find("n/a   38.2 us      n/a  Host -> Device"), std::string::npos) << console;
  const std::string json = RenderTraceJson(r, {});
  EXPECT_NE(json.find("\"bytes\": null"), std::string::npos) << json;
}

TEST(TraceAnalysisTest, AnUnknownLaunchConfigurationIsADash) {
  const char* text =
      R"J({"traceEvents":[)J"
      R"J({"ph":"X","cat":"kernel","name":"rocm_k","pid":0,"tid":1,"ts":0,"dur":10,"args":{"device":0,"stream":1}},)J"
      R"J({"ph":"X","cat":"kernel","name":"rocm_k","pid":0,"tid":1,"ts":20,"dur":10,"args":{"device":0,"stream":1}},)J"
      R"J({"ph":"X","cat":"kernel","name":"rocm_k","pid":0,"tid":1,"ts":40,"dur":10,"args":{"device":0,"stream":1}}]})J";
  TraceAnalyzer analyzer({});
  auto info = ReadTraceFromString(text, "rocm.json", analyzer);
  ASSERT_TRUE(info.ok()) << info.error().message;
  TraceReport r = analyzer.Finish(*info);
  ASSERT_FALSE(r.identical_launches.empty());
  const std::string console = RenderTraceConsole(r, {});
  EXPECT_EQ(console.find("0x0x0"), std::string::npos) << console;
  const std::string json = RenderTraceJson(r, {});
  EXPECT_NE(json.find("\"grid\": null"), std::string::npos) << json;
}

TEST(TraceAnalysisTest, AKernelsLaunchConfigurationIsTheOneThatHoldsMostOfItsTime) {
  // elem: 9 launches of 100 us on 4 blocks, one of 10 us on 4096 blocks,
  // in either order: the main configuration is 4 blocks, with 900 of 910 us.
  for (bool big_last : {false, true}) {
    std::string text = R"J({"traceEvents":[)J";
    for (int i = 0; i < 10; ++i) {
      const bool big = big_last ? i == 9 : i == 0;
      if (i) text += ",";
      text += R"J({"ph":"X","cat":"kernel","name":"elem","pid":0,"tid":7,"ts":)J" + std::to_string(200 * i) +
              R"J(,"dur":)J" + (big ? std::string("10") : std::string("100")) +
              R"J(,"args":{"device":0,"stream":7,"grid":[)J" + (big ? "4096" : "4") + R"J(,1,1],"block":[128,1,1]}})J";
    }
    text += "]}";
    TraceAnalyzer analyzer({});
    auto info = ReadTraceFromString(text, "order.json", analyzer);
    ASSERT_TRUE(info.ok()) << info.error().message;
    TraceReport r = analyzer.Finish(*info);
    const KernelStats* k = FindKernel(r.devices.at(0).kernels, "elem");
    ASSERT_NE(k, nullptr);
    EXPECT_EQ(k->grid[0], 4) << big_last;
    ASSERT_TRUE(k->config_share.has_value());
    EXPECT_NEAR(*k->config_share, 900.0 / 910.0, 1e-12);
  }
}

// The main configuration's registers and shared memory are its own
// launches', not those of whichever launch came last: a rare launch with
// 100 KB of shared memory does not lend it to the 0 B main configuration.
TEST(TraceAnalysisTest, AKernelsResourcesAreThoseOfItsMainLaunchConfiguration) {
  for (bool rare_last : {false, true}) {
    std::string text = R"J({"traceEvents":[)J";
    for (int i = 0; i < 10; ++i) {
      const bool rare = rare_last ? i == 9 : i == 0;
      if (i) text += ",";
      text += R"J({"ph":"X","cat":"kernel","name":"kA","pid":0,"tid":7,"ts":)J" + std::to_string(200 * i) +
              R"J(,"dur":)J" + (rare ? std::string("10") : std::string("100")) +
              R"J(,"args":{"device":0,"stream":7,"grid":[)J" + (rare ? "64" : "1080") +
              R"J(,1,1],"block":[)J" + (rare ? "128" : "256") + R"J(,1,1],"registers per thread":)J" +
              (rare ? "64" : "32") + R"J(,"shared memory":)J" + (rare ? "100000" : "0") + "}}";
    }
    text += "]}";
    TraceAnalyzer analyzer({});
    auto info = ReadTraceFromString(text, "resources.json", analyzer);
    ASSERT_TRUE(info.ok()) << info.error().message;
    TraceReport r = analyzer.Finish(*info);
    const KernelStats* k = FindKernel(r.devices.at(0).kernels, "kA");
    ASSERT_NE(k, nullptr);
    EXPECT_EQ(k->block[0], 256) << rare_last;
    ASSERT_TRUE(k->shared_memory_bytes.has_value()) << rare_last;
    EXPECT_EQ(*k->shared_memory_bytes, 0) << rare_last;
    ASSERT_TRUE(k->registers_per_thread.has_value()) << rare_last;
    EXPECT_EQ(*k->registers_per_thread, 32) << rare_last;
  }
}

// Dynamic shared memory is sized per launch: within one grid and block the
// size that holds most of the time is the configuration's, not one rare
// launch's largest (a 10 us launch at 100 KB beside 20 of 100 us at 0 B).
TEST(TraceAnalysisTest, SharedMemoryOfAConfigurationIsTheSizeThatHoldsMostOfItsTime) {
  for (bool rare_last : {false, true}) {
    std::string text = R"J({"traceEvents":[)J";
    for (int i = 0; i < 21; ++i) {
      const bool rare = rare_last ? i == 20 : i == 0;
      if (i) text += ",";
      text += R"J({"ph":"X","cat":"kernel","name":"kA","pid":0,"tid":7,"ts":)J" + std::to_string(200 * i) +
              R"J(,"dur":)J" + (rare ? std::string("10") : std::string("100")) +
              R"J(,"args":{"device":0,"stream":7,"grid":[1080,1,1],"block":[256,1,1],"registers per thread":32,)J" +
              R"J("shared memory":)J" + (rare ? "100000" : "0") + "}}";
    }
    text += "]}";
    TraceAnalyzer analyzer({});
    auto info = ReadTraceFromString(text, "smem.json", analyzer);
    ASSERT_TRUE(info.ok()) << info.error().message;
    TraceReport r = analyzer.Finish(*info);
    const KernelStats* k = FindKernel(r.devices.at(0).kernels, "kA");
    ASSERT_NE(k, nullptr);
    ASSERT_TRUE(k->shared_memory_bytes.has_value()) << rare_last;
    EXPECT_EQ(*k->shared_memory_bytes, 0) << rare_last;
  }
  // Sixteen short warm-up launches at sixteen other sizes first do not keep
  // the size that holds 96% of the time out.
  std::string text = R"J({"traceEvents":[)J";
  for (int i = 0; i < 36; ++i) {
    const bool warm = i < 16;
    if (i) text += ",";
    text += R"J({"ph":"X","cat":"kernel","name":"kB","pid":0,"tid":7,"ts":)J" + std::to_string(200 * i) +
            R"J(,"dur":)J" + (warm ? std::string("2") : std::string("100")) +
            R"J(,"args":{"device":0,"stream":7,"grid":[1080,1,1],"block":[256,1,1],"registers per thread":32,)J" +
            R"J("shared memory":)J" + (warm ? std::to_string(1024 * (i + 1)) : std::string("100000")) + "}}";
  }
  text += "]}";
  TraceAnalyzer analyzer({});
  auto info = ReadTraceFromString(text, "smem_warm.json", analyzer);
  ASSERT_TRUE(info.ok()) << info.error().message;
  TraceReport r = analyzer.Finish(*info);
  const KernelStats* k = FindKernel(r.devices.at(0).kernels, "kB");
  ASSERT_NE(k, nullptr);
  ASSERT_TRUE(k->shared_memory_bytes.has_value());
  EXPECT_EQ(*k->shared_memory_bytes, 100000);
}

// Past sixteen sizes a size that takes another's place inherits its time as
// an error, and the pick is by the time surely a size's own: 4096 B holds
// 40 us, 75 other sizes 1 us each, and one last launch at 49152 B holds
// 36 us (it inherited about 5 us and was picked with a count of 41).
TEST(TraceAnalysisTest, PastSixteenSizesSharedMemoryIsNotPickedByAnInheritedTime) {
  std::vector<std::pair<int, int>> launches(4, {4096, 10});  // bytes, us
  for (int i = 0; i < 75; ++i) launches.emplace_back(8192 + 64 * i, 1);
  launches.emplace_back(49152, 36);
  std::string text = R"J({"traceEvents":[)J";
  int64_t ts = 0;
  for (size_t i = 0; i < launches.size(); ++i) {
    if (i) text += ",";
    text += R"J({"ph":"X","cat":"kernel","name":"kC","pid":0,"tid":7,"ts":)J" + std::to_string(ts) +
            R"J(,"dur":)J" + std::to_string(launches[i].second) +
            R"J(,"args":{"device":0,"stream":7,"grid":[64,1,1],"block":[128,1,1],"shared memory":)J" +
            std::to_string(launches[i].first) + "}}";
    ts += launches[i].second + 2;
  }
  text += "]}";
  TraceAnalyzer analyzer({});
  auto info = ReadTraceFromString(text, "smem_many.json", analyzer);
  ASSERT_TRUE(info.ok()) << info.error().message;
  TraceReport r = analyzer.Finish(*info);
  const KernelStats* k = FindKernel(r.devices.at(0).kernels, "kC");
  ASSERT_NE(k, nullptr);
  ASSERT_TRUE(k->shared_memory_bytes.has_value());
  EXPECT_EQ(*k->shared_memory_bytes, 4096);
}

// A real trace of PyTorch's legacy exporter (Debian's python3-torch 1.13,
// built without Kineto): no "cat", pid "CPU functions". Its CPU ops and steps
// are read as Kineto's cpu_op (they were all ignored, and the report said
// every figure was exact).
TEST(TraceAnalysisTest, PyTorchsLegacyExporterIsReadAsCpuOps) {
  auto r = AnalyzeTrace(TraceDataPath("torch113_legacy_cpu.json.gz"), {});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->info.events, 342);
  EXPECT_EQ(r->info.legacy_cpu_events, 342);
  EXPECT_EQ(r->info.events_by_category[static_cast<int>(TraceCategory::kCpuOp)], 342);
  EXPECT_EQ(r->steps.size(), 2u);
  EXPECT_TRUE(r->devices.empty());
  const CpuOpStats* conv = nullptr;
  for (const CpuOpStats& op : r->cpu_ops)
    if (op.name == "aten::convolution_backward") conv = &op;
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(conv->count, 2);
  EXPECT_EQ(conv->self_ns, 55241000);
  EXPECT_EQ(conv->total_ns, 55268000);
}

// The legacy exporter's other spellings and events: libtorch's C++ writer
// names the process "CPU Functions" (read as CPU ops), and a PyTorch before
// 1.8 profiled with use_cuda=True wrote each op's CUDA-event time under
// "CUDA functions": nested like the ops and named by them, those are not
// kernels (read as kernels, aten::linear and the aten::addmm inside it were
// both counted), so they are counted and not read.
TEST(TraceAnalysisTest, TheLegacyExportersCppSpellingIsReadAndItsOpTimesOnTheGpuAreNotKernels) {
  const std::string text = R"J([
    {"name": "aten::linear", "ph": "X", "ts": 0, "dur": 60, "tid": 1, "pid": "CPU Functions", "args": {}},
    {"name": "aten::addmm", "ph": "X", "ts": 5, "dur": 50, "tid": 1, "pid": "CPU Functions", "args": {}},
    {"name": "ProfilerStep#3", "ph": "X", "ts": 0, "dur": 90, "tid": 1, "pid": "CPU Functions", "args": {}},
    {"name": "aten::linear", "ph": "X", "ts": 10, "dur": 40, "tid": 0, "pid": "CUDA functions", "args": {}},
    {"name": "aten::addmm", "ph": "X", "ts": 12, "dur": 35, "tid": 0, "pid": "CUDA functions", "args": {}}
  ])J";
  TraceAnalyzer analyzer({});
  auto info = ReadTraceFromString(text, "legacy_cuda.json", analyzer);
  ASSERT_TRUE(info.ok()) << info.error().message;
  EXPECT_EQ(info->legacy_cpu_events, 3);
  EXPECT_EQ(info->legacy_gpu_events, 2);
  TraceReport r = analyzer.Finish(*info);
  EXPECT_EQ(r.steps.size(), 1u);
  EXPECT_TRUE(r.devices.empty());
  for (const CpuOpStats& op : r.cpu_ops) {
    if (op.name == "aten::linear" || op.name == "aten::addmm") {
      EXPECT_EQ(op.count, 1) << op.name;
    }
  }
}

// libtorch's C++ writer spells the CUDA-event process "CUDA Functions" as it
// spells "CPU Functions": those events are counted too (they were dropped
// without a word, the trace read as having no GPU activity).
TEST(TraceAnalysisTest, TheLegacyExportersCudaFunctionsAreCountedInBothSpellings) {
  for (const char* pid : {"CUDA functions", "CUDA Functions"}) {
    const std::string text = std::string(R"J([
    {"name": "aten::add", "ph": "X", "ts": 0, "dur": 10, "tid": 1, "pid": "CPU Functions", "args": {}},
    {"name": "aten::add", "ph": "X", "ts": 2, "dur": 6, "tid": 0, "pid": ")J") + pid + R"J(", "args": {}}
  ])J";
    TraceAnalyzer analyzer({});
    auto info = ReadTraceFromString(text, "legacy.json", analyzer);
    ASSERT_TRUE(info.ok()) << info.error().message;
    EXPECT_EQ(info->legacy_cpu_events, 1) << pid;
    EXPECT_EQ(info->legacy_gpu_events, 1) << pid;
  }
}

// A kernel on several devices: the merged row's occupancy is the mean of
// all its launches, not the first device's.
TEST(TraceAnalysisTest, AKernelOnSeveralDevicesHasTheMeanOccupancyOfAllItsLaunches) {
  std::string events;
  for (int dev = 0; dev < 2; ++dev)
    for (int i = 0; i < 2; ++i)
      events += std::string(events.empty() ? "" : ",") + "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm\", \"pid\": " +
                std::to_string(dev) + ", \"tid\": 7, \"ts\": " + std::to_string(1000 + 200 * i) +
                ", \"dur\": 100, \"args\": {\"device\": " + std::to_string(dev) +
                ", \"stream\": 7, \"est. achieved occupancy %\": " + (dev == 0 ? "50" : "10") + "}}";
  TraceAnalyzer analyzer(AnalysisOptions{});
  auto info = ReadTraceFromString("{\"traceEvents\": [" + events + "]}", "two.json", analyzer);
  ASSERT_TRUE(info.ok()) << info.error().message;
  const TraceReport r = analyzer.Finish(*info);
  ASSERT_EQ(r.devices.size(), 2u);
  EXPECT_DOUBLE_EQ(*FindKernel(r.devices[0].kernels, "gemm")->mean_achieved_occupancy, 0.5);
  EXPECT_DOUBLE_EQ(*FindKernel(r.devices[1].kernels, "gemm")->mean_achieved_occupancy, 0.1);
  const KernelStats* all = FindKernel(r.top_kernels, "gemm");
  ASSERT_NE(all, nullptr);
  EXPECT_EQ(all->count, 4);
  EXPECT_DOUBLE_EQ(*all->mean_achieved_occupancy, 0.3);
}

}  // namespace
}  // namespace gpugate
