// Tests for report number formatting (expected strings worked out by hand
// from the rounding rules in format.h).
#include "util/text/format.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace gpugate {
namespace {

TEST(ReportFormat, PercentHasSignAndOneDecimal) {
  EXPECT_EQ(FormatPercent(0.041), "+4.1%");
  EXPECT_EQ(FormatPercent(-0.03), "-3.0%");
  EXPECT_EQ(FormatPercent(1.5), "+150.0%");
  // A change that rounds to 0.0% but is there keeps two significant digits
  // (a 0.045% regression beside a 0.04% threshold); float noise and 0 do not.
  EXPECT_EQ(FormatPercent(0.0004), "+0.04%");
  EXPECT_EQ(FormatPercent(-0.0004), "-0.04%");
  EXPECT_EQ(FormatPercent(0.00045), "+0.045%");
  EXPECT_EQ(FormatPercent(0.0005), "+0.1%");
  EXPECT_EQ(FormatPercent(1.2e-7), "+1.2e-05%");
  EXPECT_EQ(FormatPercent(2.2e-16), "0.0%");
  EXPECT_EQ(FormatPercent(0.0), "0.0%");
  EXPECT_EQ(FormatRatioCi(1.00045, 1.00044, 1.00046), "+0.045% [+0.044%, +0.046%]");
  // Judged against a threshold written with more decimals, the change takes
  // them: never "+0.1% exceeds the 0.12% threshold" for +0.13%.
  EXPECT_EQ(ChangeDecimals(0.02), 1);
  EXPECT_EQ(ChangeDecimals(0.025), 1);
  EXPECT_EQ(ChangeDecimals(0.0012), 2);
  EXPECT_EQ(ChangeDecimals(0.0124), 2);
  EXPECT_EQ(ChangeDecimals(0.00045), 3);
  EXPECT_EQ(ChangeDecimals(0.0000001), 1);  // "1e-05%": below what 4 decimals show
  EXPECT_EQ(ChangeDecimals(0.123456789), 4);
  EXPECT_EQ(ChangeDecimals(0.0), 1);
  EXPECT_EQ(FormatRatioCi(1.0013, 1.0012, 1.0014, ChangeDecimals(0.0012)), "+0.13% [+0.12%, +0.14%]");
  EXPECT_EQ(FormatRatioCi(1.0007, 1.0006, 1.0008, 2), "+0.07% [+0.06%, +0.08%]");
  EXPECT_EQ(FormatPercent(0.012451, 2), "+1.25%");
  EXPECT_EQ(FormatPercent(-0.00004, 2), "-0.004%");
  EXPECT_EQ(FormatPercent(std::numeric_limits<double>::quiet_NaN()), "n/a");
}

TEST(ReportFormat, ShareIsUnsignedWithFixedDecimals) {
  EXPECT_EQ(FormatShare(0.1234), "12.34%");
  EXPECT_EQ(FormatShare(0.45, 1), "45.0%");
  EXPECT_EQ(FormatShare(1.0), "100.00%");
  EXPECT_EQ(FormatShare(0.0), "0.00%");
  EXPECT_EQ(FormatShare(0.5, 9), "50.000%");  // at most three decimals
  EXPECT_EQ(FormatShare(std::numeric_limits<double>::infinity()), "n/a");
}

TEST(ReportFormat, ThresholdDropsZeroDecimal) {
  EXPECT_EQ(FormatThreshold(0.02), "2%");
  EXPECT_EQ(FormatThreshold(0.025), "2.5%");
  EXPECT_EQ(FormatThreshold(0.1), "10%");
  // As set, not rounded to 0.1%: a sub-percent threshold and a confidence
  // just below 1 are other gates than their roundings.
  EXPECT_EQ(FormatThreshold(0.0004), "0.04%");
  EXPECT_EQ(FormatThreshold(0.0025), "0.25%");
  EXPECT_EQ(FormatThreshold(0.9999), "99.99%");
  EXPECT_EQ(FormatThreshold(0.07), "7%");
  EXPECT_EQ(FormatThreshold(25.0), "2500%");
  EXPECT_EQ(FormatThreshold(0.12345), "12.345%");
  EXPECT_EQ(FormatThreshold(0.99999), "99.999%");
  EXPECT_EQ(FormatThreshold(9.9996), "999.96%");
}

TEST(ReportFormat, DetectableEffectTwoSignificantDigits) {
  EXPECT_EQ(FormatDetectable(0.113), "+11%");
  EXPECT_EQ(FormatDetectable(0.38), "+38%");
  EXPECT_EQ(FormatDetectable(0.042), "+4.2%");
  EXPECT_EQ(FormatDetectable(0.04), "+4%");
  EXPECT_EQ(FormatDetectable(0.0996), "+10%");
  EXPECT_EQ(FormatDetectable(0.0969), "+9.7%");  // two significant digits, not "+10%"
  EXPECT_EQ(FormatDetectable(0.0994), "+9.9%");
  EXPECT_EQ(FormatDetectable(0.0049), "+0.49%");
  EXPECT_EQ(FormatDetectable(0.00031), "+0.031%");  // not "+0%"
  EXPECT_EQ(FormatDetectable(0.00996), "+1%");
  EXPECT_EQ(FormatDetectable(2.5), "+250%");
  EXPECT_EQ(FormatDetectable(8.99), "+899%");
  // From a tenfold slowdown on, a factor with two significant digits.
  EXPECT_EQ(FormatDetectable(9.0), "\u00d710");
  EXPECT_EQ(FormatDetectable(13.7), "\u00d715");
  EXPECT_EQ(FormatDetectable(14873.32), "\u00d715,000");
  EXPECT_EQ(FormatDetectable(999000.0), "\u00d71,000,000");
  EXPECT_EQ(FormatDetectable(1e30), ">\u00d71,000,000");
  EXPECT_EQ(FormatDetectable(0.2, /*lower_is_better=*/false), "-20%");
  EXPECT_EQ(FormatDetectable(-0.1), "n/a");
  EXPECT_EQ(FormatDetectable(std::numeric_limits<double>::infinity()), "n/a");
}

TEST(ReportFormat, Ratio) {
  EXPECT_EQ(FormatRatio(1.041), "+4.1%");
  EXPECT_EQ(FormatRatio(0.95), "-5.0%");
  EXPECT_EQ(FormatRatio(1.0), "0.0%");
  EXPECT_EQ(FormatRatio(12.5), "+1150.0%");
  EXPECT_EQ(FormatRatio(1e9), "×1e+09");
  EXPECT_EQ(FormatRatio(1234), "×1,200");
  EXPECT_EQ(FormatRatio(999.0), "+99800.0%");
  EXPECT_EQ(FormatRatio(0.0), "-100.0%");
  // 1 s to 1 ns did not become 0: a factor.
  EXPECT_EQ(FormatRatio(1e-9), "×1e-09");
  EXPECT_EQ(FormatRatio(0.0004), "×0.0004");
  EXPECT_EQ(FormatRatio(0.0006), "-99.9%");
  EXPECT_EQ(FormatRatioCi(1e-9, 5e-10, 2e-9), "×1e-09 [×5e-10, ×2e-09]");
  // One notation in one interval.
  EXPECT_EQ(FormatRatioCi(0.001, 0.00025, 0.002), "×0.001 [×0.00025, ×0.002]");
  EXPECT_EQ(FormatRatioCi(500, 200, 1500), "×500 [×200, ×1,500]");
  EXPECT_EQ(FormatRatio(-1.0), "n/a");
  EXPECT_EQ(FormatRatio(std::numeric_limits<double>::infinity()), "n/a");
}

TEST(ReportFormat, RatioWithInterval) {
  EXPECT_EQ(FormatRatioCi(1.041, 1.029, 1.053), "+4.1% [+2.9%, +5.3%]");
  EXPECT_EQ(FormatRatioCi(0.87, 0.85, 0.89), "-13.0% [-15.0%, -11.0%]");
  EXPECT_EQ(FormatRatioCi(0.87, std::nullopt, std::nullopt), "-13.0%");
  EXPECT_EQ(FormatRatioCi(std::nullopt, 0.9, 1.1), "n/a");
}

TEST(ReportFormat, DurationThreeSignificantDigits) {
  EXPECT_EQ(FormatDuration(1.234e-3), "1.23 ms");
  EXPECT_EQ(FormatDuration(0.5), "500 ms");
  EXPECT_EQ(FormatDuration(12.345), "12.3 s");
  EXPECT_EQ(FormatDuration(2.05e-5), "20.5 us");
  EXPECT_EQ(FormatDuration(1e-9), "1.00 ns");
  EXPECT_EQ(FormatDuration(0.5e-9), "0.500 ns");
  EXPECT_EQ(FormatDuration(0), "0 ns");
  EXPECT_EQ(FormatDuration(3600), "3600 s");
  EXPECT_EQ(FormatDuration(-1.5e-3), "-1.50 ms");
  EXPECT_EQ(FormatDuration(std::numeric_limits<double>::infinity()), "n/a");
}

TEST(ReportFormat, DurationRoundsIntoTheNextUnit) {
  // 999.96 ns rounds to 1000 ns at three digits, which is 1.00 us.
  EXPECT_EQ(FormatDuration(999.96e-9), "1.00 us");
  EXPECT_EQ(FormatDuration(0.99996), "1.00 s");
  EXPECT_EQ(FormatDuration(999.4e-9), "999 ns");
}

TEST(ReportFormat, BytesInBinaryUnits) {
  EXPECT_EQ(FormatBytes(0), "0 B");
  EXPECT_EQ(FormatBytes(512), "512 B");
  EXPECT_EQ(FormatBytes(1023), "1023 B");
  EXPECT_EQ(FormatBytes(1536), "1.50 KiB");
  EXPECT_EQ(FormatBytes(int64_t{3} << 20), "3.00 MiB");
  EXPECT_EQ(FormatBytes(1048575), "1.00 MiB");
  EXPECT_EQ(FormatBytes(int64_t{1} << 30), "1.00 GiB");
  EXPECT_EQ(FormatBytes(-2048), "-2.00 KiB");
}

// A lower bound is rounded down: the text never claims more than is known.
TEST(ReportFormat, BytesAtLeastRoundDown) {
  EXPECT_EQ(FormatBytesAtLeast(1000000), "≥ 976 KiB");  // 977 KiB would be 1,000,448 B
  EXPECT_EQ(FormatBytesAtLeast(1048575), "≥ 1020 KiB");
  EXPECT_EQ(FormatBytesAtLeast(1048576), "≥ 1.00 MiB");
  EXPECT_EQ(FormatBytesAtLeast(1536), "≥ 1.50 KiB");
  EXPECT_EQ(FormatBytesAtLeast(1023), "≥ 1023 B");
  EXPECT_EQ(FormatBytesAtLeast(0), "≥ 0 B");
}

TEST(ReportFormat, PValue) {
  EXPECT_EQ(FormatPValue(0.0012), "0.0012");
  EXPECT_EQ(FormatPValue(0.61), "0.61");
  EXPECT_EQ(FormatPValue(0.04), "0.04");
  EXPECT_EQ(FormatPValue(1.0), "1");
  EXPECT_EQ(FormatPValue(0.00001), "<0.0001");
}

TEST(ReportFormat, MetricValueUsesTheMetricsUnit) {
  EXPECT_EQ(FormatMetricValue("time", 1.234e-3), "1.23 ms");
  EXPECT_EQ(FormatMetricValue("kernel:sgemm", 1.1e-4), "110 us");
  EXPECT_EQ(FormatMetricValue("peak_memory", 1073741824.0), "1.00 GiB");
  EXPECT_EQ(FormatMetricValue("throughput", 4.88e10), "4.88e+10/s");
  EXPECT_EQ(FormatMetricValue("registers", 64), "64");
}

TEST(ReportFormat, ValueInItsOwnUnit) {
  EXPECT_EQ(FormatValueInUnit(70, "req/s"), "70 req/s");
  EXPECT_EQ(FormatValueInUnit(1234567, "instructions"), "1234567 instructions");
  EXPECT_EQ(FormatValueInUnit(0.519165, "x"), "0.5192 x");
  EXPECT_EQ(FormatValueInUnit(3886.75, "ns/iter"), "3887 ns/iter");
  EXPECT_EQ(FormatValueInUnit(2.5e15, "ops"), "2.5e+15 ops");
  EXPECT_EQ(FormatValueInUnit(42, ""), "42");
  // Seconds and bytes keep their usual scaling.
  EXPECT_EQ(FormatValueInUnit(1.234e-3, "s"), "1.23 ms");
  EXPECT_EQ(FormatValueInUnit(3 << 20, "B"), "3.00 MiB");
  EXPECT_EQ(FormatValueInUnit(std::numeric_limits<double>::quiet_NaN(), "x"), "n/a");
}

TEST(ReportFormat, ExactNumberShowsTheValueAsRead) {
  EXPECT_EQ(FormatExactNumber(0), "0");
  EXPECT_EQ(FormatExactNumber(-1), "-1");
  EXPECT_EQ(FormatExactNumber(-1e-9), "-1e-09");
  EXPECT_EQ(FormatExactNumber(0.1), "0.1");
  EXPECT_EQ(FormatExactNumber(std::numeric_limits<double>::quiet_NaN()), "NaN");
  EXPECT_EQ(FormatExactNumber(-std::numeric_limits<double>::infinity()), "-Infinity");
}

}  // namespace
}  // namespace gpugate
