// Device test of `gpugate calibrate`: measures GPU 0 and checks the profile is
// physically plausible and survives its JSON form. Skips with the reason when
// no device is present.
#include <gtest/gtest.h>

#include "harness/backends/cuda_backend.h"
#include "harness/calibrate.h"
#include "model/device_profile.h"

namespace gpugate {
namespace {

TEST(CalibrateGpuTest, MeasuresBandwidthFlopsAndLaunchOverhead) {
  if (auto why = GpuCalibrationUnavailable()) GTEST_SKIP() << *why;
  Result<DeviceProfile> p = CalibrateGpu(0);
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(p->kind, "gpu");
  EXPECT_FALSE(p->device_name.empty());
  // Bounds any CUDA GPU of the last decade meets, and none exceeds.
  EXPECT_GT(p->peak_bytes_per_second, 10e9);
  EXPECT_LT(p->peak_bytes_per_second, 20e12);
  EXPECT_GT(p->peak_fp32_flops, 1e11);
  EXPECT_LT(p->peak_fp32_flops, 1e15);
  ASSERT_TRUE(p->peak_fp16_flops.has_value());
  EXPECT_GT(*p->peak_fp16_flops, 0);  // some chips run FP16 at 1/64 of FP32: no ratio checked
  EXPECT_GT(p->launch_overhead_s, 0);
  EXPECT_LT(p->launch_overhead_s, 1e-3);
  Result<DeviceProfile> back = DeviceProfileFromJson(DeviceProfileToJson(*p), "profile.json");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->peak_fp32_flops, p->peak_fp32_flops);
}

}  // namespace
}  // namespace gpugate
