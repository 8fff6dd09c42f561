// Tests for the Hodges-Lehmann shift and Moses interval (brute force in numpy).
#include "stats/hodges_lehmann.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "stats/mann_whitney.h"

namespace gpugate {
namespace {

// Reference: Debian /usr/bin/python3 (numpy, scipy 1.10.1):
//   D = sort(subtract.outer(y, x).ravel()); shift = median(D);
//   c = largest u with scipy.stats._mannwhitneyu._mwu_state.cdf(u, n1, n2) <= alpha/2;
//   interval = [D[c], D[N-1-c]]  (0-based)
TEST(StatsHodgesLehmann, ExactMosesIntervalMatchesBruteForce) {
  std::vector<double> x = {0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46};
  std::vector<double> y = {1.15, 0.88, 0.90, 0.74, 1.21};
  auto e = HodgesLehmannShift(x, y, 0.95);
  EXPECT_TRUE(e.exact);
  EXPECT_NEAR(e.shift, -0.30500000000000005, 1e-12);
  EXPECT_EQ(e.k, 9);  // c = 8
  EXPECT_NEAR(e.ci_low, -0.7599999999999999, 1e-12);
  EXPECT_NEAR(e.ci_high, 0.15000000000000002, 1e-12);
  auto e90 = HodgesLehmannShift(x, y, 0.90);
  EXPECT_NEAR(e90.ci_low, -0.72, 1e-12);
  EXPECT_NEAR(e90.ci_high, 0.08, 1e-12);
}

TEST(StatsHodgesLehmann, LargeSamplesUseSelectionAndNormalCritical) {
  // x_i = 1 + 0.1 sin(1.3 i + 0.2) + 0.001 i (i < 120); y_j = 1.05 + 0.1 cos(0.7 j) + 0.0007 j (j < 130)
  std::vector<double> x, y;
  for (int i = 0; i < 120; ++i) x.push_back(1 + 0.1 * std::sin(1.3 * i + 0.2) + 0.001 * i);
  for (int j = 0; j < 130; ++j) y.push_back(1.05 + 0.1 * std::cos(0.7 * j) + 0.0007 * j);
  auto e = HodgesLehmannShift(x, y, 0.95);
  EXPECT_FALSE(e.exact);
  EXPECT_EQ(e.k, 6680);
  EXPECT_NEAR(e.shift, 0.03585895415235729, 1e-12);
  EXPECT_NEAR(e.ci_low, 0.015560779591022422, 1e-12);
  EXPECT_NEAR(e.ci_high, 0.056128253580613574, 1e-12);
  std::vector<double> xs = x, ys = y;
  std::sort(xs.begin(), xs.end());
  std::sort(ys.begin(), ys.end());
  EXPECT_NEAR(KthPairwiseDifference(xs, ys, 1), -0.2581962334918402, 1e-12);
  EXPECT_NEAR(KthPairwiseDifference(xs, ys, 100), -0.20582765073099385, 1e-12);
  EXPECT_NEAR(KthPairwiseDifference(xs, ys, 120 * 130), 0.3208484802103315, 1e-12);
  // The test of the same data (scipy: mannwhitneyu(y, x, method='asymptotic')) rejects at 5%,
  // and the interval excludes 0: test and interval agree.
  auto t = MannWhitneyU(y, x);
  EXPECT_NEAR(t.p_value, 0.0006306405216305738, 1e-12);
  EXPECT_GT(e.ci_low, 0.0);
}

TEST(StatsHodgesLehmann, SelectionHandlesTiesAgainstSort) {
  std::vector<double> x, y;
  for (int i = 0; i < 90; ++i) x.push_back(static_cast<double>(i % 7));
  for (int j = 0; j < 80; ++j) y.push_back(static_cast<double>((j * 3) % 11) * 0.5);
  std::sort(x.begin(), x.end());
  std::sort(y.begin(), y.end());
  std::vector<double> all;
  for (double a : x)
    for (double b : y) all.push_back(b - a);
  std::sort(all.begin(), all.end());
  for (int64_t k : {1, 2, 17, 3600, 3601, 7199, 7200})
    EXPECT_DOUBLE_EQ(KthPairwiseDifference(x, y, k), all[static_cast<size_t>(k - 1)]) << k;
}

// The shift alone is the median of the sorted differences, with ties
// (the second middle difference equal to the first) and without.
TEST(StatsHodgesLehmann, EstimateIsTheMedianOfTheDifferences) {
  for (int variant = 0; variant < 3; ++variant) {
    std::vector<double> x, y;
    for (int i = 0; i < 90; ++i) x.push_back(variant == 0 ? static_cast<double>(i % 7) : std::sin(1.1 * i));
    for (int j = 0; j < (variant == 2 ? 81 : 80); ++j)
      y.push_back(variant == 0 ? static_cast<double>((j * 3) % 11) * 0.5 : 0.1 + std::cos(0.9 * j));
    std::sort(x.begin(), x.end());
    std::sort(y.begin(), y.end());
    std::vector<double> all;
    for (double a : x)
      for (double b : y) all.push_back(b - a);
    std::sort(all.begin(), all.end());
    const size_t n = all.size();
    const double median = n % 2 ? all[n / 2] : 0.5 * (all[n / 2 - 1] + all[n / 2]);
    EXPECT_DOUBLE_EQ(HodgesLehmannEstimate(x, y), median) << variant;
    EXPECT_DOUBLE_EQ(HodgesLehmannShift(x, y).shift, median) << variant;
  }
}

TEST(StatsHodgesLehmann, TinySamplesGiveUnboundedInterval) {
  std::vector<double> x = {1.0, 2.0}, y = {3.0, 4.0};
  auto e = HodgesLehmannShift(x, y);
  EXPECT_DOUBLE_EQ(e.shift, 2.0);
  EXPECT_TRUE(std::isinf(e.ci_low));
  EXPECT_TRUE(std::isinf(e.ci_high));
}

}  // namespace
}  // namespace gpugate
