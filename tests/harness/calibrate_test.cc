// Tests for calibration (harness/calibrate.h) without timing assertions:
// buffer sizing, the triad and FMA kernels' arithmetic, the GPU path's
// refusal without a device, and `gpugate calibrate` end to end (a CPU
// profile that parses; a clear error without a GPU and without --cpu).
#include "harness/calibrate.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "cli/run_binary.h"
#include "model/device_profile.h"

namespace gpugate {
namespace {

TEST(CalibrateTest, TriadArraysAreFarLargerThanTheLastLevelCache) {
  EXPECT_EQ(TriadArrayBytes(std::nullopt), int64_t{256} << 20);  // 8 x 32 MiB assumed
  EXPECT_EQ(TriadArrayBytes(int64_t{1} << 20), int64_t{64} << 20);
  EXPECT_EQ(TriadArrayBytes(int64_t{96} << 20), int64_t{768} << 20);
}

TEST(CalibrateTest, TriadComputesStreamsTriadOnItsRange) {
  std::vector<double> a(8, -1), b(8), c(8);
  for (int i = 0; i < 8; ++i) b[i] = i, c[i] = 10 * i;
  TriadRange(a.data(), b.data(), c.data(), 0.5, 2, 6);
  EXPECT_EQ(a[1], -1);
  EXPECT_EQ(a[2], 2 + 0.5 * 20);
  EXPECT_EQ(a[5], 5 + 0.5 * 50);
  EXPECT_EQ(a[6], -1);
}

TEST(CalibrateTest, FmaChainsComputeTheChainsWhateverTheCode) {
  // x <- x * m + a on kFmaLanes lanes starting at 1 + j/1000; with m = 1 and
  // a = 0.5 after 4 iterations every lane grew by 2.
  float expect = 0;
  for (int j = 0; j < kFmaLanes; ++j) expect += 1.0f + static_cast<float>(j) * 1e-3f + 2.0f;
  EXPECT_NEAR(FmaChains(4, 1.0f, 0.5f), expect, 1e-3);
}

#ifndef GPUGATE_HAVE_CUDA
TEST(CalibrateTest, GpuCalibrationRefusesWithoutCuda) {
  ASSERT_TRUE(GpuCalibrationUnavailable().has_value());
  Result<DeviceProfile> p = CalibrateGpu(0);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().message.find("without CUDA"), std::string::npos);
}
#endif

TEST(CalibrateCliTest, CpuProfileIsWrittenAndLabelled) {
  const std::string dir = testing::MakeTempDir();
  auto o = testing::RunGpugate({"calibrate", "--cpu", "--threads", "1", "-o", dir + "/cpu.json"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.err.find("CPU profile: bandwidth"), std::string::npos) << o.err;
  Result<DeviceProfile> p = DeviceProfileFromJson(testing::ReadAll(dir + "/cpu.json"), "cpu.json");
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(p->kind, "cpu");
  EXPECT_GT(p->peak_bytes_per_second, 0);
  EXPECT_GT(p->peak_fp32_flops, 0);
  EXPECT_FALSE(p->peak_fp16_flops.has_value());
  EXPECT_NE(p->method.find("1 thread(s)"), std::string::npos) << p->method;
  testing::RemoveTree(dir);
}

TEST(CalibrateCliTest, WithoutAGpuAndWithoutCpuItSaysWhatToDo) {
  if (!GpuCalibrationUnavailable()) GTEST_SKIP() << "a GPU is usable here";
  auto o = testing::RunGpugate({"calibrate"});
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("gpugate: error: calibrate: no GPU to measure"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("use --cpu"), std::string::npos);
  auto bad = testing::RunGpugate({"calibrate", "--cpu", "--device", "1"});
  EXPECT_EQ(bad.exit_code, 2);
}

}  // namespace
}  // namespace gpugate
