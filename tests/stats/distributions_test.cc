// Tests for the normal and Student-t helpers against scipy 1.10 values.
#include "stats/distributions.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace gpugate {
namespace {

// Reference values: Debian /usr/bin/python3, scipy 1.10.1:
//   stats.t.cdf(2.0, 3.5), stats.t.ppf(0.975, 8), stats.t.ppf(0.975, 2.5),
//   stats.t.ppf(0.9995, 9), 2 * stats.t.sf(4.0, 7.3), stats.norm.ppf(0.975),
//   stats.norm.ppf(1e-10), stats.norm.sf(8), scipy.special.betainc(2.5, 0.5, 0.3)
// scipy's t.ppf is itself accurate to ~1e-10 here (stats.t.cdf(stats.t.ppf(0.975, 8), 8)
// = 0.97499999999333), so quantiles are compared to 1e-9.
TEST(StatsDistributions, StudentTMatchesScipy) {
  EXPECT_NEAR(StudentTCdf(2.0, 3.5), 0.9369307387120432, 1e-12);
  EXPECT_NEAR(StudentTQuantile(0.975, 8), 2.3060041350333704, 1e-9);
  EXPECT_NEAR(StudentTCdf(StudentTQuantile(0.975, 8), 8), 0.975, 1e-14);
  EXPECT_NEAR(StudentTQuantile(0.975, 2.5), 3.5746548420118773, 1e-10);
  EXPECT_NEAR(StudentTQuantile(0.9995, 9), 4.7809125859335495, 1e-9);
  EXPECT_NEAR(StudentTQuantile(0.025, 8), -2.3060041350333704, 1e-9);
  EXPECT_NEAR(StudentTTwoSidedP(4.0, 7.3), 0.0047623671643271075, 1e-13);
  EXPECT_NEAR(StudentTTwoSidedP(-4.0, 7.3), 0.0047623671643271075, 1e-13);
}

// A df of 1e15 (a Welch-Satterthwaite df where one term is tiny) is the
// normal, not what the incomplete beta gives there (a CDF of 0.49 at t = 2).
TEST(StatsDistributions, StudentTOfAHugeDfIsTheNormal) {
  for (double df : {1e8, 1e12, 1e15, 1e18, 1e300}) {
    EXPECT_NEAR(StudentTCdf(2.0, df), NormalCdf(2.0), 1e-7) << df;
    EXPECT_NEAR(StudentTTwoSidedP(2.0, df), 2.0 * NormalSf(2.0), 1e-7) << df;
    EXPECT_NEAR(StudentTQuantile(0.975, df), NormalQuantile(0.975), 1e-6) << df;
  }
}

TEST(StatsDistributions, NormalMatchesScipy) {
  EXPECT_NEAR(NormalQuantile(0.975), 1.959963984540054, 1e-13);
  EXPECT_NEAR(NormalQuantile(1e-10), -6.361340902404056, 1e-10);
  EXPECT_NEAR(NormalSf(8.0) / 6.22096057427174e-16, 1.0, 1e-10);
  EXPECT_NEAR(RegularizedIncompleteBeta(2.5, 0.5, 0.3), 0.01892712407194565, 1e-14);
  EXPECT_TRUE(std::isinf(NormalQuantile(0.0)));
}

// The quantile inverts the CDF across degrees of freedom (the closed forms
// at 1 and 2, the Halley iteration elsewhere) and far into the tails: the
// upper tail at the quantile, P(T > t), matches 1 - p.
TEST(StatsDistributions, StudentTQuantileInvertsTheTail) {
  // Exact: t_{0.975, 1} = tan(0.475 pi), t_{0.975, 2} = 0.95 / sqrt(2 * 0.975 * 0.025).
  EXPECT_NEAR(StudentTQuantile(0.975, 1), 12.706204736174707, 1e-11);
  EXPECT_NEAR(StudentTQuantile(0.975, 2), 4.302652729749464, 1e-12);
  EXPECT_NEAR(StudentTQuantile(0.1, 2), -1.8856180831641267, 1e-12);
  for (double df : {0.3, 1.0, 1.5, 2.0, 2.5, 3.0, 4.7, 10.0, 30.0, 1000.0}) {
    for (double tail : {0.4, 0.1, 0.025, 1e-3, 1e-5, 1e-8}) {
      // 1 - p as the double p holds it (exact by Sterbenz's lemma).
      const double p = 1.0 - tail, upper = 1.0 - p;
      const double t = StudentTQuantile(p, df);
      ASSERT_TRUE(std::isfinite(t)) << "df " << df << " upper " << upper;
      // The CDF is 1 - tail, exact to about 1e-16 in p: that bounds how
      // closely a quantile can fit a far tail.
      EXPECT_NEAR(StudentTTwoSidedP(t, df) / 2.0, upper, 1e-9 * upper + 4e-16)
          << "df " << df << " upper tail " << upper << " t " << t;
      EXPECT_DOUBLE_EQ(StudentTQuantile(upper, df), -t);
    }
  }
}

// Quantiles are remembered per thread by their exact arguments: a quantile
// asked for again, after many others have taken its slot or not, is the one
// the CDF inverts, and the same number as the first time.
TEST(StatsDistributions, RememberedQuantilesAreTheSolvedOnes) {
  std::vector<double> first;
  for (int df = 3; df <= 700; ++df)
    for (double p : {0.9, 0.975, 0.995, 0.0125}) first.push_back(StudentTQuantile(p, df + 0.25));
  size_t i = 0;
  for (int df = 3; df <= 700; ++df)
    for (double p : {0.9, 0.975, 0.995, 0.0125}) {
      const double x = StudentTQuantile(p, df + 0.25);
      EXPECT_EQ(x, first[i++]) << p << " " << df;
      EXPECT_NEAR(StudentTCdf(x, df + 0.25), p, 1e-12) << p << " " << df;
    }
  EXPECT_EQ(StudentTQuantile(0.5, 4.0), 0.0);
  EXPECT_EQ(StudentTQuantile(1.0, 4.0), std::numeric_limits<double>::infinity());
  EXPECT_EQ(StudentTQuantile(0.975, 4.0), -StudentTQuantile(0.025, 4.0));
}

TEST(StatsDistributions, LargeDfApproachesNormal) {
  EXPECT_NEAR(StudentTQuantile(0.975, 1e7), NormalQuantile(0.975), 1e-6);
  EXPECT_NEAR(StudentTQuantile(0.975, INFINITY), 1.959963984540054, 1e-13);
}

}  // namespace
}  // namespace gpugate
