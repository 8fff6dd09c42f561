// Tests of the pictures: folded stacks and HTML flame graph (GPU time under
// the launching CPU stack; merged step frames, views, folding, search), the
// Chrome-trace timeline export and the memory timeline (CSV/JSON, the
// downsampled chart, the peak's step).
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "cli/run_binary.h"
#include "trace/analysis.h"
#include "trace/findings.h"
#include "trace/flame.h"
#include "trace/memory_chart.h"
#include "trace/report_render.h"
#include "trace/timeline.h"
#include "trace/trace_reader.h"
#include "trace/trace_test_data.h"
#include "util/json.h"
#include "util/text/escape.h"

namespace gpugate {
namespace {

using testing::TraceDataPath;

TraceReport Analyze(const char* text, AnalysisOptions opt) {
  TraceAnalyzer analyzer(opt);
  auto info = ReadTraceFromString(text, "t.json", analyzer);
  EXPECT_TRUE(info.ok()) << info.error().message;
  return analyzer.Finish(*info);
}

TEST(TraceFlameTest, FoldedStacksAttributeGpuTimeToLaunchingStack) {
  AnalysisOptions opt;
  opt.collect_flame = true;
  TraceReport r = Analyze(testing::kHandTrace, opt);
  ASSERT_NE(r.flame, nullptr);
  // Worked out by hand from the timeline in trace_test_data.h: CPU self time
  // per stack, GPU time under the runtime call that launched it (ns).
  const std::string expected =
      "pid 100 tid 100;step 101000\n"
      "pid 100 tid 100;step;outer 76000\n"
      "pid 100 tid 100;step;outer;inner 9000\n"
      "pid 100 tid 100;step;outer;inner;cudaLaunchKernel 10000\n"
      "pid 100 tid 100;step;outer;inner;cudaLaunchKernel;[gpu] k1 15000\n"
      "pid 100 tid 100;step;outer;inner;cudaLaunchKernel;[gpu] k2 10000\n"
      "pid 100 tid 100;step;outer;inner;cudaMemsetAsync 1000\n"
      "pid 100 tid 100;step;outer;inner;cudaMemsetAsync;[gpu] Memset (Device) 1000\n"
      "pid 100 tid 100;step;outer;cudaMemcpyAsync 2000\n"
      "pid 100 tid 100;step;outer;cudaMemcpyAsync;cudaLaunchKernel 1000\n"
      "pid 100 tid 100;step;outer;cudaMemcpyAsync;cudaLaunchKernel;[gpu] ncclKernel_AllReduce_RING_LL_Sum_float 10000\n"
      "pid 100 tid 100;step;outer;cudaMemcpyAsync;[gpu] Memcpy HtoD (Pinned -> Device) 8000\n"
      "[gpu without launch];[gpu] k3 50000\n";
  EXPECT_EQ(RenderFolded(*r.flame), expected);
  // CPU 200 us of "step" plus 94 us of GPU work.
  EXPECT_EQ(r.flame->Total(0), 294000);
}

TEST(TraceFlameTest, ThreadsWithLargeIdsStayApart) {
  // pid 1 / tid 0 and pid 0 / tid 2^32 would share a key if the two numbers
  // were packed into 64 bits.
  AnalysisOptions opt;
  opt.collect_flame = true;
  TraceReport r = Analyze(
      R"([{"ph":"X","cat":"cpu_op","name":"a","pid":1,"tid":0,"ts":0,"dur":5},)"
      R"({"ph":"X","cat":"cpu_op","name":"b","pid":0,"tid":4294967296,"ts":1,"dur":3}])",
      opt);
  ASSERT_NE(r.flame, nullptr);
  EXPECT_EQ(RenderFolded(*r.flame), "pid 1 tid 0;a 5000\npid 0 tid 4294967296;b 3000\n");
}

TEST(TraceFlameTest, FoldedAndHtmlEscapeNames) {
  FlameGraph g;
  int a = g.Child(0, "a;b\nc");
  int b = g.Child(a, "</script><img src=x onerror=alert(1)>");
  g.nodes[b].self_ns = 5;
  EXPECT_EQ(RenderFolded(g), "a:b c;</script><img src=x onerror=alert(1)> 5\n");
  // Folded lines reach terminals and CI logs (--flame -): no raw control, no
  // line that starts a workflow command; "::" inside a line stays.
  FlameGraph hostile;
  int t = hostile.Child(0, "::error::t\x1b[2J\u202e");
  int k = hostile.Child(t, "::operator new");
  hostile.nodes[k].self_ns = 7;
  EXPECT_EQ(RenderFolded(hostile), "\\x3a:error::t\\x1b[2J\\u202E;::operator new 7\n");
  std::string html = RenderFlameHtml(g, "t <&>");
  EXPECT_EQ(html.find("</script><img"), std::string::npos);
  EXPECT_NE(html.find("\\u003C/script\\u003E\\u003Cimg src=x onerror=alert(1)\\u003E"), std::string::npos);
  EXPECT_NE(html.find("<title>t &lt;&amp;&gt;</title>"), std::string::npos);
  EXPECT_EQ(html.find("http"), std::string::npos);  // self-contained: no external resources
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
}

TEST(TraceFlameTest, FixtureFlameGraphCoversAllKernelTime) {
  AnalysisOptions opt;
  opt.collect_flame = true;
  auto r = AnalyzeTrace(TraceDataPath("kineto_simple_add_a100.json"), opt);
  ASSERT_TRUE(r.ok()) << r.error().message;
  int64_t gpu = 0;
  for (const FlameGraph::Node& n : r->flame->nodes)
    if (n.name.rfind("[gpu] ", 0) == 0) gpu += n.self_ns;
  // Kernels 10728000 + memcpy and memset durations (python over the file:
  // sum of dur of cat kernel, gpu_memcpy, gpu_memset, in ns).
  EXPECT_EQ(gpu, 10728000 + 39080000 + 8000);
  std::string html = RenderFlameHtml(*r->flame, "simple_add");
  EXPECT_NE(html.find("aten::add"), std::string::npos);
  std::string folded = RenderFolded(*r->flame);
  EXPECT_NE(folded.find(";cudaLaunchKernel;[gpu] "), std::string::npos);
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  size_t at = 0;
  for (size_t nl; (nl = text.find('\n', at)) != std::string::npos; at = nl + 1) out.push_back(text.substr(at, nl - at));
  return out;
}

TEST(TraceFlameTest, MergedFrameNameReplacesTrailingNumber) {
  EXPECT_EQ(MergedFrameName("ProfilerStep#12"), "ProfilerStep#*");
  EXPECT_EQ(MergedFrameName("## forward #7"), "## forward #*");
  EXPECT_EQ(MergedFrameName("iter#007"), "iter#*");
  EXPECT_EQ(MergedFrameName("#3"), "#*");
  EXPECT_EQ(MergedFrameName("ProfilerStep#"), "ProfilerStep#");
  EXPECT_EQ(MergedFrameName("ProfilerStep#1a"), "ProfilerStep#1a");
  EXPECT_EQ(MergedFrameName("layer12"), "layer12");
  EXPECT_EQ(MergedFrameName("12"), "12");
  EXPECT_EQ(MergedFrameName(""), "");
}

TEST(TraceFlameTest, ProfilerStepsMergeIntoOneFrameWithSummedChildren) {
  AnalysisOptions opt;
  opt.collect_flame = true;
  // 3 steps of 9,990 us, each with a 6 us GEMM launch and two 3 us launches
  // of 2 us kernels (trace_test_data.h).
  TraceReport r = Analyze(testing::TrainingLoopTrace(3, {}, 2).c_str(), opt);
  ASSERT_NE(r.flame, nullptr);
  std::string folded = RenderFolded(*r.flame);
  EXPECT_EQ(folded.find("ProfilerStep#1"), std::string::npos) << folded;
  const std::string expected =
      "pid 100 tid 100;ProfilerStep#* 29934000\n"  // 3 * (9990 - 6 - 2 * 3) us
      "pid 100 tid 100;ProfilerStep#*;cudaLaunchKernel 36000\n"
      "pid 100 tid 100;ProfilerStep#*;cudaLaunchKernel;[gpu] ampere_sgemm_128x64_tn 6000000\n"
      "pid 100 tid 100;ProfilerStep#*;cudaLaunchKernel;"
      "[gpu] void at::native::vectorized_elementwise_kernel<4, at::native::AUnaryFunctor<float>> 12000\n";
  EXPECT_EQ(folded, expected);
}

TEST(TraceFlameTest, GpuViewShowsOnlyGpuTimeUnderLaunchingStacks) {
  AnalysisOptions opt;
  opt.collect_flame = true;
  TraceReport r = Analyze(testing::kHandTrace, opt);
  FlameGraph gpu = SelectView(*r.flame, FlameView::kGpu);
  EXPECT_EQ(RenderFolded(gpu),
            "pid 100 tid 100;step;outer;inner;cudaLaunchKernel;[gpu] k1 15000\n"
            "pid 100 tid 100;step;outer;inner;cudaLaunchKernel;[gpu] k2 10000\n"
            "pid 100 tid 100;step;outer;inner;cudaMemsetAsync;[gpu] Memset (Device) 1000\n"
            "pid 100 tid 100;step;outer;cudaMemcpyAsync;cudaLaunchKernel;"
            "[gpu] ncclKernel_AllReduce_RING_LL_Sum_float 10000\n"
            "pid 100 tid 100;step;outer;cudaMemcpyAsync;[gpu] Memcpy HtoD (Pinned -> Device) 8000\n"
            "[gpu without launch];[gpu] k3 50000\n");
  EXPECT_EQ(gpu.Total(0), 94000);
  // At the top level the GPU view is GPU time only: the thread frame holds
  // the 44 us launched from it, "[gpu without launch]" the other 50 us.
  ASSERT_EQ(gpu.nodes[0].children.size(), 2u);
  EXPECT_EQ(gpu.Total(gpu.nodes[0].children[0]), 44000);

  FlameGraph cpu = SelectView(*r.flame, FlameView::kCpu);
  EXPECT_EQ(cpu.Total(0), 200000);
  std::string cpu_folded = RenderFolded(cpu);
  EXPECT_EQ(cpu_folded.find("[gpu"), std::string::npos) << cpu_folded;
  EXPECT_EQ(Lines(cpu_folded).size(), 7u);

  FlameGraph all = SelectView(*r.flame, FlameView::kAll);
  EXPECT_EQ(RenderFolded(all), RenderFolded(*r.flame));
}

TEST(TraceFlameTest, SmallFramesFoldIntoOtherPerParentKeepingTotals) {
  FlameGraph g;
  int a = g.Child(0, "a");
  g.nodes[a].self_ns = 9000;
  int a1 = g.Child(a, "a1");
  g.nodes[a1].self_ns = 900;
  int a2 = g.Child(a, "a2");
  g.nodes[a2].self_ns = 50;
  int a3 = g.Child(a2, "a3");
  g.nodes[a3].self_ns = 40;
  int b = g.Child(0, "b");
  g.nodes[b].self_ns = 10;
  // Total 10,000; below 1% (100 ns): a2 (90 with a3), a3 inside it, b.
  int64_t folded = -1;
  FlameGraph f = FoldSmallFrames(g, 0.01, &folded);
  EXPECT_EQ(folded, 3);
  EXPECT_EQ(RenderFolded(f),
            "a 9000\n"
            "a;a1 900\n"
            "a;[other] 90\n"
            "[other] 10\n");
  EXPECT_EQ(f.Total(0), g.Total(0));
  FlameGraph none = FoldSmallFrames(g, 0, &folded);
  EXPECT_EQ(folded, 0);
  EXPECT_EQ(RenderFolded(none), RenderFolded(g));
}

TEST(TraceFlameTest, HtmlCarriesThreeViewsSearchCountAndFoldNote) {
  AnalysisOptions opt;
  opt.collect_flame = true;
  TraceReport r = Analyze(testing::kHandTrace, opt);
  std::string html = RenderFlameHtml(*r.flame, "hand", FlameHtmlOptions{0.1});
  for (const char* view : {"{\"name\":\"all\"", "{\"name\":\"cpu\"", "{\"name\":\"gpu\""})
    EXPECT_NE(html.find(view), std::string::npos) << view;
  // One page with a switch; search reports frames and time share.
  EXPECT_NE(html.find("name=\"view\" value=\"2\""), std::string::npos);
  EXPECT_NE(html.find("' frames match, '"), std::string::npos);
  EXPECT_NE(html.find("'% of the time'"), std::string::npos);
  // At 10% of 294 us, frames under 29.4 us fold: the all view keeps the
  // thread, step, outer and [gpu without launch] frames, k3, and [other]s.
  EXPECT_NE(html.find("\"folded\":"), std::string::npos);
  EXPECT_NE(html.find("[\"[other]\","), std::string::npos);
  EXPECT_EQ(html.find("\"folded\":0,\"min_share\":0.1,\"nodes\":[[\"all\""), std::string::npos);
  EXPECT_EQ(html.find("http"), std::string::npos);
}

TEST(TraceTimelineTest, NanosToMicrosText) {
  EXPECT_EQ(NanosToMicrosText(1712195495519689047), "1712195495519689.047");
  EXPECT_EQ(NanosToMicrosText(75010), "75.010");
  EXPECT_EQ(NanosToMicrosText(5), "0.005");
  EXPECT_EQ(NanosToMicrosText(-1500), "-1.500");
}

int CountKernels(const JsonValue& doc) {
  int n = 0;
  for (const JsonValue& e : doc.Find("traceEvents")->items)
    if (e.Find("cat")->string == "kernel") ++n;
  return n;
}

JsonValue Export(const TimelineFilter& filter) {
  TimelineWriter writer(filter);
  auto info = ReadTraceFromString(testing::kHandTrace, "hand.json", writer);
  EXPECT_TRUE(info.ok());
  auto doc = ParseJson(writer.Finish(), "timeline.json");
  EXPECT_TRUE(doc.ok()) << doc.error().message;
  return *doc;
}

TEST(TraceTimelineTest, ExportIsValidChromeTraceWithRequiredFields) {
  JsonValue doc = Export({});
  EXPECT_EQ(doc.Find("displayTimeUnit")->string, "ns");
  const auto& events = doc.Find("traceEvents")->items;
  ASSERT_EQ(events.size(), 22u);
  for (const JsonValue& e : events) {
    for (const char* key : {"name", "ph", "ts", "pid", "tid", "cat", "args"})
      EXPECT_NE(e.Find(key), nullptr) << key;
    if (e.Find("ph")->string == "X") {
      EXPECT_TRUE(e.Find("dur")->IsNumber());
    }
    EXPECT_TRUE(e.Find("args")->IsObject());
  }
  // Exact ts text and args carried through.
  bool saw_memset = false;
  for (const JsonValue& e : events)
    if (e.Find("cat")->string == "gpu_memset") {
      saw_memset = true;
      EXPECT_DOUBLE_EQ(e.Find("ts")->number, 75.01);
      EXPECT_EQ(e.Find("args")->Find("bytes")->integer, 64);
    }
  EXPECT_TRUE(saw_memset);
}

TEST(TraceTimelineTest, ArgsOfInvalidUtf8AreRepairedSoTheFileStaysJson) {
  // A raw 0xFF byte in an args value, an args key and a thread name.
  const std::string trace =
      "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, "
      "\"ts\": 1, \"dur\": 2, \"args\": {\"device\": 0, \"stream\": 7, \"note\": \"a\xff b\", \"k\xfe\": 1}},"
      " {\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": 0, \"tid\": 7, \"args\": {\"name\": \"t\xff\"}}]}";
  TimelineFilter f;
  f.keep_metadata = true;
  TimelineWriter writer(f);
  auto info = ReadTraceFromString(trace, "u.json", writer);
  ASSERT_TRUE(info.ok()) << info.error().message;
  const std::string out = writer.Finish();
  EXPECT_EQ(ValidUtf8Prefix(out), out.size());
  EXPECT_NE(out.find("a\uFFFD b"), std::string::npos) << out;
  auto doc = ParseJson(out, "timeline.json");
  ASSERT_TRUE(doc.ok()) << doc.error().message;
}

TEST(TraceTimelineTest, FiltersByCategoryDeviceWindowAndKernelNames) {
  TimelineFilter f;
  f.categories = {"kernel"};
  f.device = 0;
  JsonValue a = Export(f);
  EXPECT_EQ(CountKernels(a), 4);
  EXPECT_EQ(a.Find("traceEvents")->items.size(), 5u);  // + the process_name metadata event

  f.start_ns = 31000;
  f.end_ns = 50000;
  EXPECT_EQ(CountKernels(Export(f)), 2);  // k2 [25,35) and k1 [40,45)

  TimelineFilter g;
  g.kernels = {"k3"};
  g.keep_metadata = false;
  JsonValue c = Export(g);
  EXPECT_EQ(CountKernels(c), 1);
  EXPECT_EQ(c.Find("traceEvents")->items.size(), 17u);  // 22 - 4 other kernels - 1 metadata
}

TEST(TraceTimelineTest, FixtureTimelineReparses) {
  TimelineFilter f;
  f.categories = {"kernel", "gpu_memcpy"};
  auto doc_text = ExportTimeline(TraceDataPath("kineto_ns_resolution_rank0.json.gz"), f);
  ASSERT_TRUE(doc_text.ok()) << doc_text.error().message;
  auto doc = ParseJson(*doc_text, "timeline.json");
  ASSERT_TRUE(doc.ok()) << doc.error().message;
  int kernels = 0, memcpys = 0;
  for (const JsonValue& e : doc->Find("traceEvents")->items) {
    const std::string& cat = e.Find("cat")->string;
    kernels += cat == "kernel";
    memcpys += cat == "gpu_memcpy";
    EXPECT_NE(e.Find("tid"), nullptr);
  }
  EXPECT_EQ(kernels, 4350);
  EXPECT_EQ(memcpys, 1600);
}

TEST(TraceMemoryTimelineTest, CsvAndJson) {
  AnalysisOptions opt;
  opt.collect_memory_timeline = true;
  TraceReport r = Analyze(testing::kHandTrace, opt);
  EXPECT_EQ(RenderMemoryTimelineCsv(r.memory_timeline),
            "ts_ns,device_type,device_id,bytes,total_allocated,total_reserved\n"
            "5000,1,0,4096,4096,2097152\n"
            "90000,1,0,-4096,0,2097152\n");
  auto doc = ParseJson(RenderMemoryTimelineJson(r.memory_timeline), "m.json");
  ASSERT_TRUE(doc.ok());
  EXPECT_EQ(doc->Find("schema")->string, "gpugate/memory-timeline/v1");
  EXPECT_EQ(doc->Find("samples")->items.size(), 2u);
}


/// A training run as Kineto records it with profile_memory=True: a CPU
/// sample before the steps, 1 GiB of weights, then 4 steps of 10 ms
/// ("ProfilerStep#N", from t = 1 ms), each allocating activations in 4 chunks
/// (+1..+4 ms) and freeing them (+6..+9 ms); step 3's chunks are 150 MiB,
/// the others' 50 MiB. Reserved grows to allocated + 64 MiB and never shrinks.
/// One kernel per step. Device Type 1 = CUDA, timestamps in us.
std::string MemoryTrace() {
  std::string ev;
  auto add = [&](const std::string& e) { ev += (ev.empty() ? "  " : ",\n  ") + e; };
  const int64_t mib = int64_t{1} << 20;
  int64_t allocated = 0, reserved = 0, addr = 0x7f0000000000;
  auto mem = [&](int64_t us, int64_t device_type, int64_t device_id, int64_t bytes) {
    allocated += bytes;
    reserved = std::max(reserved, allocated + 64 * mib);
    add(R"({"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 100, "tid": 100, "ts": )" +
        std::to_string(us) + R"(, "args": {"Device Type": )" + std::to_string(device_type) + R"(, "Device Id": )" +
        std::to_string(device_id) + R"(, "Addr": )" + std::to_string(addr += 4096) + R"(, "Bytes": )" +
        std::to_string(bytes) + R"(, "Total Allocated": )" + std::to_string(allocated) +
        R"(, "Total Reserved": )" + std::to_string(reserved) + "}}");
  };
  add(R"({"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 100, "tid": 100, "ts": 0, )"
      R"("args": {"Device Type": 0, "Device Id": -1, "Addr": 1, "Bytes": 4096, "Total Allocated": 4096, )"
      R"("Total Reserved": 0}})");
  mem(500, 1, 0, 1024 * mib);
  for (int s = 0; s < 4; ++s) {
    const int64_t start = 1000 + 10000 * s;
    add(R"({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#)" + std::to_string(s + 1) +
        R"(", "pid": 100, "tid": 100, "ts": )" + std::to_string(start) + R"(, "dur": 9990})");
    add(R"({"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": )" + std::to_string(start + 500) +
        R"(, "dur": 3000, "args": {"device": 0, "stream": 7}})");
    const int64_t chunk = (s == 2 ? 150 : 50) * mib;
    for (int c = 0; c < 4; ++c) mem(start + 1000 * (c + 1), 1, 0, chunk);
    for (int c = 0; c < 4; ++c) mem(start + 1000 * (c + 6), 1, 0, -chunk);
  }
  return "{\"schemaVersion\": 1, \"traceEvents\": [\n" + ev + "\n]}\n";
}

TEST(TraceMemoryTimelineTest, PeakCarriesItsStepAndTimeInEveryFormat) {
  AnalysisOptions opt;
  const std::string text = MemoryTrace();
  TraceReport r = Analyze(text.c_str(), opt);
  ASSERT_EQ(r.memory.size(), 2u);
  const MemoryPeak& cpu = r.memory[0];
  EXPECT_EQ(cpu.device_type, 0);
  EXPECT_FALSE(cpu.peak_step.has_value());  // before the first step
  const MemoryPeak& gpu = r.memory[1];
  EXPECT_EQ(gpu.device_type, 1);
  EXPECT_EQ(gpu.peak_allocated, (1024 + 600) * (int64_t{1} << 20));
  EXPECT_EQ(gpu.peak_ts_ns, (21000 + 4000) * int64_t{1000});  // step 3's fourth chunk
  ASSERT_TRUE(gpu.peak_step.has_value());
  EXPECT_EQ(*gpu.peak_step, 3);
  EXPECT_TRUE(r.memory_timeline.empty());  // not asked for; the chart is always there
  ASSERT_EQ(r.memory_chart.size(), 2u);

  TraceFindingSet none;
  std::string console = RenderTraceConsole(r, none);
  EXPECT_NE(console.find("Memory (GPU 0): peak allocated 1.59 GiB at 25.0 ms from the trace start, in "
                         "ProfilerStep#3; peak reserved 1.65 GiB over 33 [memory] events"),
            std::string::npos)
      << console;
  EXPECT_NE(console.find("Memory (CPU): peak allocated 4.00 KiB at 0 ns from the trace start; peak reserved"),
            std::string::npos)
      << console;
  std::string md = RenderTraceMarkdown(r, none);
  EXPECT_NE(md.find("| GPU 0 | 1.59 GiB | 1.65 GiB | 25.0 ms | ProfilerStep#3 | 33 |"), std::string::npos) << md;
  auto json = ParseJson(RenderTraceJson(r, none), "a.json");
  ASSERT_TRUE(json.ok()) << json.error().message;
  const auto& mem = json->Find("memory")->items;
  ASSERT_EQ(mem.size(), 2u);
  EXPECT_TRUE(mem[0].Find("peak_step")->IsNull());
  EXPECT_EQ(mem[1].Find("peak_step")->integer, 3);
  EXPECT_EQ(mem[1].Find("peak_offset_ns")->integer, 25000000);
  std::string html = RenderTraceHtml(r, none);
  EXPECT_NE(html.find("<h2>Memory</h2>"), std::string::npos);
  EXPECT_NE(html.find("<td>GPU 0</td><td class=\"n\">1.59 GiB</td>"), std::string::npos) << html;
  EXPECT_NE(html.find("<svg width="), std::string::npos);
  EXPECT_NE(html.find(">peak 1.59 GiB, ProfilerStep#3</text>"), std::string::npos);
}

TEST(TraceMemoryTimelineTest, SvgIsStandaloneWithBothSeriesAndMarkedPeak) {
  const std::string text = MemoryTrace();
  TraceReport r = Analyze(text.c_str(), AnalysisOptions{});
  std::string svg = RenderMemorySvg(r);
  EXPECT_EQ(svg.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\"", 0),
            0u);
  EXPECT_NE(svg.find("GPU 0: peak allocated 1.59 GiB at 25.0 ms from the trace start, in ProfilerStep#3; "
                     "peak reserved 1.65 GiB"),
            std::string::npos)
      << svg;
  // Per device two bands and two lines (reserved, allocated), one peak marker.
  auto count = [&](const std::string& what) {
    size_t n = 0;
    for (size_t at = svg.find(what); at != std::string::npos; at = svg.find(what, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("<polygon "), 4u);
  EXPECT_EQ(count("<polyline "), 4u);
  EXPECT_EQ(count("<circle "), 2u);
  EXPECT_EQ(svg.substr(svg.size() - 7), "</svg>\n");

  TraceReport empty = Analyze(testing::TrainingLoopTrace(1, {}, 0).c_str(), AnalysisOptions{});
  EXPECT_NE(RenderMemorySvg(empty).find("no [memory] events"), std::string::npos);
  EXPECT_EQ(RenderMemorySvgElement(empty), "");
  // [memory] events that state no total (PyTorch 1.8/1.9) are there, with
  // nothing to chart: the SVG says which.
  MemoryPeak no_total;
  no_total.events = 2;
  no_total.peak_reserved = 7;
  empty.memory.push_back(no_total);
  EXPECT_NE(RenderMemorySvg(empty).find("2 [memory] events in this trace, none stating Total Allocated"),
            std::string::npos)
      << RenderMemorySvg(empty);
}

TEST(MemoryChartBuilderTest, BoundedColumnsKeepExactExtremesInAnyOrder) {
  // 200,000 samples of a sawtooth over 10 s, shuffled: the chart keeps 1,024
  // columns whose extremes are those of the samples that fell in them.
  struct S {
    int64_t ts, alloc;
  };
  std::vector<S> samples;
  for (int64_t i = 0; i < 200000; ++i) samples.push_back({1000000000 + i * 50000, (i % 1000) * 4096 + i});
  std::mt19937_64 rng(7);
  std::shuffle(samples.begin(), samples.end(), rng);
  MemoryChartBuilder b(1024);
  for (const S& s : samples) b.Add(1, 0, s.ts, s.alloc, s.alloc * 2);
  std::vector<MemorySeries> series = b.Series();
  ASSERT_EQ(series.size(), 1u);
  const MemorySeries& m = series[0];
  ASSERT_EQ(m.columns.size(), 1024u);
  int64_t n = 0, hi = INT64_MIN, lo = INT64_MAX;
  for (const MemoryColumn& c : m.columns) {
    n += c.samples;
    if (!c.samples) continue;
    hi = std::max(hi, c.allocated_max);
    lo = std::min(lo, c.allocated_min);
    EXPECT_EQ(c.reserved_max, 2 * c.allocated_max);
  }
  EXPECT_EQ(n, 200000);
  EXPECT_EQ(hi, 999 * 4096 + 199999);
  EXPECT_EQ(lo, 0);
  // Every sample lies in its column's range and within its extremes.
  for (const S& s : samples) {
    int64_t col = (s.ts - m.origin_ns) / m.width_ns;
    ASSERT_GE(col, 0);
    ASSERT_LT(col, 1024);
    EXPECT_LE(m.columns[col].allocated_min, s.alloc);
    EXPECT_GE(m.columns[col].allocated_max, s.alloc);
  }
  // The whole 10 s span fits in the columns, at most twice as wide as needed.
  EXPECT_LE(m.width_ns * 1024, 4 * (200000 * int64_t{50000}));
}


TEST(AnalyzeFlameMemoryCliTest, FlameViewsAndMemorySvg) {
  std::string dir = testing::MakeTempDir();
  const std::string hand = dir + "/hand.json", mem = dir + "/mem.json";
  testing::WriteAll(hand, testing::kHandTrace);
  testing::WriteAll(mem, MemoryTrace());
  auto gpu = testing::RunGpugate({"analyze", hand, "--flame", dir + "/g.folded", "--flame-view", "gpu"});
  ASSERT_EQ(gpu.exit_code, 0) << gpu.err;
  std::vector<std::string> lines = Lines(testing::ReadAll(dir + "/g.folded"));
  ASSERT_EQ(lines.size(), 6u);
  for (const std::string& l : lines) EXPECT_NE(l.find(";[gpu] "), std::string::npos) << l;
  auto cpu = testing::RunGpugate({"analyze", hand, "--flame", dir + "/c.folded", "--flame-view", "cpu"});
  ASSERT_EQ(cpu.exit_code, 0) << cpu.err;
  EXPECT_EQ(testing::ReadAll(dir + "/c.folded").find("[gpu"), std::string::npos);
  auto html = testing::RunGpugate({"analyze", hand, "--flame", dir + "/f.html"});
  ASSERT_EQ(html.exit_code, 0) << html.err;
  EXPECT_NE(testing::ReadAll(dir + "/f.html").find("{\"name\":\"gpu\""), std::string::npos);

  auto bad_view = testing::RunGpugate({"analyze", hand, "--flame", dir + "/x.folded", "--flame-view", "kernels"});
  EXPECT_EQ(bad_view.exit_code, 2);
  EXPECT_EQ(bad_view.err, "gpugate: error: --flame-view 'kernels': expected all, cpu or gpu\n");
  auto view_html = testing::RunGpugate({"analyze", hand, "--flame", dir + "/x.html", "--flame-view", "gpu"});
  EXPECT_EQ(view_html.exit_code, 2);
  EXPECT_NE(view_html.err.find("--flame-view applies to --flame F.folded"), std::string::npos) << view_html.err;
  auto view_alone = testing::RunGpugate({"analyze", hand, "--flame-view", "cpu"});
  EXPECT_EQ(view_alone.exit_code, 2);

  auto svg = testing::RunGpugate({"analyze", mem, "--memory", dir + "/m.svg"});
  ASSERT_EQ(svg.exit_code, 0) << svg.err;
  std::string picture = testing::ReadAll(dir + "/m.svg");
  EXPECT_EQ(picture.rfind("<?xml", 0), 0u);
  EXPECT_NE(picture.find("in ProfilerStep#3"), std::string::npos);
  EXPECT_NE(svg.out.find("in ProfilerStep#3; peak reserved"), std::string::npos) << svg.out;
  auto csv = testing::RunGpugate({"analyze", mem, "--memory", dir + "/m.csv"});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_EQ(Lines(testing::ReadAll(dir + "/m.csv")).size(), 35u);  // header + 34 samples (both devices)
  auto bad_memory = testing::RunGpugate({"analyze", mem, "--memory", dir + "/m.png"});
  EXPECT_EQ(bad_memory.exit_code, 2);
  EXPECT_NE(bad_memory.err.find("use a .csv or .json (every sample) or .svg (picture)"), std::string::npos);
  testing::RemoveTree(dir);
}

}  // namespace
}  // namespace gpugate
