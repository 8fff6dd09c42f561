// Tests for the median polish of run speed factors (compare/run_factor.h).
#include "compare/run_factor.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace gpugate {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

TEST(RunFactor, RecoversAdditiveFactorsAndIgnoresAMinorityOfMovers) {
  // 6 workloads x 4 history runs + 1 current run: level_i + factor_k, with
  // workload 5 moving +0.7 in the current run (a real regression).
  const double level[] = {1, 2, 3, 4, 5, 6};
  const double factor[] = {0.1, -0.2, 0.05, 0.05, 0.3};
  std::vector<std::vector<double>> t(6, std::vector<double>(5));
  for (int i = 0; i < 6; ++i)
    for (int k = 0; k < 5; ++k) t[i][k] = level[i] + factor[k] + (i == 5 && k == 4 ? 0.7 : 0.0);
  RunFactors f = PolishRunFactors(t, {true, true, true, true, false});
  // Fitted factors centred at mean 0: (0.1, -0.2, 0.05, 0.05) has mean 0.
  EXPECT_NEAR(f.factor[0], 0.1, 1e-12);
  EXPECT_NEAR(f.factor[1], -0.2, 1e-12);
  EXPECT_NEAR(f.factor[4], 0.3, 1e-12);  // the mover does not shift the median
  for (bool e : f.estimated) EXPECT_TRUE(e);
  EXPECT_NEAR(f.level[2], 3.0, 1e-12);
}

TEST(RunFactor, TooFewWorkloadsOrAPartialRunAreLeftAlone) {
  std::vector<std::vector<double>> t(6, std::vector<double>{0.0, 0.5, 0.2});
  // The current run (column 2) holds 2 of 6 workloads: a re-run of doubtful
  // ones, whose shared move may be the change under test.
  for (int i = 2; i < 6; ++i) t[i][2] = kNaN;
  RunFactors f = PolishRunFactors(t, {true, true, false});
  EXPECT_TRUE(f.estimated[0]);
  EXPECT_FALSE(f.estimated[2]);
  EXPECT_EQ(f.factor[2], 0.0);
  // Four workloads: below kMinWorkloadsForRunFactor, nothing is estimated.
  std::vector<std::vector<double>> small(4, std::vector<double>{0.0, 0.5});
  RunFactors g = PolishRunFactors(small, {true, true});
  EXPECT_FALSE(g.estimated[0]);
  EXPECT_EQ(g.factor[1], 0.0);
}

}  // namespace
}  // namespace gpugate
