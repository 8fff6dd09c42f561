// Device test of metric collection: a builtin kernel with `metrics:` on GPU 0
// gets its counters from the CUPTI range profiler. Skips with the reason
// when no device is present.
#include <gtest/gtest.h>

#include "harness/backends/cuda_backend.h"
#include "harness/runner.h"
#include "metrics/range_profiler.h"

namespace gpugate {
namespace {

TEST(RangeProfilerGpuTest, TriadCountsItsDramBytes) {
  if (auto why = CudaUnavailableReason()) GTEST_SKIP() << *why;
  Result<GpuInfo> info = QueryCudaGpuInfo(0);
  ASSERT_TRUE(info.ok()) << info.error().message;
  WorkloadSpec spec;
  spec.name = "triad/gpu";
  spec.kind = WorkloadKind::kBuiltin;
  spec.kernel = "triad";
  spec.backend = "cuda";
  const int64_t n = 1 << 24;
  spec.sizes = {{"n", n}};
  spec.sampling.warmup = 1;
  spec.sampling.min_samples = 3;
  spec.sampling.max_samples = 5;
  spec.sampling.min_time = 0;
  spec.sampling.rounds = 1;
  spec.metrics = {{"dram__bytes_read.sum", {}}, {"dram__bytes_write.sum", {}}};
  auto backend = MakeCudaBackend();
  WorkloadResult r = RunWorkload(spec, *backend);
  ASSERT_EQ(r.status, WorkloadStatus::kOk) << r.reason;
  ASSERT_TRUE(r.counters.count("metric_ranges"));
  if (r.counters.at("metric_ranges") == 0) {
    // Profiling restricted to administrators, or a chip without these
    // metrics, is a note and a skip; any other failure is the collector's.
    ASSERT_FALSE(r.notes.empty());
    const std::string& note = r.notes.back();
    const bool allowed = note.find("INSUFFICIENT_PRIVILEGES") != std::string::npos ||
                         note.find("NOT_SUPPORTED") != std::string::npos ||
                         note.find("unknown metric") != std::string::npos;
    if (allowed) GTEST_SKIP() << note;
    FAIL() << "metrics not collected: " << note;
  }
  // triad reads a and b and writes c: 8 bytes read, 4 written per element.
  EXPECT_NEAR(r.counters.at("metric:dram__bytes_read.sum"), 8.0 * n, 0.2 * 8.0 * n);
  EXPECT_NEAR(r.counters.at("metric:dram__bytes_write.sum"), 4.0 * n, 0.2 * 4.0 * n);
}

}  // namespace
}  // namespace gpugate
