// The plain part of metric collection (metrics/range_profiler.h): profiled
// ranges into a workload's counters, and the chip check. The device part
// needs a GPU (docs/gpu.md).
#include "metrics/range_profiler.h"

#include <gtest/gtest.h>

namespace gpugate {
namespace {

TEST(RangeProfilerTest, OneKernelGivesOneCounterPerMetricAveragedOverLaunches) {
  std::vector<MetricRange> ranges = {
      {"TriadKernel", {{"dram__bytes_read.sum", 100.0}, {"sm__inst_executed.sum", 10.0}}},
      {"TriadKernel", {{"dram__bytes_read.sum", 300.0}, {"sm__inst_executed.sum", 30.0}}},
  };
  std::map<std::string, double> c = detail::MetricCounters(ranges);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_DOUBLE_EQ(c.at("metric:dram__bytes_read.sum"), 200.0);
  EXPECT_DOUBLE_EQ(c.at("metric:sm__inst_executed.sum"), 20.0);
}

TEST(RangeProfilerTest, SeveralKernelsAreNamedInTheirCounters) {
  std::vector<MetricRange> ranges = {
      {"ReducePass1", {{"dram__bytes_read.sum", 4096.0}}},
      {"ReducePass2", {{"dram__bytes_read.sum", 64.0}}},
  };
  std::map<std::string, double> c = detail::MetricCounters(ranges);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_DOUBLE_EQ(c.at("metric:dram__bytes_read.sum@ReducePass1"), 4096.0);
  EXPECT_DOUBLE_EQ(c.at("metric:dram__bytes_read.sum@ReducePass2"), 64.0);
  EXPECT_TRUE(detail::MetricCounters({}).empty());
}

TEST(RangeProfilerTest, ChipMismatchIsNamedCaseInsensitively) {
  EXPECT_EQ(detail::ChipMismatch("GH100", "GH100"), "");
  EXPECT_EQ(detail::ChipMismatch("gh100", "GH100"), "");
  EXPECT_EQ(detail::ChipMismatch("", "GH100"), "");
  const std::string m = detail::ChipMismatch("GH100", "GA100");
  EXPECT_NE(m.find("plans its metrics for chip GH100 but the device is GA100"), std::string::npos) << m;
  EXPECT_NE(m.find("gpugate metrics --chip GA100"), std::string::npos) << m;
}

}  // namespace
}  // namespace gpugate
