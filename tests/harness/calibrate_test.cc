// Tests for calibration (harness/calibrate.h) without timing assertions:
// buffer sizing, the triad and FMA kernels' arithmetic, the GPU path's
// refusal without a device, and `gpugate calibrate` end to end (a CPU
// profile that parses; a clear error without a GPU and without --cpu).
#include "harness/calibrate.h"

#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cctype>
#include <cmath>
#include <cstdlib>
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

// 8 x a 260 MiB cache is 2 GiB per array: capped at 1 GiB each, and at a
// quarter of the available memory for all three.
TEST(CalibrateTest, TriadArraysAreCappedByAvailableMemory) {
  const int64_t mib = int64_t{1} << 20;
  TriadArrays plenty = PlanTriadArrays(260 * mib, 64 * 1024 * mib);
  EXPECT_EQ(plenty.bytes, kMaxTriadArrayBytes);
  EXPECT_EQ(plenty.capped_by, "capped at 1024 MiB each");
  TriadArrays small = PlanTriadArrays(260 * mib, 6000 * mib);
  EXPECT_EQ(small.bytes, 6000 * mib / 12);
  EXPECT_EQ(small.capped_by, "capped at a quarter of the 6000 MiB of available memory");
  TriadArrays fits = PlanTriadArrays(8 * mib, 6000 * mib);
  EXPECT_EQ(fits.bytes, 64 * mib);
  EXPECT_EQ(fits.capped_by, "");
  EXPECT_EQ(PlanTriadArrays(std::nullopt, std::nullopt).bytes, 256 * mib);
  EXPECT_EQ(PlanTriadArrays(8 * mib, 4 * mib).bytes, mib);  // never below 1 MiB
  // Capped below what a cache holds: the method says the bandwidth may be the cache's.
  TriadArrays cache = PlanTriadArrays(260 * mib, 120 * mib);
  EXPECT_EQ(cache.bytes, 10 * mib);
  EXPECT_EQ(cache.capped_by, "capped at a quarter of the 120 MiB of available memory (less than 4x the 260 "
                             "MiB last-level cache: the bandwidth may be the cache's, not DRAM's)");
}

TEST(CalibrateTest, MemAvailableIsReadFromMeminfo) {
  EXPECT_EQ(MemAvailableFromMeminfo("MemTotal:       16303428 kB\nMemFree:  1 kB\nMemAvailable:   12000000 kB\n"),
            int64_t{12000000} * 1024);
  EXPECT_EQ(MemAvailableFromMeminfo("MemTotal:       16303428 kB\n"), std::nullopt);
  EXPECT_EQ(MemAvailableFromMeminfo("MemAvailable: x kB\n"), std::nullopt);
  EXPECT_TRUE(ReadAvailableMemoryBytes().has_value());  // Linux has /proc/meminfo
}

TEST(CalibrateTest, ACgroupLimitLowersTheMemoryAvailable) {
  EXPECT_EQ(CgroupHeadroom("2147483648\n", "536870912\n"), int64_t{1610612736});
  EXPECT_EQ(CgroupHeadroom("1000\n", "5000\n"), int64_t{0});  // over its limit: nothing left
  EXPECT_EQ(CgroupHeadroom("max\n", "536870912\n"), std::nullopt);
  EXPECT_EQ(CgroupHeadroom("9223372036854771712\n", "1\n"), std::nullopt);  // v1 "unlimited"
  EXPECT_EQ(CgroupHeadroom("", ""), std::nullopt);
  EXPECT_EQ(CgroupHeadroom("12x\n", "1\n"), std::nullopt);
  EXPECT_EQ(CgroupHeadroom("4096\n", ""), int64_t{4096});  // usage unknown
  EXPECT_EQ(CgroupV2Path("12:memory:/docker/abc\n0::/system.slice/ci.scope\n"), "/system.slice/ci.scope");
  EXPECT_EQ(CgroupV2Path("0::/\n"), "/");
  // The page cache of a checkout and a build is given back on demand.
  EXPECT_EQ(ReclaimableFromMemoryStat("anon 157286400\nfile 4294967296\nactive_file 300\ninactive_file 4000000000\n"),
            int64_t{4000000000});
  EXPECT_EQ(ReclaimableFromMemoryStat("cache 5\ntotal_inactive_file 123\n"), int64_t{123});
  EXPECT_EQ(ReclaimableFromMemoryStat("anon 1\n"), int64_t{0});
  EXPECT_EQ(CgroupHeadroom("4294967296\n", "4250000000\n", 4000000000), int64_t{4044967296});
  EXPECT_EQ(CgroupV2Path("4:memory:/user.slice\n"), std::nullopt);
}

// The profile's method says when the arrays were capped.
TEST(CalibrateTest, ACappedTriadIsSaidInTheMethod) {
  CpuCalibrationOptions o;
  o.threads = 1;
  o.repetitions = 1;
  o.llc_bytes = int64_t{1} << 20;
  o.available_bytes = int64_t{96} << 20;
  Result<DeviceProfile> p = CalibrateCpu(o);
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_NE(p->method.find("triad over 3 x 8 MiB (last-level cache 1024 KiB; capped at a quarter of the 96 MiB "
                           "of available memory)"),
            std::string::npos)
      << p->method;
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
  EXPECT_NE(p->method.find("1 thread, "), std::string::npos) << p->method;
  testing::RemoveTree(dir);
}

// --threads is bounded (a huge count used to abort in std::terminate), and
// -o is checked before the measurement: both exit 2 at once.
TEST(CalibrateCliTest, ThreadsAndOutputAreCheckedBeforeMeasuring) {
  auto many = testing::RunGpugate({"calibrate", "--cpu", "--threads", "100000"});
  EXPECT_EQ(many.exit_code, 2) << many.err;
  EXPECT_NE(many.err.find("gpugate: error: --threads must be from 0 to " + std::to_string(MaxCalibrationThreads()) +
                          " (4 x the online CPUs), got 100000"),
            std::string::npos)
      << many.err;
  EXPECT_EQ(many.err.find("calibrating"), std::string::npos) << many.err;
  auto help = testing::RunGpugate({"calibrate", "--help"});
  std::string words;  // the help text as one line (it is wrapped at 80 columns)
  for (char c : help.out)
    if (!(std::isspace(static_cast<unsigned char>(c)) && (words.empty() || words.back() == ' '))) words += std::isspace(static_cast<unsigned char>(c)) ? ' ' : c;
  EXPECT_NE(words.find("at most 4 x the online CPUs"), std::string::npos) << help.out;
  const std::string dir = testing::MakeTempDir();
  for (const std::string& bad : {dir + "/no/such/p.json", dir, std::string()}) {
    auto o = testing::RunGpugate({"calibrate", "--cpu", "--threads", "1", "-o", bad});
    EXPECT_EQ(o.exit_code, 2) << bad << ": " << o.err;
    EXPECT_EQ(o.err.find("calibrating"), std::string::npos) << bad << ": " << o.err;
  }
  testing::RemoveTree(dir);
}

#if defined(__SANITIZE_ADDRESS__)
#define GPUGATE_CALIBRATE_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GPUGATE_CALIBRATE_TEST_ASAN 1
#endif
#endif

// A thread that cannot be started (here: 1 GiB stacks under a 2.9 GB
// address-space limit) ends the calibration with an error, exit 3, after the
// started threads are joined -- not std::terminate (exit 134).
TEST(CalibrateCliTest, AThreadThatCannotStartIsAnErrorNotACrash) {
#ifdef GPUGATE_CALIBRATE_TEST_ASAN
  GTEST_SKIP() << "AddressSanitizer reserves more address space than the limit this test sets";
#else
  const std::string dir = testing::MakeTempDir();
  const std::string command = "ulimit -s 1048576 && ulimit -v 3000000 && '" + std::string(GPUGATE_BINARY) +
                              "' calibrate --cpu --threads 4 >/dev/null 2>'" + dir + "/err.txt'";
  const int status = std::system(command.c_str());
  const std::string err = testing::ReadAll(dir + "/err.txt");
  ASSERT_TRUE(WIFEXITED(status)) << err;
  EXPECT_EQ(WEXITSTATUS(status), 3) << err;
  EXPECT_NE(err.find("gpugate: error: calibrate: cannot start thread "), std::string::npos) << err;
  EXPECT_NE(err.find("use fewer --threads"), std::string::npos) << err;
  testing::RemoveTree(dir);
#endif
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
