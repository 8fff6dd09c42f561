// Tests of traces as gate inputs: TraceToResults turns each GPU of a trace
// into a workload whose kernels carry every instance as a sample.
#include "trace/to_results.h"
#include "util/text/escape.h"

#include <gtest/gtest.h>

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

TEST(TraceToResultsTest, TraceWithoutGpuWorkIsAnInputError) {
  auto r = TraceToResults(TraceDataPath("kineto_cupti_profiler_range.json"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ExitCode::kInputError);
  EXPECT_NE(r.error().message.find("no GPU activity"), std::string::npos);
}

}  // namespace
}  // namespace gpugate
