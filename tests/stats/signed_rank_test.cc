// Tests of the Wilcoxon signed-rank test and the Hodges-Lehmann one-sample
// interval. Reference values: Debian's /usr/bin/python3 with scipy 1.10.1,
// scipy.stats.wilcoxon(d, method='exact'|'approx'); the interval by brute
// force over all 2^10 sign patterns and the sorted Walsh averages (numpy).
#include "stats/signed_rank.h"

#include <gtest/gtest.h>

#include <cmath>
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

TEST(SignedRankTest, TiesUseNormalApproximationLikeScipy) {
  std::vector<double> d = {0.01, 0.01, -0.02, 0.03, 0.01, 0.02, -0.01, 0.04, 0.02, 0.05};
  SignedRankResult r = WilcoxonSignedRank(d);
  EXPECT_FALSE(r.exact);
  EXPECT_DOUBLE_EQ(r.w_plus, 46.5);
  EXPECT_NEAR(r.p_value, 0.050641039794217184, 1e-9);  // scipy method='approx'
  EXPECT_NEAR(r.estimate, 0.015, 1e-12);
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
