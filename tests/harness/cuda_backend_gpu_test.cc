// Device test of the CUDA backend: runs saxpy (and the other kernels) on GPU
// 0 through the runner. Skips with the reason when no device is present.
#include <gtest/gtest.h>

#include "harness/backends/cuda_backend.h"
#include "harness/runner.h"

namespace gpugate {
namespace {

WorkloadSpec DeviceSpec(const std::string& kernel, int64_t n, bool cold) {
  WorkloadSpec spec;
  spec.name = kernel + "/gpu";
  spec.kind = WorkloadKind::kBuiltin;
  spec.kernel = kernel;
  spec.backend = "cuda";
  spec.sizes = {{"n", n}};
  spec.l2_cold = cold;
  spec.sampling.warmup = 2;
  spec.sampling.min_samples = 6;
  spec.sampling.max_samples = 30;
  spec.sampling.min_time = 0;
  spec.sampling.rounds = 3;
  spec.sampling.target_rel_ci = 0.05;
  return spec;
}

TEST(CudaBackendGpuTest, SaxpyRunsVerifiesAndReportsClocks) {
  if (auto why = CudaUnavailableReason()) GTEST_SKIP() << *why;
  auto backend = MakeCudaBackend();
  WorkloadResult r = RunWorkload(DeviceSpec("saxpy", 1 << 20, /*cold=*/true), *backend);
  ASSERT_EQ(r.status, WorkloadStatus::kOk) << r.reason;
  EXPECT_EQ(r.backend, "cuda");
  EXPECT_GE(r.summary.n, 6);
  EXPECT_GT(r.summary.median, 0);
  EXPECT_EQ(*r.work.bytes, 3 * (1 << 20) * 4);
  ASSERT_TRUE(r.bytes_per_second.has_value());
  EXPECT_GT(*r.bytes_per_second, 1e9);  // any GPU moves more than 1 GB/s
  ASSERT_EQ(r.clocks.size(), r.rounds.size());
  for (const auto& c : r.clocks) EXPECT_GT(c.sm_clock_hz, 1e8);
  EXPECT_GT(r.counters.at("l2_flush_bytes"), 0);
  // Per-sample clocks: a cycle-space time for every kept sample, and the
  // throttled samples that were dropped counted (0 on a healthy GPU).
  ASSERT_EQ(r.cycles.size(), r.rounds.size());
  for (size_t i = 0; i < r.rounds.size(); ++i) {
    ASSERT_EQ(r.cycles[i].size(), r.rounds[i].size());
    for (size_t j = 0; j < r.rounds[i].size(); ++j)
      EXPECT_NEAR(r.cycles[i][j] / r.rounds[i][j], r.clocks[i].sm_clock_hz, 0.3 * r.clocks[i].sm_clock_hz);
  }
  ASSERT_EQ(r.counters.count("throttled_samples_discarded"), 1u);
  // A GPU at its clock drops few samples; a clock misread (stamps from two
  // SMs) would drop most of them.
  EXPECT_LE(r.counters.at("throttled_samples_discarded"), 0.5 * static_cast<double>(AllSamples(r).size()));
  EXPECT_EQ(r.counters.count("blocking_kernel_timeouts"), 0u);
}

TEST(CudaBackendGpuTest, EveryKernelVerifies) {
  if (auto why = CudaUnavailableReason()) GTEST_SKIP() << *why;
  auto backend = MakeCudaBackend();
  for (const char* k : {"copy", "triad", "saxpy", "reduce"}) {
    WorkloadResult r = RunWorkload(DeviceSpec(k, 1000003, /*cold=*/false), *backend);
    EXPECT_EQ(r.status, WorkloadStatus::kOk) << k << ": " << r.reason;
  }
  for (const char* k : {"sgemm_naive", "sgemm_blocked"}) {
    WorkloadResult r = RunWorkload(DeviceSpec(k, 257, /*cold=*/false), *backend);
    EXPECT_EQ(r.status, WorkloadStatus::kOk) << k << ": " << r.reason;
  }
}

TEST(CudaBackendGpuTest, GpuInfoIsFilled) {
  if (auto why = CudaUnavailableReason()) GTEST_SKIP() << *why;
  auto info = QueryCudaGpuInfo(0);
  ASSERT_TRUE(info.ok()) << info.error().message;
  EXPECT_TRUE(info->name.has_value());
  EXPECT_TRUE(info->compute_capability.has_value());
  EXPECT_GT(info->sm_count.value_or(0), 0);
  EXPECT_GT(info->l2_bytes.value_or(0), 0);
}

}  // namespace
}  // namespace gpugate
