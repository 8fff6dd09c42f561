// Tests for the empirical-Bayes variance prior (Smyth 2004) and the polygamma helpers.
#include "stats/moderated_variance.h"

#include <gtest/gtest.h>

#include <vector>

#include "stats/distributions.h"

namespace gpugate {
namespace {

// Reference: Debian /usr/bin/python3, scipy 1.10.1: special.digamma(0.3),
// special.digamma(7.5), special.polygamma(1, 0.3), polygamma(1, 7.5),
// polygamma(2, 0.3), polygamma(2, 7.5); brentq(polygamma(1, y) - 0.25) for the inverse.
TEST(StatsModeratedVariance, PolygammaMatchesScipy) {
  EXPECT_NEAR(Digamma(0.3), -3.502524222200133, 1e-12);
  EXPECT_NEAR(Digamma(7.5), 1.9467574842460866, 1e-13);
  EXPECT_NEAR(Trigamma(0.3), 12.245364546107734, 1e-11);
  EXPECT_NEAR(Trigamma(7.5), 0.1426158966967038, 1e-13);
  EXPECT_NEAR(Tetragamma(0.3), -75.27253658872601, 1e-10);
  EXPECT_NEAR(Tetragamma(7.5), -0.02030525253664467, 1e-13);
  EXPECT_NEAR(TrigammaInverse(0.25), 4.479394211649118, 1e-7);
}

// Reference: Smyth's moment estimator written out in numpy/scipy.special:
//   e = log(v) - digamma(d/2) + log(d/2); V = mean((e - mean e)^2 G/(G-1) - polygamma(1, d/2))
//   d0 = 2 * brentq(polygamma(1, y) - V); s0 = exp(mean e + digamma(d0/2) - log(d0/2))
TEST(StatsModeratedVariance, PriorMatchesMomentEstimates) {
  std::vector<double> v = {0.002, 0.020, 0.015, 0.150, 0.008, 0.060, 0.004};
  std::vector<double> d = {4, 4, 9, 4, 9, 4, 4};
  VariancePrior p = EstimateVariancePrior(v, d);
  EXPECT_NEAR(p.d0, 1.9114730474532446, 1e-6);
  EXPECT_NEAR(p.s0_sq, 0.010262431136510885, 1e-8);
  EXPECT_NEAR(ModerateVariance(p, 0.05, 4), 0.0371508689553105, 1e-8);
}

TEST(StatsModeratedVariance, AgreeingVariancesPoolCompletely) {
  // V = -0.0633 <= 0: the variances agree beyond sampling noise, d0 = sum(d) = 38,
  // s0 = exp(mean e + digamma(19) - log(19)) = 0.020906250752470126.
  std::vector<double> v = {0.010, 0.020, 0.015, 0.050, 0.008, 0.030, 0.012};
  std::vector<double> d = {4, 4, 9, 4, 9, 4, 4};
  VariancePrior p = EstimateVariancePrior(v, d);
  EXPECT_DOUBLE_EQ(p.d0, 38.0);
  EXPECT_NEAR(p.s0_sq, 0.020906250752470126, 1e-12);
}

// A variance the prior cannot have produced keeps its own (no prior): the
// upper F(df, d0) tail against 0.05 / count. F(4, 10) has its 0.999
// quantile at 11.28 (standard tables), so with 50 variances (bound 0.001)
// 12 s0^2 is beyond and 10 s0^2 is not.
TEST(StatsModeratedVariance, AHypervariableVarianceKeepsItsOwn) {
  VariancePrior p{10.0, 1.0, 50};
  EXPECT_EQ(PriorFor(p, 12.0, 4).d0, 0.0);
  EXPECT_EQ(PriorFor(p, 10.0, 4).d0, 10.0);
  EXPECT_EQ(PriorFor(p, 0.5, 4).d0, 10.0);  // a quiet one is moderated as before
  // A prior set by hand (count 0) is not checked.
  EXPECT_EQ(PriorFor(VariancePrior{10.0, 1.0}, 1e6, 4).d0, 10.0);
  // One benchmark scattering 30% among 500 that scatter 1%: its variance is
  // not shrunk to theirs.
  std::vector<double> v, d;
  for (int i = 0; i < 500; ++i) {
    v.push_back(1e-4 * (0.5 + (i % 10) / 10.0));
    d.push_back(4);
  }
  v.push_back(0.09);
  d.push_back(4);
  VariancePrior suite = EstimateVariancePrior(v, d);
  EXPECT_EQ(suite.count, 501);
  EXPECT_GT(suite.d0, 20.0);
  EXPECT_EQ(PriorFor(suite, 0.09, 4).d0, 0.0);
  EXPECT_EQ(PriorFor(suite, 1.2e-4, 4).d0, suite.d0);
}

TEST(StatsModeratedVariance, TooFewOrDegenerateInputsGiveNoPrior) {
  std::vector<double> v = {0.01, 0.02, 0.0, 0.03};
  std::vector<double> d = {4, 4, 4, 4};
  VariancePrior p = EstimateVariancePrior(v, d);
  EXPECT_EQ(p.d0, 0.0);
  EXPECT_DOUBLE_EQ(ModerateVariance(p, 0.07, 4), 0.07);
}

}  // namespace
}  // namespace gpugate
