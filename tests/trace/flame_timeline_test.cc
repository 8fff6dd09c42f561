// Tests of the pictures: folded stacks and HTML flame graph (GPU time under
// the launching CPU stack), the Chrome-trace timeline export and the memory
// timeline.
#include <gtest/gtest.h>

#include "trace/analysis.h"
#include "trace/flame.h"
#include "trace/timeline.h"
#include "trace/trace_reader.h"
#include "trace/trace_test_data.h"
#include "util/json.h"

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

TEST(TraceFlameTest, FoldedAndHtmlEscapeNames) {
  FlameGraph g;
  int a = g.Child(0, "a;b\nc");
  int b = g.Child(a, "</script><img src=x onerror=alert(1)>");
  g.nodes[b].self_ns = 5;
  EXPECT_EQ(RenderFolded(g), "a:b c;</script><img src=x onerror=alert(1)> 5\n");
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

}  // namespace
}  // namespace gpugate
