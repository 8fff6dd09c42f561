// The per-device GPU-window breakdown against an independent computation, and
// the exactness bookkeeping: reorder-window overruns, launch-window misses,
// negative durations, 64-bit launch costs, CUDA-graph attribution,
// communication/compute overlap and compiled regions.
//
// The expected figures for the four fixture traces were produced by
// scripts/trace_reference.py, which reads the whole file with Python's json
// module, converts the decimal microsecond text to integer nanoseconds and
// computes unions and gap classes by sorting every GPU activity (no streaming,
// no windows, no code shared with gpugate):
//   python3 scripts/trace_reference.py tests/data/traces/<file>
// Its definitions are HTA's temporal and idle-time breakdowns with a 30 us
// kernel-wait threshold (docs/trace.md, "Temporal breakdown").
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "trace/analysis.h"
#include "trace/report_render.h"
#include "trace/trace_test_data.h"

namespace gpugate {
namespace {

using testing::TraceDataPath;

struct Expected {
  const char* file;
  int64_t window_ns, busy_ns, idle_ns, host_wait_ns, kernel_wait_ns, other_ns, compute_ns;
  double idle_pct;
};

// Output of scripts/trace_reference.py (device 0 of each trace).
const Expected kFixtures[] = {
    {"kineto_ns_resolution_rank0.json.gz", 480029179, 472454441, 7574738, 1347125, 6227613, 0, 468153602, 1.5780},
    {"kineto_cuda_event_sync.json", 263000, 51000, 212000, 212000, 0, 0, 49000, 80.6084},
    {"kineto_simple_add_a100.json", 16025575000, 49758000, 15975817000, 15975716000, 101000, 0, 10670000, 99.6895},
};

TEST(GpuWindowTest, FixtureTracesMatchTheIndependentComputation) {
  for (const Expected& x : kFixtures) {
    SCOPED_TRACE(x.file);
    auto r = AnalyzeTrace(TraceDataPath(x.file), AnalysisOptions{});
    ASSERT_TRUE(r.ok()) << r.error().message;
    ASSERT_EQ(r->devices.size(), 1u);
    const DeviceStats& d = r->devices[0];
    EXPECT_EQ(d.WindowNs(), x.window_ns);
    EXPECT_EQ(d.busy_ns, x.busy_ns);
    EXPECT_EQ(d.window_idle_ns, x.idle_ns);
    EXPECT_EQ(d.window_idle.host_wait_ns, x.host_wait_ns);
    EXPECT_EQ(d.window_idle.kernel_wait_ns, x.kernel_wait_ns);
    EXPECT_EQ(d.window_idle.other_ns, x.other_ns);
    EXPECT_EQ(d.compute_ns, x.compute_ns);
    EXPECT_NEAR(100 * r->window_idle_share, x.idle_pct, 0.00005);  // the script prints percent
    // The whole-trace idle adds the leading and trailing gaps to the window's.
    EXPECT_EQ(d.idle_ns - d.window_idle_ns,
              (d.active_start_ns - r->span_start_ns) + (r->span_end_ns - d.active_end_ns));
    for (const FigureExactness& e : r->exactness) EXPECT_TRUE(e.exact) << e.figures << ": " << e.why;
  }
}

TEST(GpuWindowTest, PerStreamIdleMatchesTheIndependentComputation) {
  // scripts/trace_reference.py's "stream" lines for the two-stream fixture.
  struct Stream {
    int64_t stream, busy_ns, host_wait_ns, kernel_wait_ns, other_ns;
  };
  const Stream kExpected[] = {{7, 48745000, 15976739000, 91000, 0}, {20, 1071000, 13582776000, 8000, 0}};
  auto r = AnalyzeTrace(TraceDataPath("kineto_simple_add_a100.json"), AnalysisOptions{});
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->devices.size(), 1u);
  ASSERT_EQ(r->devices[0].streams.size(), 2u);
  for (const Stream& x : kExpected) {
    SCOPED_TRACE(x.stream);
    const StreamStats* s = nullptr;
    for (const StreamStats& st : r->devices[0].streams)
      if (st.stream == x.stream) s = &st;
    ASSERT_NE(s, nullptr);
    EXPECT_EQ(s->busy_ns, x.busy_ns);
    EXPECT_EQ(s->idle.host_wait_ns, x.host_wait_ns);
    EXPECT_EQ(s->idle.kernel_wait_ns, x.kernel_wait_ns);
    EXPECT_EQ(s->idle.other_ns, x.other_ns);
  }
}

TEST(GpuWindowTest, TraceWithoutGpuActivityHasNoWindow) {
  auto r = AnalyzeTrace(TraceDataPath("kineto_cupti_profiler_range.json"), AnalysisOptions{});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(r->devices.empty());  // the reference script prints no device either
  EXPECT_EQ(r->window_idle_share, 1.0);
}

TEST(GpuWindowTest, KernelWaitThresholdIsConfigurable) {
  // At 30 ns (HTA's number read as nanoseconds) the 6.23 ms of short gaps in
  // the ns-resolution trace all become "other" except those below 30 ns.
  AnalysisOptions opt;
  opt.kernel_wait_threshold_ns = 30;
  auto r = AnalyzeTrace(TraceDataPath("kineto_ns_resolution_rank0.json.gz"), opt);
  ASSERT_TRUE(r.ok());
  const DeviceStats& d = r->devices[0];
  EXPECT_EQ(d.window_idle.host_wait_ns, 1347125);
  EXPECT_LT(d.window_idle.kernel_wait_ns, 1000);
  EXPECT_GT(d.window_idle.other_ns, 6000000);
  EXPECT_EQ(d.window_idle.Total(), 7574738);
}

TraceEvent Ev(char ph, TraceCategory cat, const std::string& name, int64_t ts, int64_t dur) {
  TraceEvent e;
  e.ph = ph;
  e.category = cat;
  e.name = name;
  e.has_ts = e.has_dur = true;
  e.ts_ns = ts;
  e.dur_ns = dur;
  e.pid_is_num = e.tid_is_num = true;
  e.pid_num = 1;
  e.tid_num = 2;
  e.pid_text = "1";
  e.tid_text = "2";
  return e;
}

TraceEvent Kernel(const std::string& name, int64_t stream, int64_t ts, int64_t dur, int64_t corr = -1) {
  TraceEvent e = Ev('X', TraceCategory::kKernel, name, ts, dur);
  e.device = 0;
  e.stream = stream;
  e.correlation = corr;
  return e;
}

TraceEvent Runtime(const std::string& name, int64_t ts, int64_t dur, int64_t corr) {
  TraceEvent e = Ev('X', TraceCategory::kCudaRuntime, name, ts, dur);
  e.correlation = corr;
  return e;
}

TraceReport RunEvents(const std::vector<TraceEvent>& events, AnalysisOptions opt = {}) {
  TraceAnalyzer a(opt);
  for (const TraceEvent& e : events) a.OnEvent(e);
  return a.Finish(TraceInfo{});
}

TEST(GpuWindowTest, LaunchCostBeyondInt32IsExact) {
  // A 4.22 s first launch (a cuDNN autotune) followed by a 10 us kernel.
  std::vector<TraceEvent> ev = {Runtime("cudaLaunchKernel", 0, 4'220'000'000, 1),
                                Kernel("k", 7, 4'220'000'100, 10'000, 1)};
  TraceReport r = RunEvents(ev);
  EXPECT_EQ(r.launch.launch_cost_ns, 4'220'000'000);
  ASSERT_EQ(r.launch.short_kernels.size(), 1u);
  EXPECT_EQ(r.launch.short_kernels[0].launch_ns, 4'220'000'000);
}

TEST(GpuWindowTest, ReorderOverrunIsCountedBoundedAndWidensTheWindow) {
  // Two streams written one after the other (stream 1 whole, then stream 2):
  // stream 2's kernels fill the gaps of stream 1. With a window of 4 the
  // later stream arrives after its time was swept.
  std::vector<TraceEvent> ev;
  for (int i = 0; i < 8; ++i) ev.push_back(Kernel("a", 1, i * 100, 50));
  for (int i = 0; i < 8; ++i) ev.push_back(Kernel("b", 2, i * 100 + 50, 50));
  AnalysisOptions opt;
  opt.gpu_reorder_window = 4;
  TraceReport r = RunEvents(ev, opt);
  const Approximations& a = r.approximations;
  EXPECT_GT(a.gpu_reorder_overruns, 0);
  EXPECT_GT(a.gpu_reorder_window, 4);
  // The true busy time is 800 ns; what was lost is within the stated bound.
  ASSERT_EQ(r.devices.size(), 1u);
  EXPECT_LE(r.devices[0].busy_ns, 800);
  EXPECT_GE(r.devices[0].busy_ns + a.gpu_reorder_uncertain_ns, 800);
  bool flagged = false;
  for (const FigureExactness& e : r.exactness)
    if (e.figures.find("device breakdown") != std::string::npos) {
      flagged = !e.exact;
      EXPECT_NE(e.why.find("out of start order"), std::string::npos) << e.why;
    }
  EXPECT_TRUE(flagged);
  // In order, the same events are exact.
  std::sort(ev.begin(), ev.end(), [](const TraceEvent& x, const TraceEvent& y) { return x.ts_ns < y.ts_ns; });
  TraceReport ordered = RunEvents(ev, opt);
  EXPECT_EQ(ordered.devices[0].busy_ns, 800);
  EXPECT_EQ(ordered.approximations.gpu_reorder_overruns, 0);
}

TEST(GpuWindowTest, LaunchWindowMissIsCountedAndWidensTheWindow) {
  // All runtime calls first, then their kernels (as some exporters write):
  // with a launch window of 4, the first launches are forgotten.
  std::vector<TraceEvent> ev;
  for (int i = 0; i < 16; ++i) ev.push_back(Runtime("cudaLaunchKernel", i * 10, 5, i + 1));
  for (int i = 0; i < 16; ++i) ev.push_back(Kernel("k", 7, 1000 + i * 100, 50, i + 1));
  AnalysisOptions opt;
  opt.launch_window = 4;
  TraceReport r = RunEvents(ev, opt);
  const Approximations& a = r.approximations;
  EXPECT_EQ(a.launch_window_misses, 12);
  EXPECT_EQ(a.unmatched_gpu_ops, 12);
  EXPECT_EQ(r.launch.gpu_ops_matched, 4);
  EXPECT_GT(a.launch_window, 4);
  bool flagged = false, idle_flagged = false;
  for (const FigureExactness& e : r.exactness) {
    if (e.figures.find("launch delay,") != std::string::npos) {
      flagged = !e.exact;
      EXPECT_NE(e.why.find("launch window forgot"), std::string::npos) << e.why;
    }
    // Host-wait needs the launch call: the idle classes lost it too.
    if (e.figures.find("idle classes") != std::string::npos) {
      idle_flagged = !e.exact;
      EXPECT_NE(e.why.find("12 GPU activities were placed without the launch call"), std::string::npos) << e.why;
    }
  }
  EXPECT_TRUE(flagged);
  EXPECT_TRUE(idle_flagged);
}

TEST(GpuWindowTest, LaunchCallsAfterTheirKernelsBeyondTheWindowAreCountedLate) {
  // Every kernel first, then their runtime calls: with a launch window of 4
  // the first 12 kernels stop waiting before their calls come.
  std::vector<TraceEvent> ev;
  for (int i = 0; i < 16; ++i) ev.push_back(Kernel("k", 7, 1000 + i * 100, 50, i + 1));
  for (int i = 0; i < 16; ++i) ev.push_back(Runtime("cudaLaunchKernel", i * 10, 5, i + 1));
  AnalysisOptions opt;
  opt.launch_window = 4;
  TraceReport r = RunEvents(ev, opt);
  const Approximations& a = r.approximations;
  EXPECT_EQ(a.late_launch_calls, 12);
  EXPECT_EQ(a.launch_window_misses, 0);
  EXPECT_EQ(a.unmatched_gpu_ops, 12);
  EXPECT_GT(a.launch_window, 4);
  int inexact = 0;
  for (const FigureExactness& e : r.exactness) {
    if (e.figures.find("launch delay,") != std::string::npos) {
      inexact += !e.exact;
      EXPECT_NE(e.why.find("12 of them because their call came later in the trace"), std::string::npos) << e.why;
    }
    if (e.figures.find("idle classes") != std::string::npos) inexact += !e.exact;
  }
  EXPECT_EQ(inexact, 2);
}

TEST(GpuWindowTest, SharesOverManyDevicesOfLongSpansDoNotWrap) {
  // Ten GPUs, each with two 1 us kernels 0.9e18 ns apart (inside the reader's
  // limits): their spans add up beyond 64-bit nanoseconds.
  std::vector<TraceEvent> ev;
  for (int d = 0; d < 10; ++d) {
    TraceEvent first = Kernel("k", 7, 1000, 1000);
    TraceEvent last = Kernel("k", 7, 900'000'000'000'000'000, 1000);
    first.device = last.device = d;
    ev.push_back(first);
    ev.push_back(last);
  }
  TraceReport r = RunEvents(ev);
  ASSERT_EQ(r.devices.size(), 10u);
  EXPECT_GT(r.gpu_idle_share, 0.999);
  EXPECT_GT(r.window_idle_share, 0.999);
  EXPECT_LE(r.gpu_idle_share, 1.0);
}

TEST(GpuWindowTest, TheLaunchDelayMeanOfHugeDelaysIsExact) {
  std::vector<TraceEvent> ev;
  for (int i = 0; i < 10; ++i) {
    ev.push_back(Runtime("cudaLaunchKernel", i * 10, 5, i + 1));
    ev.push_back(Kernel("k", 7, 2'000'000'000'000'000'000 + i * 1000, 50, i + 1));
  }
  TraceReport r = RunEvents(ev);
  ASSERT_EQ(r.launch.delays, 10);
  EXPECT_GE(r.launch.delay_mean_ns, static_cast<double>(r.launch.delay_min_ns));
  EXPECT_LE(r.launch.delay_mean_ns, static_cast<double>(r.launch.delay_max_ns));
}

TEST(GpuWindowTest, NegativeDurationsAreReported) {
  auto r = AnalyzeTraceText(
      R"({"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 10, "dur": -5,
          "args": {"device": 0, "stream": 7}}, {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7,
          "ts": 20, "dur": 5, "args": {"device": 0, "stream": 7}}]})",
      "neg.json", AnalysisOptions{});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->approximations.negative_durations, 1);
  bool flagged = false;
  for (const FigureExactness& e : r->exactness)
    if (e.figures == "event durations") flagged = !e.exact;
  EXPECT_TRUE(flagged);
}

TEST(GpuWindowTest, GraphKernelsAreAttributedToTheirGraphLaunch) {
  std::vector<TraceEvent> ev = {
      Runtime("cudaGraphLaunch", 0, 20, 9),      Kernel("g1", 7, 100, 10, 9), Kernel("g2", 7, 110, 20, 9),
      Kernel("g1", 7, 130, 10, 9),               Runtime("cudaLaunchKernel", 200, 5, 10),
      Kernel("plain", 7, 300, 40, 10),
  };
  TraceReport r = RunEvents(ev);
  EXPECT_EQ(r.graphs.launches, 1);
  EXPECT_EQ(r.graphs.kernels, 3);
  EXPECT_EQ(r.graphs.gpu_ns, 40);
  ASSERT_EQ(r.graphs.top_kernels.size(), 2u);
  EXPECT_EQ(r.graphs.top_kernels[0].name, "g1");  // 20 ns; g2 also 20 ns, sorted by name
  for (const KernelStats& k : r.top_kernels) EXPECT_EQ(k.graph_count, k.name == "plain" ? 0 : k.count) << k.name;
}

TEST(GpuWindowTest, AGraphLaunchCostsOnceAndItsKernelsAreNotShorterThanIt) {
  // Two graph launches of 20 ns, each running three kernels of 10 ns, and
  // one plain launch of 5 ns: the calls cost 45 ns, not 20 per kernel; no
  // kernel of a graph is "shorter than its launch" (one call launched all).
  // Either file order: the call before its kernels, or after.
  for (const bool calls_first : {true, false}) {
    std::vector<TraceEvent> calls = {Runtime("cudaGraphLaunch", 0, 20, 9), Runtime("cudaGraphLaunch", 500, 20, 11),
                                     Runtime("cudaLaunchKernel", 900, 5, 10)};
    std::vector<TraceEvent> kernels = {Kernel("g1", 7, 100, 10, 9),  Kernel("g2", 7, 110, 10, 9),
                                       Kernel("g3", 7, 120, 10, 9),  Kernel("g1", 7, 600, 10, 11),
                                       Kernel("g2", 7, 610, 10, 11), Kernel("g3", 7, 620, 10, 11),
                                       Kernel("plain", 7, 1000, 40, 10)};
    std::vector<TraceEvent> ev = calls_first ? calls : kernels;
    ev.insert(ev.end(), (calls_first ? kernels : calls).begin(), (calls_first ? kernels : calls).end());
    TraceReport r = RunEvents(ev);
    EXPECT_EQ(r.launch.kernels, 7) << calls_first;
    EXPECT_EQ(r.launch.launch_cost_ns, 45) << calls_first;
    EXPECT_EQ(r.launch.kernel_runtime_ns, 100) << calls_first;
    EXPECT_EQ(r.launch.shorter_than_launch, 0) << calls_first;
    EXPECT_EQ(r.launch.delays, 1) << calls_first;  // the plain kernel's
    ASSERT_EQ(r.devices.size(), 1u);
    EXPECT_EQ(r.devices[0].launches_matched, 7);
    EXPECT_EQ(r.devices[0].shorter_than_launch, 0);
  }
}

TEST(GpuWindowTest, LaunchCountersArePerDevice) {
  // GPU 0: short kernels behind longer launch calls; GPU 1: long kernels.
  std::vector<TraceEvent> ev;
  for (int i = 0; i < 4; ++i) {
    ev.push_back(Runtime("cudaLaunchKernel", 1000 * i, 50, 100 + i));
    ev.push_back(Kernel("tiny", 7, 1000 * i + 60, 10, 100 + i));
  }
  for (int i = 0; i < 3; ++i) {
    ev.push_back(Runtime("cudaLaunchKernel", 1000 * i + 500, 50, 200 + i));
    TraceEvent k = Kernel("long", 8, 1000 * i + 560, 400, 200 + i);
    k.device = 1;
    ev.push_back(k);
  }
  TraceReport r = RunEvents(ev);
  EXPECT_EQ(r.launch.kernels, 7);
  EXPECT_EQ(r.launch.shorter_than_launch, 4);
  ASSERT_EQ(r.devices.size(), 2u);
  for (const DeviceStats& d : r.devices) {
    EXPECT_EQ(d.launches_matched, d.device == 0 ? 4 : 3) << d.device;
    EXPECT_EQ(d.shorter_than_launch, d.device == 0 ? 4 : 0) << d.device;
  }
}

TEST(GpuWindowTest, CommunicationOverlapAndSteps) {
  // Compute [0,100), NCCL [50,150): communication alone 50, total 100,
  // overlapped 50.
  TraceEvent step1 = Ev('X', TraceCategory::kUserAnnotation, "ProfilerStep#7", 0, 80);
  TraceEvent step2 = Ev('X', TraceCategory::kUserAnnotation, "ProfilerStep#8", 80, 90);
  TraceEvent region = Ev('X', TraceCategory::kCpuOp, "Torch-Compiled Region: 0/1", 5, 30);
  std::vector<TraceEvent> ev = {step2, step1, region, Kernel("gemm", 7, 0, 100),
                                Kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL", 8, 50, 100)};
  TraceReport r = RunEvents(ev);
  ASSERT_EQ(r.devices.size(), 1u);
  EXPECT_EQ(r.devices[0].communication_ns, 50);
  EXPECT_EQ(r.devices[0].communication_total_ns, 100);
  EXPECT_EQ(r.devices[0].comm_compute_overlap_ns, 50);
  ASSERT_EQ(r.steps.size(), 2u);
  EXPECT_EQ(r.steps[0].number, 7);
  EXPECT_EQ(r.steps[1].number, 8);
  EXPECT_EQ(r.steps[1].end_ns, 170);
  ASSERT_EQ(r.compiled_regions.size(), 1u);
  EXPECT_EQ(r.compiled_regions[0].total_ns, 30);
}

TEST(GpuWindowTest, GraphAndRegionNamesAreEscapedInEveryOutput) {
  const std::string evil = "<script>alert(1)</script>|*_\x1b[31m";
  std::vector<TraceEvent> ev = {Runtime("cudaGraphLaunch", 0, 20, 9), Kernel(evil, 7, 100, 10, 9),
                                Ev('X', TraceCategory::kCpuOp, "Torch-Compiled Region: " + evil, 0, 50)};
  TraceReport r = RunEvents(ev);
  TraceFindingSet f;
  f.policy = "default";
  const std::string html = RenderTraceHtml(r, f), md = RenderTraceMarkdown(r, f), text = RenderTraceConsole(r, f);
  EXPECT_NE(html.find("CUDA graphs"), std::string::npos);
  EXPECT_NE(html.find("Compiled regions"), std::string::npos);
  EXPECT_EQ(html.find("<script>alert"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert"), std::string::npos);
  EXPECT_NE(md.find("### CUDA graphs"), std::string::npos);
  EXPECT_EQ(md.find("<script>alert"), std::string::npos);
  EXPECT_NE(text.find("CUDA graphs: 1 graph launch ran 1 kernel and 0 copies"), std::string::npos) << text;
  EXPECT_EQ(text.find('\x1b'), std::string::npos);
  const std::string json = RenderTraceJson(r, f);
  EXPECT_NE(json.find("\"graph_count\": 1"), std::string::npos);
}

}  // namespace
}  // namespace gpugate
