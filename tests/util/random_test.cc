// Tests of the shared hashing and counter-based random numbers: published
// test vectors, the counter-based and sequential views agreeing, and the
// moments of the uniform, normal and lognormal transforms.
#include "util/random.h"

#include <gtest/gtest.h>

#include <cmath>

namespace gpugate {
namespace {

TEST(RandomTest, Fnv1aKnownVectors) {
  // Published FNV-1a 64-bit test vectors.
  EXPECT_EQ(Fnv1a64(""), 0xcbf29ce484222325ULL);
  EXPECT_EQ(Fnv1a64("a"), 0xaf63dc4c8601ec8cULL);
  EXPECT_EQ(Fnv1a64("foobar"), 0x85944171f73967e8ULL);
}

TEST(RandomTest, SplitMix64KnownVectors) {
  // Outputs of the reference splitmix64.c (Vigna) from states 0 and 1234567.
  RandomStream zero(0);
  EXPECT_EQ(zero.NextBits(), 0xe220a8397b1dcdafULL);
  EXPECT_EQ(zero.NextBits(), 0x6e789e6aa1b965f4ULL);
  EXPECT_EQ(zero.NextBits(), 0x06c45d188009454fULL);
  RandomStream s(1234567);
  EXPECT_EQ(s.NextBits(), 6457827717110365317ULL);
  EXPECT_EQ(s.NextBits(), 3203168211198807973ULL);
  EXPECT_EQ(s.NextBits(), 9817491932198370423ULL);
  EXPECT_EQ(s.NextBits(), 4593380528125082431ULL);
  EXPECT_EQ(s.NextBits(), 16408922859458223821ULL);
}

TEST(RandomTest, CounterAccessEqualsSequentialDraws) {
  RandomStream s(99);
  for (uint64_t k = 0; k < 100; ++k) EXPECT_EQ(s.NextBits(), CounterBits(99, k));
}

TEST(RandomTest, MixSeparatesNearbyInputs) {
  EXPECT_NE(MixSeeds(1, 2, 3), MixSeeds(1, 2, 4));
  EXPECT_NE(MixSeeds(1, 2, 3), MixSeeds(2, 1, 3));
  EXPECT_EQ(MixSeeds(1, 2, 3), MixSeeds(1, 2, 3));
}

TEST(RandomTest, UniformIsOpenAtBothEnds) {
  EXPECT_GT(UnitUniform(0), 0.0);
  EXPECT_LT(UnitUniform(~0ULL), 1.0);
  EXPECT_EQ(UnitUniform(0), 0x1.0p-53);
  EXPECT_EQ(UnitUniform(~0ULL), 1.0 - 0x1.0p-53);
}

TEST(RandomTest, UniformAndNormalMoments) {
  // n = 20000: the mean of U(0,1) has sd 0.29 / sqrt(n) = 0.002, its
  // variance (1/12) sd ~0.0005; the normal's mean sd 0.007, variance sd 0.01.
  // Tolerances are 4-5 standard deviations.
  RandomStream r(1);
  const int n = 20000;
  double u_sum = 0, u_sq = 0, z_sum = 0, z_sq = 0;
  for (int i = 0; i < n; ++i) {
    double u = r.Uniform();
    u_sum += u;
    u_sq += u * u;
    double z = r.Normal();
    z_sum += z;
    z_sq += z * z;
  }
  const double u_mean = u_sum / n, z_mean = z_sum / n;
  EXPECT_NEAR(u_mean, 0.5, 0.01);
  EXPECT_NEAR(u_sq / n - u_mean * u_mean, 1.0 / 12.0, 0.0025);
  EXPECT_NEAR(z_mean, 0.0, 0.03);
  EXPECT_NEAR(z_sq / n - z_mean * z_mean, 1.0, 0.05);
}

TEST(RandomTest, LognormalFactorHasMedianOneAndItsCv) {
  EXPECT_EQ(LognormalFactor(0.0, 1.7), 1.0);
  EXPECT_EQ(LognormalFactor(0.2, 0.0), 1.0);  // z = 0 is the median
  // sigma^2 = ln(1 + cv^2): exp(sigma) at z = 1.
  EXPECT_DOUBLE_EQ(LognormalFactor(0.2, 1.0), std::exp(std::sqrt(std::log1p(0.04))));
  RandomStream r(7);
  const int n = 20000;
  double sum = 0, sq = 0;
  for (int i = 0; i < n; ++i) {
    double x = r.LognormalFactor(0.1);
    sum += x;
    sq += x * x;
  }
  const double mean = sum / n;
  const double cv = std::sqrt(sq / n - mean * mean) / mean;
  EXPECT_NEAR(mean, std::sqrt(1.01), 0.004);  // sd of the mean 0.0007
  EXPECT_NEAR(cv, 0.1, 0.004);                // sd of the CV ~0.0005
}

TEST(RandomTest, EveryDrawCountIsFixed) {
  // Normal and LognormalFactor read exactly two numbers, also at cv = 0.
  RandomStream a(5), b(5);
  a.LognormalFactor(0.0);
  b.Normal();
  EXPECT_EQ(a.NextBits(), CounterBits(5, 2));
  EXPECT_EQ(b.NextBits(), CounterBits(5, 2));
}

}  // namespace
}  // namespace gpugate
