// Tests for the Mann-Whitney U test against scipy.stats.mannwhitneyu.
#include "stats/mann_whitney.h"

#include <gtest/gtest.h>

#include <numeric>
#include <vector>

namespace gpugate {
namespace {

// Reference values: Debian /usr/bin/python3, scipy 1.10.1,
//   stats.mannwhitneyu(a, b, alternative=ALT, method='exact'|'asymptotic', use_continuity=CC)
const std::vector<double> kA = {0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46};
const std::vector<double> kB = {1.15, 0.88, 0.90, 0.74, 1.21};

TEST(StatsMannWhitney, ExactMatchesScipy) {
  auto two = MannWhitneyU(kA, kB, Alternative::kTwoSided, MannWhitneyMethod::kExact);
  EXPECT_DOUBLE_EQ(two.u, 35.0);
  EXPECT_TRUE(two.exact);
  EXPECT_NEAR(two.p_value, 0.2544122544122544, 1e-13);
  EXPECT_NEAR(MannWhitneyU(kA, kB, Alternative::kGreater).p_value, 0.1272061272061272, 1e-13);
  EXPECT_NEAR(MannWhitneyU(kA, kB, Alternative::kLess).p_value, 0.8967698967698966, 1e-13);
  // Complete separation of 5 vs 5: the smallest two-sided p, 2/252.
  std::vector<double> lo = {1, 2, 3, 4, 5}, hi = {6, 7, 8, 9, 10};
  EXPECT_NEAR(MannWhitneyU(lo, hi).p_value, 0.007936507936507936, 1e-15);
}

TEST(StatsMannWhitney, AsymptoticMatchesScipy) {
  using M = MannWhitneyMethod;
  EXPECT_NEAR(MannWhitneyU(kA, kB, Alternative::kTwoSided, M::kAsymptotic, true).p_value,
              0.24462360512698333, 1e-13);
  EXPECT_NEAR(MannWhitneyU(kA, kB, Alternative::kTwoSided, M::kAsymptotic, false).p_value,
              0.22067136191984693, 1e-13);
  EXPECT_NEAR(MannWhitneyU(kA, kB, Alternative::kGreater, M::kAsymptotic, true).p_value,
              0.12231180256349167, 1e-13);
  EXPECT_NEAR(MannWhitneyU(kA, kB, Alternative::kLess, M::kAsymptotic, true).p_value,
              0.9007753482039937, 1e-13);
  EXPECT_NEAR(MannWhitneyU(kA, kB, Alternative::kLess, M::kAsymptotic, false).p_value,
              0.8896643190400766, 1e-13);
}

TEST(StatsMannWhitney, TiesUseTieCorrectedNormal) {
  // Two ties (1.06 and 1.29 twice in y): auto falls back to the asymptotic test.
  std::vector<double> x = {1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30};
  std::vector<double> y = {0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29};
  auto r = MannWhitneyU(x, y);
  EXPECT_FALSE(r.exact);
  EXPECT_TRUE(r.ties);
  EXPECT_DOUBLE_EQ(r.u, 58.0);
  EXPECT_NEAR(r.p_value, 0.13291945818531892, 1e-13);
  EXPECT_NEAR(MannWhitneyU(x, y, Alternative::kGreater).p_value, 0.06645972909265946, 1e-13);
  EXPECT_NEAR(MannWhitneyU(x, y, Alternative::kLess).p_value, 0.9442044002897128, 1e-13);
}

TEST(StatsMannWhitney, ExactDistributionMatchesScipyCdf) {
  // scipy.stats._mannwhitneyu._mwu_state.cdf(8, 10, 5) and cdf(1000, 50, 50)
  EXPECT_NEAR(MannWhitneyExactCdf(10, 5, 8), 0.019980019980019977, 1e-15);
  EXPECT_NEAR(MannWhitneyExactCdf(50, 50, 1000), 0.042725607759135885, 1e-12);
  auto pmf = MannWhitneyNullDistribution(7, 4);
  ASSERT_EQ(pmf.size(), 29u);
  EXPECT_NEAR(std::accumulate(pmf.begin(), pmf.end(), 0.0), 1.0, 1e-14);
  for (size_t u = 0; u < pmf.size(); ++u) EXPECT_NEAR(pmf[u], pmf[28 - u], 1e-15);  // symmetric
  EXPECT_NEAR(pmf[0], 1.0 / 330.0, 1e-15);  // one arrangement out of C(11, 4)
}

TEST(StatsMannWhitney, ExactLargerSamplesMatchScipy) {
  // rng = np.random.default_rng(7); c = round(normal(0, 1, 40), 6); d = round(normal(0.5, 1, 45), 6)
  std::vector<double> c = {0.00123, 0.298746, -0.274138, -0.890592, -0.454671, -0.991647, 0.060144,
                           1.340215, -0.492207, -0.620475, 0.489842, 0.356887, 0.105414,
                           -0.930468, -0.029252, 0.695303, -1.344215, -0.457616, -1.901223,
                           -1.289538, -1.841735, -0.235091, -1.267446, 0.271264, 0.156751,
                           -0.186931, -2.51676, -0.538693, -0.048501, 0.113309, -1.530136,
                           -0.477753, -0.978519, -0.808837, 1.060899, -0.807535, -0.032522,
                           0.88439, -0.5836, -0.111702};
  std::vector<double> d = {0.610464, 0.563782, -0.725056, 0.57614, 1.858823, -1.047145, 1.359383,
                           0.619354, -0.14147, 2.500417, 1.26226, -0.699289, 0.574516, 1.07669,
                           0.311218, 1.18291, 0.433483, 1.167248, 1.938523, -0.175662, 0.703139,
                           0.036692, 0.627268, -0.687195, -0.079302, 0.303804, 1.398764,
                           1.645222, -0.823528, -0.294642, 1.146903, -1.49242, 0.03683, 0.402713,
                           1.757015, 1.189404, 0.172787, 0.131424, 0.249805, 2.023529, 0.071975,
                           0.19632, 0.852589, 0.37923, 0.302716};
  auto r = MannWhitneyU(c, d);
  EXPECT_TRUE(r.exact);
  EXPECT_DOUBLE_EQ(r.u, 386.0);
  EXPECT_NEAR(r.p_value / 2.7986813826902573e-06, 1.0, 1e-9);
}

TEST(StatsMannWhitney, CriticalValues) {
  // 5 vs 5 at alpha 0.05: P(U <= 2) = 4/252 <= 0.025 < P(U <= 3) = 7/252.
  EXPECT_EQ(MannWhitneyLowerCritical(5, 5, 0.05, true), 2);
  // 2 vs 2: even U = 0 has probability 1/6 > 0.025.
  EXPECT_EQ(MannWhitneyLowerCritical(2, 2, 0.05, true), -1);
  // Normal approximation, 120 x 130: floor(7800 - 0.5 - 1.959964 * sqrt(120*130*251/12)).
  EXPECT_EQ(MannWhitneyLowerCritical(120, 130, 0.05, false), 6679);
}

}  // namespace
}  // namespace gpugate
