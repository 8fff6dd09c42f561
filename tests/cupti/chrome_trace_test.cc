// Tests of the CUPTI record conversion: names, NVTX pairing, correlation,
// per-kernel results, and the Chrome trace read back through src/trace
// (reader, analysis, TraceToResults) — the path `gpugate analyze` and
// `profile: cupti` take.
#include "cupti/chrome_trace.h"

#include <gtest/gtest.h>

#include <map>

#include "cupti/records.h"
#include "config/policy.h"
#include "trace/analysis.h"
#include "trace/findings.h"
#include "trace/to_results.h"
#include "trace/trace_reader.h"
#include "util/time_text.h"

namespace gpugate {
namespace {

constexpr int64_t kT0 = 1'732'550'000'000'000'000;  // an epoch-scale start (ns)

ApiRecord Api(ApiDomain d, const std::string& name, int64_t start, int64_t end, uint32_t corr) {
  ApiRecord a;
  a.domain = d;
  a.name = name;
  a.callback_id = 211;
  a.start_ns = kT0 + start;
  a.end_ns = kT0 + end;
  a.process = 4242;
  a.thread = 7;
  a.correlation = corr;
  return a;
}

KernelRecord Kernel(const std::string& name, int64_t start, int64_t end, uint32_t corr, uint32_t stream = 7) {
  KernelRecord k;
  k.name = name;
  k.start_ns = kT0 + start;
  k.end_ns = kT0 + end;
  k.device = 0;
  k.context = 1;
  k.stream = stream;
  k.correlation = corr;
  k.grid[0] = 1024;
  k.grid[1] = k.grid[2] = 1;
  k.block[0] = 256;
  k.block[1] = k.block[2] = 1;
  k.registers_per_thread = 32;
  k.static_shared_bytes = 1024;
  k.dynamic_shared_bytes = 2048;
  return k;
}

// A small program: H2D copy from pageable memory, two launches of saxpy and
// one of reduce, a memset, a D2H copy into pinned memory, a sync, NVTX ranges.
TraceRecords SampleRecords() {
  TraceRecords r;
  r.process_id = 4242;
  DeviceRecord d;
  d.id = 0;
  d.name = "NVIDIA A100-SXM4-80GB";
  d.global_memory_bytes = 85'899'345'920;
  d.compute_major = 8;
  d.compute_minor = 0;
  d.multiprocessors = 108;
  d.max_threads_per_block = 1024;
  d.max_warps_per_multiprocessor = 64;
  d.threads_per_warp = 32;
  d.max_registers_per_block = 65536;
  d.max_registers_per_multiprocessor = 65536;
  d.max_shared_per_block = 49152;
  d.max_shared_per_multiprocessor = 167936;
  r.devices.push_back(d);

  r.apis.push_back(Api(ApiDomain::kRuntime, "cudaMemcpy", 0, 5000, 1));
  r.apis.push_back(Api(ApiDomain::kRuntime, "cudaLaunchKernel", 6000, 9000, 2));
  r.apis.push_back(Api(ApiDomain::kRuntime, "cudaLaunchKernel", 9500, 11000, 3));
  r.apis.push_back(Api(ApiDomain::kDriver, "cuLaunchKernel", 11500, 12000, 4));
  r.apis.push_back(Api(ApiDomain::kRuntime, "cudaMemsetAsync", 12500, 13000, 5));
  r.apis.push_back(Api(ApiDomain::kRuntime, "cudaDeviceSynchronize", 13500, 40000, 6));
  r.apis.push_back(Api(ApiDomain::kRuntime, "cudaMemcpy", 40500, 50000, 7));

  MemcpyRecord h2d;
  h2d.kind = MemcpyKind::kHtoD;
  h2d.src = MemoryKind::kPageable;
  h2d.dst = MemoryKind::kDevice;
  h2d.bytes = 4'000'000;
  h2d.start_ns = kT0 + 1000;
  h2d.end_ns = kT0 + 4000;
  h2d.context = 1;
  h2d.stream = 7;
  h2d.correlation = 1;
  r.memcpys.push_back(h2d);
  // Kernels arrive out of start order (CUPTI buffers by kind and context).
  r.kernels.push_back(Kernel("reduce(float const*, float*, int)", 20000, 30000, 4));
  r.kernels.push_back(Kernel("saxpy(int, float, float const*, float*)", 10000, 12000, 2));
  r.kernels.push_back(Kernel("saxpy(int, float, float const*, float*)", 12000, 15000, 3));
  MemsetRecord ms;
  ms.memory = MemoryKind::kDevice;
  ms.bytes = 1'000'000;
  ms.start_ns = kT0 + 31000;
  ms.end_ns = kT0 + 32000;
  ms.context = 1;
  ms.stream = 7;
  ms.correlation = 5;
  r.memsets.push_back(ms);
  MemcpyRecord d2h = h2d;
  d2h.kind = MemcpyKind::kDtoH;
  d2h.src = MemoryKind::kDevice;
  d2h.dst = MemoryKind::kPinned;
  d2h.start_ns = kT0 + 41000;
  d2h.end_ns = kT0 + 43000;
  d2h.correlation = 7;
  r.memcpys.push_back(d2h);

  SyncRecord s;
  s.kind = SyncKind::kContextSynchronize;
  s.start_ns = kT0 + 13600;
  s.end_ns = kT0 + 39900;
  s.context = 1;
  s.correlation = 6;
  r.syncs.push_back(s);

  // NVTX: "step" encloses "forward" (push/pop on thread 7).
  MarkerRecord m;
  m.process = 4242;
  m.thread = 7;
  m.phase = MarkerRecord::Phase::kStart;
  m.id = 1;
  m.name = "step";
  m.timestamp_ns = kT0 + 500;
  r.markers.push_back(m);
  m.id = 2;
  m.name = "forward";
  m.timestamp_ns = kT0 + 5500;
  r.markers.push_back(m);
  m.phase = MarkerRecord::Phase::kEnd;
  m.name.clear();
  m.timestamp_ns = kT0 + 12200;
  r.markers.push_back(m);
  m.id = 1;
  m.timestamp_ns = kT0 + 50000;
  r.markers.push_back(m);

  OverheadRecord o;
  o.kind = "CUPTI buffer flush";
  o.start_ns = kT0 + 45000;
  o.end_ns = kT0 + 45500;
  o.thread = 9;
  r.overheads.push_back(o);
  return r;
}

TEST(CuptiRecordsTest, MemcpyNamesFollowKineto) {
  MemcpyRecord m;
  m.kind = MemcpyKind::kHtoD;
  m.src = MemoryKind::kPageable;
  m.dst = MemoryKind::kDevice;
  EXPECT_EQ(MemcpyName(m), "Memcpy HtoD (Pageable -> Device)");
  EXPECT_TRUE(IsPageableCopy(m));
  EXPECT_FALSE(IsPinnedCopy(m));
  m.kind = MemcpyKind::kDtoH;
  m.src = MemoryKind::kDevice;
  m.dst = MemoryKind::kPinned;
  EXPECT_EQ(MemcpyName(m), "Memcpy DtoH (Device -> Pinned)");
  EXPECT_FALSE(IsPageableCopy(m));
  EXPECT_TRUE(IsPinnedCopy(m));
  m.kind = MemcpyKind::kDtoD;
  m.dst = MemoryKind::kDevice;
  EXPECT_EQ(MemcpyName(m), "Memcpy DtoD (Device -> Device)");
  EXPECT_FALSE(IsPageableCopy(m));
  EXPECT_FALSE(IsPinnedCopy(m));
  m.kind = MemcpyKind::kPtoP;
  EXPECT_EQ(MemcpyName(m), "Memcpy PtoP (Device -> Device)");
  m.kind = MemcpyKind::kHtoH;
  m.src = MemoryKind::kPageable;
  m.dst = MemoryKind::kPinned;
  EXPECT_TRUE(IsPageableCopy(m));
  MemsetRecord s;
  s.memory = MemoryKind::kManaged;
  EXPECT_EQ(MemsetName(s), "Memset (Managed)");
}

TEST(CuptiRecordsTest, ApiVersionSuffixIsStripped) {
  EXPECT_EQ(StripApiVersionSuffix("cudaMemcpy_v3020"), "cudaMemcpy");
  EXPECT_EQ(StripApiVersionSuffix("cudaLaunchKernel_v7000"), "cudaLaunchKernel");
  EXPECT_EQ(StripApiVersionSuffix("cuLaunchKernel_ptsz"), "cuLaunchKernel_ptsz");
  EXPECT_EQ(StripApiVersionSuffix("cuMemAlloc_v2"), "cuMemAlloc");
  EXPECT_EQ(StripApiVersionSuffix("my_vector"), "my_vector");
  EXPECT_EQ(StripApiVersionSuffix("x_v"), "x_v");
}

TEST(CuptiRecordsTest, MarkersPairIntoNestedRanges) {
  TraceRecords r = SampleRecords();
  MarkerRecord mark;
  mark.phase = MarkerRecord::Phase::kInstant;
  mark.name = "checkpoint";
  mark.timestamp_ns = kT0 + 7000;
  r.markers.push_back(mark);
  MarkerRecord stray;  // an end whose start was never seen
  stray.phase = MarkerRecord::Phase::kEnd;
  stray.id = 99;
  r.markers.push_back(stray);
  MarkerRecord open;  // a start without end: closed at the end of the trace
  open.phase = MarkerRecord::Phase::kStart;
  open.id = 3;
  open.name = "never popped";
  open.timestamp_ns = kT0 + 60000;
  r.markers.push_back(open);

  std::vector<NvtxRange> ranges = PairMarkers(r.markers, kT0 + 70000);
  ASSERT_EQ(ranges.size(), 4u);
  EXPECT_EQ(ranges[0].name, "step");
  EXPECT_EQ(ranges[0].start_ns, kT0 + 500);
  EXPECT_EQ(ranges[0].end_ns, kT0 + 50000);
  EXPECT_EQ(ranges[1].name, "forward");
  EXPECT_EQ(ranges[1].end_ns, kT0 + 12200);
  EXPECT_EQ(ranges[2].name, "checkpoint");
  EXPECT_EQ(ranges[2].start_ns, ranges[2].end_ns);
  EXPECT_EQ(ranges[3].name, "never popped");
  EXPECT_EQ(ranges[3].end_ns, kT0 + 70000);
}

TEST(CuptiRecordsTest, CorrelationFindsTheLaunchingCall) {
  TraceRecords r = SampleRecords();
  Correlation c(r.apis);
  ASSERT_NE(c.Launch(4), nullptr);
  EXPECT_EQ(c.Launch(4)->name, "cuLaunchKernel");
  EXPECT_EQ(c.Launch(4)->domain, ApiDomain::kDriver);
  EXPECT_EQ(c.Launch(2)->start_ns, kT0 + 6000);
  EXPECT_EQ(c.Launch(0), nullptr);
  EXPECT_EQ(c.Launch(12345), nullptr);
}

TEST(CuptiRecordsTest, KernelResultsPerNameInStartOrder) {
  std::vector<KernelResult> k = KernelResultsFromRecords(SampleRecords());
  ASSERT_EQ(k.size(), 2u);
  // reduce: 10 us in one instance; saxpy: 2 + 3 us.
  EXPECT_EQ(k[0].name, "reduce(float const*, float*, int)");
  EXPECT_EQ(k[0].count, 1);
  EXPECT_DOUBLE_EQ(k[0].total_s, 10000e-9);
  EXPECT_EQ(k[1].name, "saxpy(int, float, float const*, float*)");
  EXPECT_EQ(k[1].count, 2);
  ASSERT_EQ(k[1].durations_s.size(), 2u);
  EXPECT_DOUBLE_EQ(k[1].durations_s[0], 2000e-9);
  EXPECT_DOUBLE_EQ(k[1].durations_s[1], 3000e-9);
  EXPECT_DOUBLE_EQ(k[1].total_s, 5000e-9);
  EXPECT_EQ(k[1].metrics.at("registers_per_thread"), 32);
  EXPECT_EQ(k[1].metrics.at("shared_mem_bytes"), 3072);
  EXPECT_EQ(k[1].metrics.at("grid_blocks"), 1024);
  EXPECT_EQ(k[1].metrics.at("block_threads"), 256);
}

TEST(CuptiChromeTraceTest, MicrosecondTextIsExact) {
  EXPECT_EQ(NanosToMicrosText(0), "0.000");
  EXPECT_EQ(NanosToMicrosText(1500), "1.500");
  EXPECT_EQ(NanosToMicrosText(-1), "-0.001");
  EXPECT_EQ(NanosToMicrosText(kT0 + 123), "1732550000000000.123");
  EXPECT_EQ(NanosToMicrosText(INT64_MIN), "-9223372036854775.808");
}

// Collects every event the reader hands on.
struct Collect : TraceEventSink {
  std::vector<TraceEvent> events;
  void OnEvent(const TraceEvent& e) override { events.push_back(e); }
  bool WantsArgsJson() const override { return true; }
};

TEST(CuptiChromeTraceTest, ReadsBackThroughTheTraceReader) {
  const std::string json = WriteChromeTrace(SampleRecords(), {"saxpy_app"});
  Collect sink;
  auto info = ReadTraceFromString(json, "cupti.json", sink);
  ASSERT_TRUE(info.ok()) << info.error().message;
  EXPECT_EQ(info->trace_name, "saxpy_app");
  EXPECT_EQ(info->schema_version, 1);
  ASSERT_EQ(info->devices.size(), 1u);
  EXPECT_EQ(info->devices[0].name, "NVIDIA A100-SXM4-80GB");
  EXPECT_EQ(info->devices[0].num_sms, 108);
  EXPECT_EQ(info->devices[0].max_threads_per_sm, 2048);
  EXPECT_TRUE(info->unknown_categories.size() == 1 && info->unknown_categories[0].first == "overhead");

  std::map<TraceCategory, int> by_cat;
  const TraceEvent* kernel = nullptr;
  const TraceEvent* h2d = nullptr;
  const TraceEvent* forward = nullptr;
  int flow_starts = 0, flow_ends = 0;
  for (const TraceEvent& e : sink.events) {
    ++by_cat[e.category];
    if (e.category == TraceCategory::kKernel && e.name.rfind("saxpy", 0) == 0 && !kernel) kernel = &e;
    if (e.category == TraceCategory::kGpuMemcpy && !h2d) h2d = &e;
    if (e.name == "forward") forward = &e;
    if (e.category == TraceCategory::kAc2g) (e.ph == 's' ? flow_starts : flow_ends) += 1;
  }
  EXPECT_EQ(by_cat[TraceCategory::kKernel], 3);
  EXPECT_EQ(by_cat[TraceCategory::kGpuMemcpy], 2);
  EXPECT_EQ(by_cat[TraceCategory::kGpuMemset], 1);
  EXPECT_EQ(by_cat[TraceCategory::kCudaRuntime], 6);
  EXPECT_EQ(by_cat[TraceCategory::kCudaDriver], 1);
  EXPECT_EQ(by_cat[TraceCategory::kCudaSync], 1);
  EXPECT_EQ(by_cat[TraceCategory::kUserAnnotation], 2);
  // One flow pair per GPU activity with a known launch: 3 kernels, 2 copies, 1 memset.
  EXPECT_EQ(flow_starts, 6);
  EXPECT_EQ(flow_ends, 6);

  ASSERT_NE(kernel, nullptr);
  EXPECT_EQ(kernel->ts_ns, kT0 + 10000);  // exact integer ns at epoch scale
  EXPECT_EQ(kernel->dur_ns, 2000);
  EXPECT_EQ(kernel->correlation, 2);
  EXPECT_EQ(kernel->GpuDevice(), 0);
  EXPECT_EQ(kernel->GpuStream(), 7);
  EXPECT_EQ(kernel->grid[0], 1024);
  EXPECT_EQ(kernel->block[0], 256);
  EXPECT_EQ(kernel->registers_per_thread, 32);
  EXPECT_EQ(kernel->shared_memory, 3072);
  ASSERT_NE(h2d, nullptr);
  EXPECT_EQ(h2d->name, "Memcpy HtoD (Pageable -> Device)");
  EXPECT_EQ(h2d->bytes, 4'000'000);
  EXPECT_DOUBLE_EQ(h2d->bandwidth_gbps.value_or(0), 4'000'000.0 / 3000.0);
  ASSERT_NE(forward, nullptr);
  EXPECT_EQ(forward->ts_ns, kT0 + 5500);
  EXPECT_EQ(forward->dur_ns, 6700);
  EXPECT_EQ(forward->pid_num, 4242);
  EXPECT_EQ(forward->tid_num, 7);
}

TEST(CuptiChromeTraceTest, AnalyzeSeesKernelsCopiesAndLaunches) {
  const std::string json = WriteChromeTrace(SampleRecords());
  auto rep = AnalyzeTraceText(json, "cupti.json", AnalysisOptions{});
  ASSERT_TRUE(rep.ok()) << rep.error().message;
  ASSERT_EQ(rep->devices.size(), 1u);
  const DeviceStats& d = rep->devices[0];
  EXPECT_EQ(d.kernel_count, 3);
  EXPECT_EQ(d.kernel_time_ns, 15000);
  // Busy: copy 3000 + kernels 10000..15000 and 20000..30000 + memset 1000 + copy 2000.
  EXPECT_EQ(d.busy_ns, 3000 + 5000 + 10000 + 1000 + 2000);
  EXPECT_EQ(rep->SpanNs(), 50000);
  // Every GPU activity met its launch call through the correlation id.
  EXPECT_EQ(rep->launch.gpu_ops_matched, 6);
  EXPECT_EQ(rep->launch.kernels, 3);
  bool pageable = false, pinned = false;
  for (const MemcpyStats& m : rep->memory_traffic) {
    pageable = pageable || (m.kind == "HtoD" && m.memory == "pageable" && m.bytes == 4'000'000);
    pinned = pinned || (m.kind == "DtoH" && m.memory == "pinned");
  }
  EXPECT_TRUE(pageable);
  EXPECT_TRUE(pinned);
  bool flagged = false;
  for (const Suggestion& f : TraceFindings(*rep, DefaultPolicy().expr_rules))
    flagged = flagged || f.rule == "pageable-memcpy";
  EXPECT_TRUE(flagged);
}

TEST(CuptiChromeTraceTest, TraceToResultsAgreesWithKernelResultsFromRecords) {
  const TraceRecords records = SampleRecords();
  auto results = TraceTextToResults(WriteChromeTrace(records), "cupti.json");
  ASSERT_TRUE(results.ok()) << results.error().message;
  ASSERT_EQ(results->workloads.size(), 1u);
  EXPECT_EQ(results->run.env.gpu.name, "NVIDIA A100-SXM4-80GB");
  EXPECT_EQ(results->run.env.gpu.compute_capability, "8.0");
  const std::vector<KernelResult> direct = KernelResultsFromRecords(records);
  const std::vector<KernelResult>& read = results->workloads[0].kernels;
  ASSERT_EQ(read.size(), direct.size());
  for (size_t i = 0; i < read.size(); ++i) {
    EXPECT_EQ(read[i].name, direct[i].name);
    EXPECT_EQ(read[i].count, direct[i].count);
    EXPECT_DOUBLE_EQ(read[i].total_s, direct[i].total_s);
    EXPECT_EQ(read[i].durations_s, direct[i].durations_s);
    EXPECT_EQ(read[i].metrics.at("registers_per_thread"), direct[i].metrics.at("registers_per_thread"));
    EXPECT_EQ(read[i].metrics.at("shared_mem_bytes"), direct[i].metrics.at("shared_mem_bytes"));
    EXPECT_EQ(read[i].metrics.at("grid_blocks"), direct[i].metrics.at("grid_blocks"));
    EXPECT_EQ(read[i].metrics.at("block_threads"), direct[i].metrics.at("block_threads"));
  }
}

TEST(CuptiChromeTraceTest, HostileKernelNamesStayValidJson) {
  TraceRecords r;
  r.kernels.push_back(Kernel("evil\"name\\\n\x01##[error]\xff", 0, 10, 0));
  const std::string json = WriteChromeTrace(r);
  Collect sink;
  auto info = ReadTraceFromString(json, "cupti.json", sink);
  ASSERT_TRUE(info.ok()) << info.error().message;
  bool found = false;
  for (const TraceEvent& e : sink.events) {
    if (e.category != TraceCategory::kKernel) continue;
    found = true;
    EXPECT_EQ(e.name.rfind("evil\"name\\\n\x01", 0), 0u);
    EXPECT_EQ(e.name.find('\xff'), std::string::npos);  // invalid UTF-8 replaced
  }
  EXPECT_TRUE(found);
  EXPECT_EQ(json.find("##["), std::string::npos);
}

TEST(CuptiChromeTraceTest, NoGpuActivityStillWritesAReadableTrace) {
  TraceRecords r;
  r.process_id = 1;
  r.apis.push_back(Api(ApiDomain::kRuntime, "cudaGetDeviceCount", 0, 100, 1));
  const std::string json = WriteChromeTrace(r);
  EXPECT_FALSE(r.HasGpuActivity());
  Collect sink;
  ASSERT_TRUE(ReadTraceFromString(json, "cupti.json", sink).ok());
  auto results = TraceTextToResults(json, "cupti.json");
  ASSERT_FALSE(results.ok());  // nothing to compare: the caller says so honestly
}

}  // namespace
}  // namespace gpugate
