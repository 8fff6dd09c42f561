// Tests of traces as gate inputs: TraceToResults turns each GPU of a trace
// into a workload whose kernels carry every instance as a sample.
#include "trace/to_results.h"
#include "util/text/escape.h"

#include <gtest/gtest.h>

#include <set>

#include <numeric>

#include "model/results_json.h"
#include "trace/trace_reader.h"
#include "trace/trace_test_data.h"

namespace gpugate {
namespace {

using testing::TraceDataPath;

TEST(TraceToResultsTest, SimpleAddFixtureBecomesOneWorkloadPerGpu) {
  auto r = TraceToResults(TraceDataPath("kineto_simple_add_a100.json"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->run.source_format, "trace");
  EXPECT_EQ(r->run.suite, "kineto_simple_add_a100");
  EXPECT_EQ(r->run.env.gpu.name, "NVIDIA A100-PG509-200");
  EXPECT_EQ(r->run.env.gpu.compute_capability, "8.0");
  EXPECT_EQ(r->run.env.gpu.sm_count, 108);
  EXPECT_EQ(r->run.env.gpu.memory_bytes, 42297524224);
  ASSERT_EQ(r->workloads.size(), 1u);
  const WorkloadResult& w = r->workloads[0];
  EXPECT_EQ(w.name, "gpu0");
  EXPECT_EQ(w.kind, "trace");
  ASSERT_EQ(w.rounds.size(), 1u);
  ASSERT_EQ(w.rounds[0].size(), 1u);
  EXPECT_DOUBLE_EQ(w.rounds[0][0], 49758000e-9);  // GPU busy time (python union, see analysis_test)
  // 79 kernel instances of 16 kernels, 10728000 ns in all (python over the file).
  EXPECT_EQ(w.kernels.size(), 16u);
  int64_t count = 0;
  double total = 0, samples = 0;
  for (const KernelResult& k : w.kernels) {
    count += k.count;
    total += k.total_s;
    EXPECT_EQ(static_cast<int64_t>(k.durations_s.size()), k.count) << k.name;
    samples += std::accumulate(k.durations_s.begin(), k.durations_s.end(), 0.0);
  }
  EXPECT_EQ(count, 79);
  EXPECT_NEAR(total, 10728000e-9, 1e-12);
  EXPECT_NEAR(samples, 10728000e-9, 1e-12);
  EXPECT_DOUBLE_EQ(w.counters.at("memcpy_bytes"), 244403360);
  EXPECT_DOUBLE_EQ(w.counters.at("kernel_count"), 79);
}

TEST(TraceToResultsTest, HandTraceKeepsEveryInstanceAndRoundTripsJson) {
  AnalysisOptions opt;
  opt.keep_kernel_samples = true;
  TraceAnalyzer analyzer(opt);
  auto info = ReadTraceFromString(testing::kHandTrace, "hand.json", analyzer);
  ASSERT_TRUE(info.ok());
  Results r = TraceReportToResults(analyzer.Finish(*info));
  ASSERT_EQ(r.workloads.size(), 2u);
  EXPECT_EQ(r.workloads[1].name, "gpu1");
  const KernelResult* k1 = nullptr;
  for (const KernelResult& k : r.workloads[0].kernels)
    if (k.name == "k1") k1 = &k;
  ASSERT_NE(k1, nullptr);
  EXPECT_EQ(k1->durations_s, (std::vector<double>{10e-6, 5e-6}));
  EXPECT_DOUBLE_EQ(k1->metrics.at("achieved_occupancy"), 0.6);
  auto back = ResultsFromJson(ResultsToJson(r), "r.json");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->run.source_format, "trace");
  EXPECT_EQ(back->workloads[0].kernels.size(), r.workloads[0].kernels.size());
}

TEST(TraceToResultsTest, LongKernelNamesAreBoundedAndKeptApart) {
  // Demangled templates run to kilobytes: each report would print them whole.
  const std::string a(20000, 'K');
  std::string b = a;
  b[10000] = 'L';
  std::string text = "{\"traceEvents\": [";
  int64_t ts = 0;
  for (const std::string& name : {a, b, a}) {
    text += ts ? "," : "";
    ts += 100;
    text += std::string("{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"") + name +
            "\", \"pid\": 0, \"tid\": 7, \"ts\": " + std::to_string(ts) +
            ", \"dur\": 10, \"args\": {\"device\": 0, \"stream\": 7}}";
  }
  text += "]}";
  auto r = TraceTextToResults(text, "long.json");
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->workloads.size(), 1u);
  ASSERT_EQ(r->workloads[0].kernels.size(), 2u);
  for (const KernelResult& k : r->workloads[0].kernels) EXPECT_LE(k.name.size(), kMaxNameBytes);
  EXPECT_NE(r->workloads[0].kernels[0].name, r->workloads[0].kernels[1].name);
  auto back = ResultsFromJson(ResultsToJson(*r), "r.json");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->workloads[0].kernels[0].name, r->workloads[0].kernels[0].name);
}

TEST(TraceToResultsTest, InvalidUtf8NamesReadAsAHistoryStoresThem) {
  // A name with an invalid byte is read repaired, as the JSON writer would
  // store it, with a hash of its raw bytes: two names that differ only in
  // invalid bytes stay two, and a history written now matches a trace read
  // later.
  std::string text = "{\"traceEvents\": [";
  int64_t ts = 0;
  for (const std::string& name : {std::string("bad\xffname"), std::string("bad\xfename"), std::string("ok")}) {
    text += ts ? "," : "";
    ts += 100;
    text += "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"" + name + "\", \"pid\": 0, \"tid\": 7, \"ts\": " +
            std::to_string(ts) + ", \"dur\": 10, \"args\": {\"device\": 0, \"stream\": 7}}";
  }
  text += "]}";
  auto r = TraceTextToResults(text, "bad.json");
  ASSERT_TRUE(r.ok()) << r.error().message;
  const std::vector<KernelResult>& ks = r->workloads.at(0).kernels;
  ASSERT_EQ(ks.size(), 3u);
  std::set<std::string> names;
  for (const KernelResult& k : ks) names.insert(k.name);
  EXPECT_EQ(names.size(), 3u);
  EXPECT_TRUE(names.count("ok"));
  auto back = ResultsFromJson(ResultsToJson(*r), "r.json");
  ASSERT_TRUE(back.ok()) << back.error().message;
  for (size_t i = 0; i < ks.size(); ++i) {
    EXPECT_EQ(back->workloads[0].kernels[i].name, ks[i].name);
    if (ks[i].name != "ok") {
      EXPECT_EQ(ks[i].name.rfind("bad\xef\xbf\xbdname#", 0), 0u) << ks[i].name;
    }
  }
}

TEST(TraceToResultsTest, TheAnalysisNamesInvalidUtf8KernelsAsResultsDo) {
  std::string text = "{\"traceEvents\": [";
  int64_t ts = 0;
  for (const std::string& name : {std::string("k\xff_a"), std::string("k\xfe_a")}) {
    text += ts ? "," : "";
    ts += 100;
    text += "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"" + name + "\", \"pid\": 0, \"tid\": 7, \"ts\": " +
            std::to_string(ts) + ", \"dur\": 10, \"args\": {\"device\": 0, \"stream\": 7}}";
  }
  text += "]}";
  auto report = AnalyzeTraceText(text, "bad.json", AnalysisOptions{});
  ASSERT_TRUE(report.ok()) << report.error().message;
  auto results = TraceTextToResults(text, "bad.json");
  ASSERT_TRUE(results.ok());
  std::set<std::string> analysed, compared;
  for (const KernelStats& k : report->top_kernels) analysed.insert(k.name);
  for (const KernelResult& k : results->workloads.at(0).kernels) compared.insert(k.name);
  EXPECT_EQ(analysed.size(), 2u);
  EXPECT_EQ(analysed, compared);
}

TEST(TraceToResultsTest, SuiteAndRunIdOfATrace) {
  EXPECT_EQ(TraceSuiteName("/tmp/x/train.json"), "train");
  EXPECT_EQ(TraceSuiteName("train.json.gz"), "train");
  EXPECT_EQ(TraceSuiteName("train.pt.trace.json"), "train");
  EXPECT_EQ(TraceSuiteName("x.pt.trace.json.gz"), "x");
  // PyTorch's tensorboard_trace_handler: the time goes, the worker stays
  // (a rank's number is part of it).
  EXPECT_EQ(TraceSuiteName("d/train.1700000000000000000.pt.trace.json"), "train");
  EXPECT_EQ(TraceSuiteName("rank_1.1700000100000000000.pt.trace.json.gz"), "rank_1");
  EXPECT_EQ(TraceSuiteName("gpuhost_1377.1700000100000000000.pt.trace.json"), "gpuhost_1377");
  // PyTorch's default worker, <host>_<pid>: the id of the profiled process
  // goes, other numbers stay (a rank's; a container's small pids).
  EXPECT_EQ(TraceSuiteName("gpuhost_1377.1700000100000000000.pt.trace.json", {1377}), "gpuhost");
  EXPECT_EQ(TraceSuiteName("gpuhost_1377.1700000100000000000.pt.trace.json", {1378}), "gpuhost_1377");
  EXPECT_EQ(TraceSuiteName("rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz", {1102}), "rank-0.Apr_03_18_51_38");
  EXPECT_EQ(TraceSuiteName("rank_1.1700000100000000000.pt.trace.json", {1}), "rank_1");
  EXPECT_EQ(TraceSuiteName("trace_48211.json", {48211}), "trace");
  EXPECT_EQ(TraceSuiteName("48211.json", {48211}), "48211");
  // Numbers in other names stay.
  EXPECT_EQ(TraceSuiteName("resnet_50.v2.json"), "resnet_50.v2");
  EXPECT_EQ(TraceSuiteName("run_7.json"), "run_7");
  EXPECT_EQ(TraceSuiteName("bert_128.1732900000.json"), "bert_128.1732900000");
  // A worker named with control characters, a bidirectional control or the
  // name reserved for a suite's common shift gives a suite every later
  // command reads (the history was refused by every read after its first
  // update).
  EXPECT_EQ(TraceSuiteName("ev\x1b[31mil\n::error::x.1796015770942.pt.trace.json").rfind("ev_[31mil_::error::x#", 0), 0u);
  EXPECT_EQ(TraceSuiteName("r\u202eev.json").rfind("r_ev#", 0), 0u);
  EXPECT_EQ(TraceSuiteName("(suite).json").rfind("_(suite)#", 0), 0u);
  EXPECT_EQ(TraceSuiteName("_(suite).json"), "_(suite)");
  EXPECT_FALSE(NameProblem(TraceSuiteName("bad\xff\xfe.json")).has_value());
  // Read from a trace: the profiled process is the one of its CPU-side
  // events, not the GPU's pid.
  const std::string by_pid =
      "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", "
      "\"pid\": 48211, \"tid\": 1, \"ts\": 0, \"dur\": 5, \"args\": {\"correlation\": 1}}, "
      "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, \"ts\": 3, "
      "\"dur\": 10, \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 1}}]}";
  auto host = TraceTextToResults(by_pid, "d/gpuhost_48211.1700000100000000000.pt.trace.json");
  ASSERT_TRUE(host.ok()) << host.error().message;
  EXPECT_EQ(host->run.suite, "gpuhost");
  auto gpu_pid = TraceTextToResults(by_pid, "d/rank_0.1700000100000000000.pt.trace.json");
  ASSERT_TRUE(gpu_pid.ok());
  EXPECT_EQ(gpu_pid->run.suite, "rank_0");
  // The run id: two traces under one name whose clocks both start at 0 are
  // two runs; the same trace read twice is one.
  auto trace = [](int dur) {
    return "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, "
           "\"ts\": 0, \"dur\": " + std::to_string(dur) + ", \"args\": {\"device\": 0, \"stream\": 7}}]}";
  };
  auto a = TraceTextToResults(trace(10), "trace.json");
  auto a2 = TraceTextToResults(trace(10), "trace.json");
  auto b = TraceTextToResults(trace(12), "trace.json");
  // Equal totals, other calls: another run.
  auto two = [](int first, int second) {
    auto ev = [](int ts, int dur) {
      return "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, \"ts\": " +
             std::to_string(ts) + ", \"dur\": " + std::to_string(dur) + ", \"args\": {\"device\": 0, \"stream\": 7}}";
    };
    return "{\"traceEvents\": [" + ev(0, first) + "," + ev(100, second) + "]}";
  };
  auto c1 = TraceTextToResults(two(10, 30), "trace.json");
  auto c2 = TraceTextToResults(two(20, 20), "trace.json");
  ASSERT_TRUE(c1.ok() && c2.ok());
  EXPECT_NE(c1->run.run_id, c2->run.run_id);
  ASSERT_TRUE(a.ok() && a2.ok() && b.ok());
  EXPECT_EQ(a->run.run_id, a2->run.run_id);
  EXPECT_NE(a->run.run_id, b->run.run_id);
  EXPECT_EQ(a->run.run_id.rfind("trace-trace-", 0), 0u) << a->run.run_id;
}

TEST(TraceToResultsTest, TraceWithoutGpuWorkIsAnInputError) {
  auto r = TraceToResults(TraceDataPath("kineto_cupti_profiler_range.json"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ExitCode::kInputError);
  EXPECT_NE(r.error().message.find("no GPU activity"), std::string::npos);
}

}  // namespace
}  // namespace gpugate
