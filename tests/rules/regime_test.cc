// Tests for roofline regimes (rules/regime.h) and the device profile file
// (model/device_profile.h).
#include "rules/regime.h"

#include <gtest/gtest.h>

#include <string>

#include "model/device_profile.h"

namespace gpugate {
namespace {

// A100-like roofs: 1.5 TB/s, 19.5 TFLOP/s FP32 (ridge 13 FLOP/B), 78 TFLOP/s
// FP16, 4 us launches.
DeviceProfile Profile() {
  DeviceProfile p;
  p.device_name = "Test GPU";
  p.peak_bytes_per_second = 1.5e12;
  p.peak_fp32_flops = 19.5e12;
  p.peak_fp16_flops = 78e12;
  p.launch_overhead_s = 4e-6;
  return p;
}

TEST(RegimeTest, MemoryBoundBelowTheRidgeWithFractionOfTheBandwidthRoof) {
  // Triad over 1 GiB-ish: 12e8 bytes, 2e8 FLOPs (AI 1/6), 1 ms.
  auto p = Place(Profile(), {1e-3, 12e8, 2e8, false});
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->regime, Regime::kMemoryBound);
  EXPECT_NEAR(*p->arithmetic_intensity, 1.0 / 6.0, 1e-12);
  EXPECT_NEAR(p->ridge, 13.0, 1e-12);
  // Attainable = min(19.5e12, AI x 1.5e12) = 2.5e11 FLOP/s; achieved 2e11.
  EXPECT_NEAR(p->roof_fraction, 0.8, 1e-12);
}

TEST(RegimeTest, ComputeBoundAboveTheRidge) {
  // GEMM n=4096: 2n^3 FLOPs, 3n^2 x 4 bytes (AI ~683), 10 ms.
  const double n = 4096;
  auto p = Place(Profile(), {10e-3, 12 * n * n, 2 * n * n * n, false});
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->regime, Regime::kComputeBound);
  EXPECT_NEAR(p->roof_fraction, 2 * n * n * n / 10e-3 / 19.5e12, 1e-12);
  // The same FLOPs in FP16 are judged under the FP16 roof.
  auto h = Place(Profile(), {10e-3, 12 * n * n, 2 * n * n * n, true});
  EXPECT_NEAR(h->roof_fraction, 2 * n * n * n / 10e-3 / 78e12, 1e-12);
  EXPECT_NEAR(h->ridge, 52.0, 1e-12);
}

TEST(RegimeTest, OverheadBoundWithinAFewLaunches) {
  auto p = Place(Profile(), {kOverheadLaunches * 4e-6, 4096, 1024, false});
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->regime, Regime::kOverheadBound);
  auto q = Place(Profile(), {kOverheadLaunches * 4e-6 * 1.01, 4096, 1024, false});
  EXPECT_EQ(q->regime, Regime::kMemoryBound);
}

TEST(RegimeTest, OneCountAloneAndNoCounts) {
  auto copy = Place(Profile(), {1e-3, 1.5e9, std::nullopt, false});  // bytes only: AI 0
  ASSERT_TRUE(copy.has_value());
  EXPECT_EQ(copy->regime, Regime::kMemoryBound);
  EXPECT_FALSE(copy->arithmetic_intensity.has_value());
  EXPECT_NEAR(copy->roof_fraction, 1.0, 1e-12);
  auto flops = Place(Profile(), {1e-3, std::nullopt, 1.95e10, false});  // FLOPs only
  EXPECT_EQ(flops->regime, Regime::kComputeBound);
  EXPECT_NEAR(flops->roof_fraction, 1.0, 1e-12);
  EXPECT_FALSE(Place(Profile(), {1e-3, std::nullopt, std::nullopt, false}).has_value());
  EXPECT_FALSE(Place(Profile(), {0.0, 100.0, 100.0, false}).has_value());
}

TEST(RegimeTest, WorkloadsAndKernelsWithWorkCountsArePlaced) {
  Results r;
  WorkloadResult w;
  w.name = "triad/16M";
  w.rounds = {{2e-3, 1e-3, 1e-3}};
  w.work.bytes = 1'500'000'000;
  w.work.flops = 0;
  KernelResult k;
  k.name = "gemm";
  k.count = 2;
  k.total_s = 20e-3;
  k.metrics = {{"bytes", 12.0 * 4096 * 4096}, {"flops", 2.0 * 4096 * 4096 * 4096}};
  KernelResult bare;
  bare.name = "no counts";
  bare.count = 1;
  bare.total_s = 1e-3;
  w.kernels = {k, bare};
  WorkloadResult uncounted;
  uncounted.name = "plain";
  uncounted.rounds = {{1e-3}};
  r.workloads = {w, uncounted};
  AddRegimes(Profile(), &r);
  ASSERT_TRUE(r.workloads[0].regime.has_value());
  EXPECT_EQ(r.workloads[0].regime->regime, "memory-bound");
  EXPECT_NEAR(r.workloads[0].regime->roof_fraction, 1.0, 1e-12);  // median 1 ms
  ASSERT_TRUE(r.workloads[0].kernels[0].regime.has_value());
  EXPECT_EQ(r.workloads[0].kernels[0].regime->regime, "compute-bound");
  EXPECT_FALSE(r.workloads[0].kernels[1].regime.has_value());
  EXPECT_FALSE(r.workloads[1].regime.has_value());

  Verdicts v;
  AddRoofline(Profile(), r, &v);
  EXPECT_EQ(v.device_profile, "Test GPU");
  ASSERT_EQ(v.roofline.size(), 2u);
  EXPECT_EQ(v.roofline[0].workload, "triad/16M");
  EXPECT_EQ(v.roofline[0].kernel, "");
  EXPECT_EQ(v.roofline[1].kernel, "gemm");
  EXPECT_DOUBLE_EQ(v.roofline[1].duration_s, 10e-3);
}

TEST(DeviceProfileTest, RoundTripsThroughJson) {
  DeviceProfile p = Profile();
  p.method = "test";
  p.measured_utc = "2026-11-25T00:00:00Z";
  Result<DeviceProfile> back = DeviceProfileFromJson(DeviceProfileToJson(p), "p.json");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->device_name, "Test GPU");
  EXPECT_EQ(back->kind, "gpu");
  EXPECT_DOUBLE_EQ(back->peak_bytes_per_second, 1.5e12);
  EXPECT_EQ(back->peak_fp16_flops, 78e12);
  EXPECT_DOUBLE_EQ(back->launch_overhead_s, 4e-6);
  EXPECT_DOUBLE_EQ(back->Ridge(), 13.0);
  DeviceProfile cpu = p;
  cpu.kind = "cpu";
  cpu.peak_fp16_flops.reset();
  back = DeviceProfileFromJson(DeviceProfileToJson(cpu), "p.json");
  ASSERT_TRUE(back.ok());
  EXPECT_FALSE(back->peak_fp16_flops.has_value());
  EXPECT_EQ(back->kind, "cpu");
}

TEST(DeviceProfileTest, BadProfilesPointAtTheValue) {
  struct Case {
    const char* text;
    const char* expect;
  } cases[] = {
      {"[]", "p.json:1:1: expected an object"},
      {"{\"schema\": \"gpugate/results/v1\"}", "p.json:1:12: schema: not a gpugate device-profile file"},
      {"{\"schema\": \"gpugate/device-profile/v2\"}", "unsupported device-profile schema"},
      {"{\"schema\": \"gpugate/device-profile/v1\", \"device_name\": \"x\", \"peak_bytes_per_second\": 1,\n"
       " \"peak_fp32_flops\": 1}",
       "p.json:1:1: missing required 'launch_overhead_s'"},
      {"{\"schema\": \"gpugate/device-profile/v1\",\n \"peak_bytes_per_second\": -5}",
       "p.json:2:27: peak_bytes_per_second: expected a finite number greater than 0, got -5"},
      // The value found and the range, not "out-of-range number".
      {"{\"schema\": \"gpugate/device-profile/v1\",\n \"peak_fp32_flops\": 0}",
       "p.json:2:21: peak_fp32_flops: expected a finite number greater than 0, got 0"},
      {"{\"schema\": \"gpugate/device-profile/v1\",\n \"peak_fp16_flops\": -1}",
       "p.json:2:21: peak_fp16_flops: expected a finite number greater than 0, got -1"},
      {"{\"schema\": \"gpugate/device-profile/v1\",\n \"launch_overhead_s\": -1e-9}",
       "p.json:2:23: launch_overhead_s: expected a finite number of 0 or more, got -1e-09"},
      {"{\"schema\": \"gpugate/device-profile/v1\",\n \"launch_overhead_s\": NaN}",
       "launch_overhead_s: expected a finite number of 0 or more, got NaN"},
      {"{\"schema\": \"gpugate/device-profile/v1\",\n \"launch_overhead_s\": \"1\"}",
       "launch_overhead_s: expected a finite number of 0 or more, got string"},
      {"{\"schema\": \"gpugate/device-profile/v1\",\n \"kind\": \"tpu\"}", "p.json:2:10: kind: expected \"gpu\" or \"cpu\""},
      {"{\"schema\": \"gpugate/device-profile/v1\",\n \"peak_bandwidth\": 1}", "p.json:2:20: peak_bandwidth: unknown key"},
  };
  for (const Case& c : cases) {
    Result<DeviceProfile> r = DeviceProfileFromJson(c.text, "p.json");
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_NE(r.error().message.find(c.expect), std::string::npos) << r.error().message;
    EXPECT_EQ(r.error().code, ExitCode::kInputError);
  }
}

}  // namespace
}  // namespace gpugate
