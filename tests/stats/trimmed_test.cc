// Tests for Yuen's trimmed-mean interval (stats/trimmed.h).
#include "stats/trimmed.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "stats/distributions.h"

namespace gpugate {
namespace {

// By hand: x = 1..10, g = 2, h = 6; trimmed mean 5.5; winsorized
// {3,3,3,4,5,6,7,8,8,8}, sum of squares 42.5, d = 42.5 / (6 * 5).
// y = x + 2 gives the same d; shift 2, se = sqrt(2 d), df = 2 (h - 1) = 10.
TEST(StatsTrimmed, YuenMatchesTheFormulaByHand) {
  std::vector<double> x, y;
  for (int i = 1; i <= 10; ++i) {
    x.push_back(i);
    y.push_back(i + 2);
  }
  TrimmedShift t = YuenTrimmedShift(x, y, 0.95);
  ASSERT_TRUE(t.valid);
  const double d = 42.5 / 30.0;
  EXPECT_DOUBLE_EQ(t.shift, 2.0);
  EXPECT_NEAR(t.se, std::sqrt(2 * d), 1e-12);
  EXPECT_NEAR(t.df, 10.0, 1e-9);
  EXPECT_NEAR(t.ci_low, 2.0 - StudentTQuantile(0.975, 10.0) * std::sqrt(2 * d), 1e-9);
  // A wild value does not move a trimmed mean.
  y.back() = 1e6;
  EXPECT_DOUBLE_EQ(YuenTrimmedShift(x, y, 0.95).shift, 2.0);
}

TEST(StatsTrimmed, TooFewValuesOrNoSpread) {
  EXPECT_FALSE(YuenTrimmedShift(std::vector<double>{1.0}, std::vector<double>{1.0, 2.0}, 0.95).valid);
  // Ties everywhere: no spread, a point interval at the shift.
  std::vector<double> x(20, 3.0), y(20, 4.0);
  TrimmedShift t = YuenTrimmedShift(x, y, 0.95);
  ASSERT_TRUE(t.valid);
  EXPECT_DOUBLE_EQ(t.shift, 1.0);
  EXPECT_DOUBLE_EQ(t.ci_low, 1.0);
  EXPECT_DOUBLE_EQ(t.ci_high, 1.0);
}

// x = 1..9, 100; n = 10, g = 2: kept 3..8 (mean 5.5); winsorized
// {3,3,3,4,5,6,7,8,8,8} (mean 5.5, sum of squares 42.5); d = 42.5 / (6 * 5);
// df = 5, t_{0.975,5} = 2.570582.
TEST(StatsTrimmed, OneSampleTrimmedMeanMatchesTheFormulaByHand) {
  const std::vector<double> x = {7, 1, 9, 2, 100, 3, 8, 4, 6, 5};
  const TrimmedShift t = TrimmedMean(x, 0.95);
  ASSERT_TRUE(t.valid);
  EXPECT_DOUBLE_EQ(t.shift, 5.5);
  EXPECT_NEAR(t.se, std::sqrt(42.5 / 30.0), 1e-12);
  EXPECT_DOUBLE_EQ(t.df, 5.0);
  EXPECT_NEAR(t.ci_low, 5.5 - 2.570582 * std::sqrt(42.5 / 30.0), 1e-5);
  EXPECT_NEAR(t.ci_high, 5.5 + 2.570582 * std::sqrt(42.5 / 30.0), 1e-5);
  EXPECT_FALSE(TrimmedMean(std::vector<double>{1.0}, 0.95).valid);
}

}  // namespace
}  // namespace gpugate
