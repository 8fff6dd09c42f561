// Tests for the median polish of run speed factors (compare/run_factor.h).
#include "compare/run_factor.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
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
  EXPECT_TRUE(f.common);
}

// Deterministic standard normals (Box-Muller on a 64-bit LCG).
std::vector<double> Normals(int n, uint64_t seed) {
  std::vector<double> out;
  auto uniform = [&seed] {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return (static_cast<double>(seed >> 11) + 0.5) / 9007199254740992.0;
  };
  for (int i = 0; i < n; ++i)
    out.push_back(std::sqrt(-2 * std::log(uniform())) * std::cos(6.283185307179586 * uniform()));
  return out;
}

TEST(RunFactor, IndependentNoiseHasNoCommonFactorToRemove) {
  // 30 workloads x 10 runs of independent noise (sd 0.2): the fitted factors
  // vary only as medians of noise do; correlated noise (a factor of sd 0.2
  // per run) is recognised.
  const int rows = 30, cols = 10;
  std::vector<double> z = Normals(rows * cols, 7), c = Normals(cols, 11);
  std::vector<std::vector<double>> indep(rows, std::vector<double>(cols));
  std::vector<std::vector<double>> shared(rows, std::vector<double>(cols));
  for (int i = 0; i < rows; ++i)
    for (int k = 0; k < cols; ++k) {
      indep[i][k] = i + 0.2 * z[i * cols + k];
      shared[i][k] = i + 0.2 * c[k] + 0.05 * z[i * cols + k];
    }
  std::vector<bool> fit(cols, true);
  RunFactors a = PolishRunFactors(indep, fit);
  EXPECT_FALSE(a.common) << a.factor_variance << " vs chance " << a.chance_variance;
  RunFactors b = PolishRunFactors(shared, fit);
  EXPECT_TRUE(b.common) << b.factor_variance << " vs chance " << b.chance_variance;
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
