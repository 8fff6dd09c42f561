// Tests of the CUDA backend's host-side logic (no GPU needed) and of how the
// backend reports a missing device.
#include "harness/backends/cuda_support.h"

#include <gtest/gtest.h>

#include "harness/backends/cuda_backend.h"

namespace gpugate {
namespace {

TEST(CudaSupportTest, L2FlushIsTwiceL2RoundedToMiB) {
  EXPECT_EQ(detail::L2FlushBytes(40 << 20), 80 << 20);                // A100: 40 MiB
  EXPECT_EQ(detail::L2FlushBytes(6291456), 12 << 20);                 // 6 MiB
  EXPECT_EQ(detail::L2FlushBytes(1000000), 2 << 20);                  // 2,000,000 B -> 2 MiB
  EXPECT_EQ(detail::L2FlushBytes(0), 64 << 20);                       // unknown
  EXPECT_EQ(detail::L2FlushBytes(-1), 64 << 20);
}

TEST(CudaSupportTest, ClockFromCycleAndTimerDeltas) {
  EXPECT_DOUBLE_EQ(detail::ClockHzFromCounters(1410000, 1000000), 1.41e9);  // 1.41 GHz over 1 ms
  EXPECT_DOUBLE_EQ(detail::ClockHzFromCounters(100, 0), 0.0);
}

TEST(CudaSupportTest, ARoundIsThrottledByTheSampleRuleAgainstTheDefaultClock) {
  // An RTX 4090: CUDA's default (boost) clock 2.52 GHz; under load a stock
  // card holds about 2.73 GHz, and NVML's maximum is 3.12 GHz. A reading
  // judged against that maximum (2.73 < 0.9 x 3.12) flagged a GPU at its
  // normal clock; judged against the default it is fine.
  std::vector<ClockReading> r(3);
  r[0].sm_clock_hz = 2.73e9;
  r[1].sm_clock_hz = 2.52e9;
  r[2].sm_clock_hz = 1.90e9;  // 75.4% of the default: still fine
  EXPECT_FALSE(detail::IsThrottled(r, 2.52e9));
  r[2].sm_clock_hz = 1.85e9;  // 73.4%: throttled, as a sample at that clock is
  EXPECT_TRUE(detail::IsThrottled(r, 2.52e9));
  EXPECT_EQ(detail::IsThrottled(r, 2.52e9), detail::SampleThrottled(1.85e9, 2.52e9));
  EXPECT_FALSE(detail::IsThrottled(r, 0.0));  // default unknown
  EXPECT_FALSE(detail::IsThrottled({}, 2.52e9));
  r[2].sm_clock_hz = 0;  // a failed reading is left out
  EXPECT_FALSE(detail::IsThrottled(r, 2.52e9));
}

TEST(CudaSupportTest, SampleThrottledBelowThreeQuartersOfTheDefaultClock) {
  EXPECT_FALSE(detail::SampleThrottled(1.41e9, 1.41e9));
  EXPECT_FALSE(detail::SampleThrottled(0.75 * 1.41e9, 1.41e9));  // exactly 75%: not below
  EXPECT_TRUE(detail::SampleThrottled(0.74 * 1.41e9, 1.41e9));
  EXPECT_FALSE(detail::SampleThrottled(0.0, 1.41e9));  // reading failed
  EXPECT_FALSE(detail::SampleThrottled(0.5e9, 0.0));   // default unknown
  EXPECT_TRUE(detail::SampleThrottled(0.85e9, 1.41e9, 0.9));
}

TEST(CudaSupportTest, CycleSpaceTimeIsSecondsTimesClock) {
  EXPECT_DOUBLE_EQ(detail::CycleSpaceTime(2e-3, 1.5e9), 3e6);
  // The same work at a lower clock takes longer but as many cycles.
  EXPECT_DOUBLE_EQ(detail::CycleSpaceTime(3e-3, 1.0e9), detail::CycleSpaceTime(2e-3, 1.5e9));
  EXPECT_DOUBLE_EQ(detail::CycleSpaceTime(1.0, 0.0), 0.0);
}

TEST(CudaSupportTest, ThrottleTrackerDiscardsAndCounts) {
  detail::ThrottleTracker t(1.0e9, /*max_consecutive=*/2);
  EXPECT_EQ(t.OnSample(0.99e9), detail::SampleAction::kKeep);
  EXPECT_EQ(t.OnSample(0.5e9), detail::SampleAction::kDiscardAndRecover);
  EXPECT_EQ(t.OnSample(0.9e9), detail::SampleAction::kKeep);  // recovered: the run resets
  EXPECT_EQ(t.OnSample(0.5e9), detail::SampleAction::kDiscardAndRecover);
  EXPECT_EQ(t.OnSample(0.6e9), detail::SampleAction::kDiscardAndRecover);
  EXPECT_EQ(t.OnSample(0.6e9), detail::SampleAction::kKeepThrottled);  // third in a row: kept
  // Pinned low: every later throttled sample is kept too, without a drop and
  // its recovery wait each (a GPU held below the limit must still end).
  EXPECT_EQ(t.OnSample(0.6e9), detail::SampleAction::kKeepThrottled);
  EXPECT_EQ(t.OnSample(0.6e9), detail::SampleAction::kKeepThrottled);
  EXPECT_EQ(t.OnSample(0.0), detail::SampleAction::kKeep);  // no reading: kept, and the run resets
  EXPECT_EQ(t.OnSample(0.6e9), detail::SampleAction::kDiscardAndRecover);
  EXPECT_EQ(t.discarded(), 4);
  EXPECT_EQ(t.kept_throttled(), 3);
  detail::ThrottleTracker unknown(0.0);
  EXPECT_EQ(unknown.OnSample(1.0), detail::SampleAction::kKeep);
}

TEST(CudaSupportTest, LaunchesBeforeReleaseStayWithinTheQueue) {
  EXPECT_EQ(detail::LaunchesBeforeRelease(1, 256), 1);
  EXPECT_EQ(detail::LaunchesBeforeRelease(256, 256), 256);
  EXPECT_EQ(detail::LaunchesBeforeRelease(1 << 20, 256), 256);
  EXPECT_EQ(detail::LaunchesBeforeRelease(0, 256), 0);
}

TEST(CudaSupportTest, DescribeThrottleReasons) {
  EXPECT_EQ(detail::DescribeThrottleReasons(0), "none");
  EXPECT_EQ(detail::DescribeThrottleReasons(0x4), "sw_power_cap");
  EXPECT_EQ(detail::DescribeThrottleReasons(0x1 | 0x40), "gpu_idle,hw_thermal_slowdown");
  EXPECT_EQ(detail::DescribeThrottleReasons(0x8 | 0x1000), "hw_slowdown,0x1000");
}

TEST(CudaSupportTest, VersionFormatting) {
  EXPECT_EQ(detail::FormatCudaVersion(13000), "13.0");
  EXPECT_EQ(detail::FormatCudaVersion(12040), "12.4");
  EXPECT_EQ(detail::FormatCudaVersion(11080), "11.8");
  EXPECT_EQ(detail::FormatComputeCapability(9, 0), "9.0");
  const unsigned char uuid[16] = {0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0,
                                  0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef};
  EXPECT_EQ(detail::FormatGpuUuid(uuid), "GPU-12345678-9abc-def0-0123-456789abcdef");
}

TEST(CudaBackendTest, WithoutDeviceEverythingIsUnsupportedWithReason) {
  auto why = CudaUnavailableReason();
  if (!why) GTEST_SKIP() << "a CUDA device is present";
#ifdef GPUGATE_HAVE_CUDA
  EXPECT_EQ(why->rfind("no CUDA device: ", 0), 0u) << *why;
#else
  EXPECT_EQ(*why, "gpugate was built without CUDA");
#endif
  auto backend = MakeCudaBackend();
  EXPECT_EQ(backend->Name(), "cuda");
  WorkloadSpec spec;
  spec.kind = WorkloadKind::kBuiltin;
  spec.kernel = "saxpy";
  EXPECT_EQ(backend->Unsupported(spec), why);
  EXPECT_FALSE(backend->Prepare(spec).ok());
  auto info = QueryCudaGpuInfo(0);
  ASSERT_FALSE(info.ok());
  EXPECT_EQ(info.error().message, *why);
}

}  // namespace
}  // namespace gpugate
