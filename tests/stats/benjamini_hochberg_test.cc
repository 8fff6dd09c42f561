// Tests for the Benjamini-Hochberg adjustment.
#include "stats/benjamini_hochberg.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace gpugate {
namespace {

// Reference: numpy by hand in Debian /usr/bin/python3:
//   o = argsort(p); r = p[o] * m / arange(1, m + 1);
//   adj = minimum.accumulate(r[::-1])[::-1]; out[o] = minimum(adj, 1)
TEST(StatsBenjaminiHochberg, MatchesNumpyComputation) {
  std::vector<double> p = {0.01, 0.04, 0.03, 0.2, 0.005, 0.5, 0.04};
  auto adj = BenjaminiHochbergAdjust(p);
  std::vector<double> want = {0.035, 0.056, 0.056, 0.23333333333333336, 0.035, 0.5, 0.056};
  ASSERT_EQ(adj.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(adj[i], want[i], 1e-15) << i;
}

TEST(StatsBenjaminiHochberg, NanIsOutsideTheFamilyAndResultIsMonotone) {
  std::vector<double> p = {0.02, NAN, 0.01};
  auto adj = BenjaminiHochbergAdjust(p);
  EXPECT_DOUBLE_EQ(adj[0], 0.02);  // m = 2: 0.02 * 2 / 2
  EXPECT_TRUE(std::isnan(adj[1]));
  EXPECT_DOUBLE_EQ(adj[2], 0.02);  // min(0.01 * 2 / 1, 0.02)
  EXPECT_TRUE(BenjaminiHochbergAdjust(std::vector<double>{}).empty());
  std::vector<double> q = {0.9, 0.8, 0.95};
  for (double v : BenjaminiHochbergAdjust(q)) EXPECT_DOUBLE_EQ(v, 0.95);
}

}  // namespace
}  // namespace gpugate
