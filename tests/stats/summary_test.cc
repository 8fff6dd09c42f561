// Tests of descriptive statistics. Reference values from Debian's numpy/scipy:
//   /usr/bin/python3 -c "import numpy as np; x=[3,1,4,1,5,9,2,6,5,3,5];
//     print(np.median(x), np.percentile(x,5), np.percentile(x,95), np.std(x,ddof=1))"
//   -> 4.0 1.0 7.5 2.3664319132398464; MAD = 1.0
// Median CI ranks: largest r with scipy.stats.binom.cdf(r-1, n, 0.5) <= 0.025:
//   n=6 -> (1,6), 10 -> (2,9), 11 -> (2,10), 20 -> (6,15), 100 -> (40,61), 1000 -> (469,532)
#include "stats/summary.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "util/random.h"

namespace gpugate {
namespace {

TEST(SummaryTest, MatchesNumpy) {
  std::vector<double> x = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5};
  Summary s = Summarize(x);
  EXPECT_EQ(s.n, 11);
  EXPECT_DOUBLE_EQ(s.median, 4.0);
  EXPECT_DOUBLE_EQ(s.mean, 4.0);
  EXPECT_DOUBLE_EQ(s.p5, 1.0);
  EXPECT_DOUBLE_EQ(s.p95, 7.5);
  EXPECT_NEAR(s.stddev, 2.3664319132398464, 1e-12);
  EXPECT_DOUBLE_EQ(s.mad, 1.0);
  EXPECT_DOUBLE_EQ(s.min, 1.0);
  EXPECT_DOUBLE_EQ(s.max, 9.0);
  EXPECT_NEAR(s.cv, 2.3664319132398464 / 4.0, 1e-12);
  // n = 11: CI ranks (2, 10) of the sorted values 1 1 2 3 3 4 5 5 5 6 9 -> [1, 6].
  EXPECT_DOUBLE_EQ(s.rel_ci_half_width, (6.0 - 1.0) / 2 / 4.0);
}

// Harrell-Davis for n = 3: the weights are I_x(2, 2) = 3x^2 - 2x^3 over the
// thirds, 7/27, 13/27 and 7/27.
TEST(SummaryTest, HarrellDavisMedian) {
  EXPECT_DOUBLE_EQ(HarrellDavisMedian({5.0}), 5.0);
  EXPECT_NEAR(HarrellDavisMedian({3.0, 1.0, 2.0}), 2.0, 1e-12);
  EXPECT_NEAR(HarrellDavisMedian({1.0, 2.0, 10.0}), 103.0 / 27.0, 1e-12);
  // Mostly one value: the sample median reads it whatever the rest does,
  // Harrell-Davis moves with the rest.
  std::vector<double> low(12, 20.0), high(12, 20.0);
  for (int i = 0; i < 8; ++i) {
    low.push_back(20.5 + i * 0.1);
    high.push_back(22.0 + i * 0.1);
  }
  EXPECT_GT(HarrellDavisMedian(high), HarrellDavisMedian(low));
  EXPECT_GT(HarrellDavisMedian(low), 20.0);
  EXPECT_LT(HarrellDavisMedian(high), 21.0);
}

TEST(SummaryTest, MedianCiRanksMatchBinomial) {
  struct Case { int n, lo, hi; };
  for (Case c : {Case{6, 1, 6}, Case{10, 2, 9}, Case{11, 2, 10}, Case{20, 6, 15},
                 Case{100, 40, 61}, Case{1000, 469, 532}}) {
    std::vector<double> v(c.n);
    std::iota(v.begin(), v.end(), 1.0);  // value == rank
    auto [lo, hi] = MedianConfidenceIntervalSorted(v, 0.95);
    EXPECT_EQ(lo, c.lo) << "n=" << c.n;
    EXPECT_EQ(hi, c.hi) << "n=" << c.n;
  }
}

TEST(SummaryTest, SmallSamplesFallBackToRange) {
  std::vector<double> v = {1, 2, 3, 4, 5};
  auto [lo, hi] = MedianConfidenceIntervalSorted(v, 0.95);
  EXPECT_EQ(lo, 1);
  EXPECT_EQ(hi, 5);
}

TEST(SummaryTest, LargeSamplesUseNormalApproximation) {
  std::vector<double> v(10000);
  std::iota(v.begin(), v.end(), 1.0);
  auto [lo, hi] = MedianConfidenceIntervalSorted(v, 0.95);
  // n/2 -+ 1.96 * sqrt(n) / 2 = 5000 -+ 98.
  EXPECT_NEAR(lo, 4902, 2);
  EXPECT_NEAR(hi, 5099, 2);
}

TEST(SummaryTest, EmptyAndQuantiles) {
  EXPECT_EQ(Summarize(std::vector<double>{}).n, 0);
  std::vector<double> v = {1, 2, 3, 4};
  EXPECT_DOUBLE_EQ(QuantileSorted(v, 0.5), 2.5);
  EXPECT_DOUBLE_EQ(QuantileSorted(v, 0.0), 1);
  EXPECT_DOUBLE_EQ(QuantileSorted(v, 1.0), 4);
  EXPECT_DOUBLE_EQ(Median(std::vector<double>{5, 1, 3}), 3);
  EXPECT_DOUBLE_EQ(MedianAbsoluteDeviation(std::vector<double>{1, 1, 2, 2, 4, 6, 9}), 1);
}

}  // namespace
}  // namespace gpugate

namespace gpugate {
namespace {

// Reference: numpy/scipy (Debian python3-scipy):
//   lv = [median(log(r)) for r in R]; se = std(lv, ddof=1) / sqrt(4)
//   expm1(t.ppf(0.975, 3) * se) = 0.1733047067379725, at 90%: 0.125454866130487
TEST(SummaryTest, RoundLevelIntervalMatchesScipy) {
  std::vector<std::vector<double>> rounds = {{1.0, 1.2}, {1.1}, {0.95, 1.0, 1.05}, {1.3, 1.25}};
  EXPECT_NEAR(RoundLevelRelHalfWidth(rounds), 0.1733047067379725, 1e-9);
  EXPECT_NEAR(RoundLevelRelHalfWidth(rounds, 0.90), 0.125454866130487, 1e-9);
  // Empty rounds are ignored; fewer than two rounds give no interval.
  rounds.push_back({});
  EXPECT_NEAR(RoundLevelRelHalfWidth(rounds), 0.1733047067379725, 1e-9);
  EXPECT_EQ(RoundLevelRelHalfWidth({{1.0, 2.0, 3.0}}), 0.0);
  EXPECT_EQ(RoundLevelRelHalfWidth({}), 0.0);
}

}  // namespace
}  // namespace gpugate

namespace gpugate {
namespace {

// The rank as first written: the binomial pmf from lgamma at every term.
int LowerRankByLgamma(int n, double confidence) {
  const double alpha = 1.0 - confidence;
  int lower_rank = 0;
  const double log_half_n = -n * std::log(2.0);
  const double log_n_fact = std::lgamma(n + 1.0);
  double cdf = 0.0;
  for (int r = 1; r <= n / 2; ++r) {
    const int i = r - 1;
    cdf += std::exp(log_n_fact - std::lgamma(i + 1.0) - std::lgamma(n - i + 1.0) + log_half_n);
    if (cdf <= alpha / 2) lower_rank = r; else break;
  }
  return lower_rank;
}

TEST(SummaryTest, MedianCiRankRecurrenceMatchesLgammaEverywhere) {
  // The pmf recurrence gives the same rank as the lgamma formula for every
  // n where the exact binomial is used.
  for (double confidence : {0.90, 0.95, 0.99})
    for (int n = 1; n <= 1000; ++n)
      ASSERT_EQ(MedianCiLowerRank(n, confidence), LowerRankByLgamma(n, confidence))
          << "n=" << n << " confidence=" << confidence;
}

TEST(SummaryTest, SortedMedianIntervalIsTheSummarys) {
  std::vector<double> v = {1, 1, 2, 3, 3, 4, 5, 5, 5, 6, 9};  // ranks (2, 10): [1, 6]
  EXPECT_DOUBLE_EQ(MedianRelCiHalfWidthSorted(v), (6.0 - 1.0) / 2 / 4.0);
  EXPECT_EQ(MedianRelCiHalfWidthSorted(std::vector<double>{}), 0.0);
  EXPECT_EQ(MedianRelCiHalfWidthSorted(std::vector<double>{-2, 0, 0}), 0.0);  // median 0
}

TEST(SummaryTest, RoundLevelWithinAgreesWithTheInterval) {
  RandomStream rng(12);
  for (int trial = 0; trial < 300; ++trial) {
    const int k = 1 + trial % 30;
    const double sd = 0.001 * (1 + trial % 20);
    std::vector<double> levels;
    for (int i = 0; i < k; ++i) levels.push_back(sd * rng.Normal());
    const double width = RoundLevelRelHalfWidthOfLevels(levels);
    for (double target : {0.002, 0.005, 0.01, 0.02, width})
      EXPECT_EQ(RoundLevelWithin(levels, target), width <= target) << "k=" << k;
  }
}

}  // namespace
}  // namespace gpugate
