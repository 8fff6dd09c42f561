// Tests of the Wilcoxon signed-rank test and the Hodges-Lehmann one-sample
// interval. Reference values: Debian's /usr/bin/python3 with scipy 1.10.1,
// scipy.stats.wilcoxon(d, method='exact'|'approx'); the interval by brute
// force over all 2^10 sign patterns and the sorted Walsh averages (numpy).
#include "stats/signed_rank.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace gpugate {
namespace {

TEST(SignedRankTest, ExactMatchesScipy) {
  std::vector<double> d = {0.012, -0.004, 0.021, 0.008, 0.015, -0.002, 0.019, 0.011, 0.006, 0.017};
  SignedRankResult r = WilcoxonSignedRank(d);
  EXPECT_TRUE(r.exact);
  EXPECT_EQ(r.n, 10);
  EXPECT_DOUBLE_EQ(r.w_plus, 52.0);
  EXPECT_NEAR(r.p_value, 0.009765625, 1e-12);  // scipy: statistic 3.0, p 0.009765625
  EXPECT_NEAR(r.estimate, 0.011, 1e-12);
  // k = 9 from the brute-force null distribution: [W_(9), W_(47)].
  EXPECT_NEAR(r.ci_low, 0.004, 1e-12);
  EXPECT_NEAR(r.ci_high, 0.0165, 1e-12);
  EXPECT_NEAR(r.achieved_confidence, 0.951171875, 1e-12);
}

// Ties keep the exact distribution: a Walsh average of exactly 0 counts for
// neither side, which is conservative (here 5 of the 55 averages are 0:
// -0.01 with the three 0.01, -0.02 with the two 0.02). Values from a
// brute-force count in Python over the sorted Walsh averages.
TEST(SignedRankTest, TiesKeepTheExactDistributionConservatively) {
  std::vector<double> d = {0.01, 0.01, -0.02, 0.03, 0.01, 0.02, -0.01, 0.04, 0.02, 0.05};
  SignedRankResult r = WilcoxonSignedRank(d);
  EXPECT_TRUE(r.exact);
  EXPECT_DOUBLE_EQ(r.w_plus, 44.0);
  EXPECT_NEAR(r.p_value, 0.10546875, 1e-12);  // scipy's approximation (ties broken): 0.051
  EXPECT_NEAR(r.estimate, 0.015, 1e-12);
  EXPECT_NEAR(r.ci_low, 0.0, 1e-12);
  EXPECT_NEAR(r.ci_high, 0.03, 1e-12);
}

// Rounds that read exactly no change count, in the test, the estimate and
// the interval: 4 rounds of +10% and 2 of 0% are no 95% evidence (probe
// DC2), and 8 rounds of 0% with 6 slower ones are not +7.5% (probe DC4).
TEST(SignedRankTest, ZerosCountInTestEstimateAndInterval) {
  const double ten = std::log(1.1);
  SignedRankResult four = WilcoxonSignedRank(std::vector<double>{ten, ten, ten, ten, 0.0, 0.0});
  EXPECT_EQ(four.n, 6);
  EXPECT_NEAR(four.p_value, 0.15625, 1e-12);
  EXPECT_EQ(four.ci_low, 0.0);
  std::vector<double> mostly_zero(8, 0.0);
  for (double x : {5, 6, 7, 8, 9, 10}) mostly_zero.push_back(std::log1p(x / 100));
  SignedRankResult z = WilcoxonSignedRank(mostly_zero);
  EXPECT_NEAR(z.estimate, 0.03382932423690743, 1e-12);
  EXPECT_NEAR(z.p_value, 0.3258056640625, 1e-12);
  EXPECT_EQ(z.ci_low, 0.0);
}

// On data with zeros and ties (a coarse timer's grid), the test rejects at
// 5% exactly when 0 lies outside the 95% interval.
TEST(SignedRankTest, TestAndIntervalAgreeOnTiedGrids) {
  std::mt19937_64 rng(11);
  std::uniform_int_distribution<int> step(-2, 4);
  std::uniform_int_distribution<int> size(4, 16);
  int rejected = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    std::vector<double> d(static_cast<size_t>(size(rng)));
    for (double& x : d) x = 0.01 * step(rng);
    SignedRankResult r = WilcoxonSignedRank(d, 0.95);
    if (r.n == 0 || r.achieved_confidence < 0.95) continue;
    const bool reject = r.p_value <= 0.05;
    const bool zero_outside = r.ci_low > 0 || r.ci_high < 0;
    rejected += reject;
    ASSERT_EQ(reject, zero_outside) << "trial " << trial << " p " << r.p_value << " [" << r.ci_low << ", "
                                    << r.ci_high << "]";
  }
  EXPECT_GT(rejected, 100);  // the check saw both outcomes
}

TEST(SignedRankTest, NullCountsSumToTwoToTheN) {
  std::vector<double> c = SignedRankCounts(10);
  ASSERT_EQ(c.size(), 56u);
  double total = 0;
  for (double x : c) total += x;
  EXPECT_DOUBLE_EQ(total, 1024.0);
  // First counts, from the brute-force enumeration: 1 1 1 2 2 3 4 5.
  std::vector<double> head = {1, 1, 1, 2, 2, 3, 4, 5};
  for (size_t i = 0; i < head.size(); ++i) EXPECT_DOUBLE_EQ(c[i], head[i]) << i;
}

TEST(SignedRankTest, TestAndIntervalAgree) {
  // Shift a fixed pattern: the exact test rejects at 5% exactly when 0 lies
  // outside the 95% Walsh interval.
  std::vector<double> base = {0.3, -0.8, 1.1, 0.2, -0.5, 0.9, -0.1, 0.6, -0.7, 0.4, 1.3, -0.2};
  for (double shift = -1.0; shift <= 1.0; shift += 0.05) {
    std::vector<double> d;
    for (double x : base) d.push_back(x + shift);
    SignedRankResult r = WilcoxonSignedRank(d);
    if (!r.exact) continue;
    bool reject = r.p_value <= 0.05;
    bool zero_outside = r.ci_low > 0 || r.ci_high < 0;
    EXPECT_EQ(reject, zero_outside) << "shift " << shift << " p " << r.p_value;
  }
}

TEST(SignedRankTest, AllZerosIsNoEvidence) {
  std::vector<double> d(8, 0.0);
  SignedRankResult r = WilcoxonSignedRank(d);
  EXPECT_EQ(r.n, 0);
  EXPECT_DOUBLE_EQ(r.p_value, 1.0);
  EXPECT_DOUBLE_EQ(r.estimate, 0.0);
}

TEST(SignedRankTest, TooFewValuesGiveTheFullRange) {
  std::vector<double> d = {0.1, 0.2, 0.3};
  SignedRankResult r = WilcoxonSignedRank(d);
  EXPECT_DOUBLE_EQ(r.ci_low, 0.1);
  EXPECT_DOUBLE_EQ(r.ci_high, 0.3);
  EXPECT_LT(r.achieved_confidence, 0.95);
  EXPECT_NEAR(r.p_value, 0.25, 1e-12);  // 2 * (1/8)
}

}  // namespace
}  // namespace gpugate
