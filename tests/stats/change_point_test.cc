// Tests of E-divisive means change-point detection: a known step is found at
// the right run, flat noise stays quiet over many seeds (false-positive rate
// printed and bounded), and the search itself on clean inputs.
#include "stats/change_point.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

namespace gpugate {
namespace {

/// Deterministic normal draws (splitmix64 + Box-Muller), independent of the
/// standard library, so the series are the same everywhere.
class Gaussian {
 public:
  explicit Gaussian(uint64_t seed) : state_(seed) {}
  double Next() {
    double u1 = (static_cast<double>(Bits() >> 11) + 0.5) / 9007199254740992.0;
    double u2 = (static_cast<double>(Bits() >> 11) + 0.5) / 9007199254740992.0;
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }

 private:
  uint64_t Bits() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  uint64_t state_;
};

/// Log-times of `n` runs with noise `sd`, shifted by `step` from run `at` on.
std::vector<double> History(uint64_t seed, int n, double sd, int at = -1, double step = 0) {
  Gaussian g(seed);
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(std::log(1e-3) + sd * g.Next() + (at >= 0 && i >= at ? step : 0));
  return v;
}

TEST(ChangePointTest, BestSplitOfCleanStep) {
  std::vector<double> v = {1, 1, 1, 1, 1, 2, 2, 2, 2};
  auto s = detail::BestSplit(v, 3);
  EXPECT_EQ(s.index, 5u);
  EXPECT_GT(s.statistic, 0);
}

// The statistic straight from its definition, every split: O(n^3), for the
// test only.
detail::Split ReferenceSplit(const std::vector<double>& x, size_t min_seg) {
  detail::Split best{0, -INFINITY};
  const size_t n = x.size();
  for (size_t tau = min_seg; tau + min_seg <= n; ++tau) {
    double between = 0, left = 0, right = 0;
    for (size_t i = 0; i < tau; ++i)
      for (size_t j = tau; j < n; ++j) between += std::fabs(x[i] - x[j]);
    for (size_t i = 0; i < tau; ++i)
      for (size_t j = i + 1; j < tau; ++j) left += std::fabs(x[i] - x[j]);
    for (size_t i = tau; i < n; ++i)
      for (size_t j = i + 1; j < n; ++j) right += std::fabs(x[i] - x[j]);
    const double m = static_cast<double>(tau), k = static_cast<double>(n - tau);
    const double q = m * k / (m + k) * (2 * between / (m * k) - 2 * left / (m * (m - 1)) - 2 * right / (k * (k - 1)));
    if (q > best.statistic) best = detail::Split{tau, q};
  }
  return best;
}

TEST(ChangePointTest, BestSplitAgreesWithTheDefinition) {
  // Noise, steps, ties and repeated values: the running sums over ranks give
  // the statistic of the definition at the same split.
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    std::vector<double> v = History(seed, 8 + static_cast<int>(seed % 37), 0.03, static_cast<int>(seed % 11), 0.05);
    if (seed % 3 == 0)
      for (double& x : v) x = std::round(x * 50) / 50;  // many ties
    const detail::Split fast = detail::BestSplit(v, 3);
    const detail::Split ref = ReferenceSplit(v, 3);
    EXPECT_EQ(fast.index, ref.index) << seed;
    EXPECT_NEAR(fast.statistic, ref.statistic, 1e-9 * std::max(1.0, std::fabs(ref.statistic))) << seed;
  }
}

TEST(ChangePointTest, TooShortHasNoSplit) {
  std::vector<double> v = {1, 2, 3, 4, 5};
  EXPECT_FALSE(std::isfinite(detail::BestSplit(v, 3).statistic));
  EXPECT_TRUE(DetectChangePoints(v).empty());
}

TEST(ChangePointTest, TheFewestValuesInWhichAStepCanReachAlpha) {
  // A perfect step's true p is 2 / C(n, n/2): 2/252 in 10 values, 2/462 in
  // 11. From 499 permutations the estimate (1 + X) / 500 is at most 0.01 when
  // X <= 4: with 10 values in about 64% of tests, with 11 in about 93%.
  EXPECT_EQ(MinValuesForAStep({}), 11);
  ChangePointOptions loose;
  loose.alpha = 0.05;
  EXPECT_EQ(MinValuesForAStep(loose), 8);  // 2/70, X <= 24 of mean 14.3
  ChangePointOptions few;
  few.permutations = 49;  // p is at best 1/50
  EXPECT_EQ(MinValuesForAStep(few), 0);
  // It holds: a perfect step in 9 values is never found at 0.01, in 12 it is
  // (seeded permutations).
  std::vector<double> nine = {1, 1, 1, 1, 2, 2, 2, 2, 2};
  EXPECT_TRUE(DetectChangePoints(nine).empty());
  std::vector<double> twelve = {1, 1.01, 1, 1.02, 1, 1.01, 2, 2.01, 2, 2.02, 2, 2.01};
  EXPECT_EQ(DetectChangePoints(twelve).size(), 1u);
}

TEST(ChangePointTest, FindsSixPercentStepAtRun14) {
  // 30 runs, 2% noise between runs, +6.2% from index 13 (the 14th run) on.
  std::vector<double> v = History(42, 30, 0.02, 13, std::log(1.062));
  auto cps = DetectChangePoints(v);
  ASSERT_EQ(cps.size(), 1u);
  EXPECT_EQ(cps[0].index, 13u);
  EXPECT_LE(cps[0].p_value, 0.01);
  double ratio = std::exp(cps[0].median_after - cps[0].median_before);
  EXPECT_NEAR(ratio, 1.062, 0.03);  // medians of 13 and 17 noisy runs
  EXPECT_EQ(cps[0].n_before, 13u);
  EXPECT_EQ(cps[0].n_after, 17u);
}

TEST(ChangePointTest, FindsTwoSteps) {
  std::vector<double> v = History(7, 40, 0.01);
  for (int i = 12; i < 40; ++i) v[i] += std::log(1.08);
  for (int i = 27; i < 40; ++i) v[i] -= std::log(1.05);
  auto cps = DetectChangePoints(v);
  ASSERT_EQ(cps.size(), 2u);
  EXPECT_EQ(cps[0].index, 12u);
  EXPECT_EQ(cps[1].index, 27u);
  EXPECT_GT(cps[0].median_after, cps[0].median_before);
  EXPECT_LT(cps[1].median_after, cps[1].median_before);
}

TEST(ChangePointTest, SameSeedSameAnswer) {
  std::vector<double> v = History(3, 25, 0.03, 10, std::log(1.04));
  ChangePointOptions o;
  o.seed = 99;
  auto a = DetectChangePoints(v, o);
  auto b = DetectChangePoints(v, o);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].index, b[i].index);
    EXPECT_DOUBLE_EQ(a[i].p_value, b[i].p_value);
  }
}

// The permutation test stops drawing once the split can no longer be kept.
// The answer must be the one all 499 draws give: this fingerprint of 240
// series (flat, one step, two steps; 12 to 40 runs) was computed with the
// test drawing every permutation (and permutations within rounding of the
// observed statistic counted as reaching it).
TEST(ChangePointTest, StoppingEarlyKeepsEveryAnswer) {
  int64_t found = 0, index_sum = 0;
  double p_sum = 0, median_sum = 0;
  for (int s = 0; s < 240; ++s) {
    const int n = 12 + s % 29;
    std::vector<double> v;
    if (s % 3 == 0) {
      v = History(700 + s, n, 0.03);
    } else if (s % 3 == 1) {
      v = History(700 + s, n, 0.03, n / 2, std::log(1.05 + 0.001 * (s % 40)));
    } else {
      v = History(700 + s, n, 0.02, n / 3, std::log(1.08));
      for (int i = 2 * n / 3; i < n; ++i) v[static_cast<size_t>(i)] -= std::log(1.12);
    }
    ChangePointOptions o;
    o.seed = 40 + s;
    for (const ChangePoint& cp : DetectChangePoints(v, o)) {
      ++found;
      index_sum += static_cast<int64_t>(cp.index);
      p_sum += cp.p_value;
      median_sum += cp.median_after - cp.median_before;
    }
  }
  std::printf("fingerprint: %lld change points, index sum %lld, p sum %.17g, step sum %.17g\n",
              static_cast<long long>(found), static_cast<long long>(index_sum), p_sum, median_sum);
  EXPECT_EQ(found, 179);
  EXPECT_EQ(index_sum, 2491);
  EXPECT_DOUBLE_EQ(p_sum, 0.53200000000000036);
  EXPECT_DOUBLE_EQ(median_sum, 1.9862487610390724);
}

TEST(ChangePointTest, FlatNoiseFalsePositiveRateAndStepPower) {
  // 300 flat histories of 30 runs (2% noise): the share with any change point
  // estimates the false-positive rate per history (nominal alpha = 1%).
  // 300 histories with a +6% step at run 15: the share found at the right run.
  const int kSeries = 300;
  ChangePointOptions o;
  o.permutations = 199;
  int false_alarms = 0, found_exact = 0, found_near = 0;
  for (int s = 0; s < kSeries; ++s) {
    o.seed = 1000 + s;
    if (!DetectChangePoints(History(5000 + s, 30, 0.02), o).empty()) ++false_alarms;
    auto cps = DetectChangePoints(History(9000 + s, 30, 0.02, 14, std::log(1.06)), o);
    for (const auto& cp : cps) {
      if (cp.index == 14u) ++found_exact;
      if (cp.index >= 13u && cp.index <= 15u) {
        ++found_near;
        break;
      }
    }
  }
  double fp_rate = static_cast<double>(false_alarms) / kSeries;
  double exact_rate = static_cast<double>(found_exact) / kSeries;
  double near_rate = static_cast<double>(found_near) / kSeries;
  std::printf("change points: flat-noise false-positive rate %.3f (%d/%d); +6%% step found at the exact run %.3f, "
              "within one run %.3f\n", fp_rate, false_alarms, kSeries, exact_rate, near_rate);
  RecordProperty("false_positive_rate", std::to_string(fp_rate));
  RecordProperty("step_found_exact_rate", std::to_string(exact_rate));
  EXPECT_LE(fp_rate, 0.03);
  EXPECT_GE(near_rate, 0.95);
  EXPECT_GE(exact_rate, 0.80);
}

}  // namespace
}  // namespace gpugate
