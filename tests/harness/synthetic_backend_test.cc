// Tests of the synthetic backend: reproducibility, seeding, and that the
// samples follow the declared distribution.
#include "harness/backends/synthetic_backend.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "stats/summary.h"

namespace gpugate {
namespace {

WorkloadSpec Spec(const std::string& name, SyntheticSpec syn) {
  WorkloadSpec spec;
  spec.name = name;
  spec.kind = WorkloadKind::kSynthetic;
  spec.synthetic = syn;
  return spec;
}

std::vector<double> Draw(const WorkloadSpec& spec, int n, uint64_t run_seed = 0, int round = 0) {
  SyntheticBackend backend(run_seed);
  auto inst = backend.Prepare(spec);
  EXPECT_TRUE(inst.ok());
  if (!inst.ok()) return {};
  (*inst)->BeginRound(round);
  std::vector<double> out;
  for (int i = 0; i < n; ++i) out.push_back((*inst)->RunSample()->seconds);
  return out;
}

SyntheticSpec Lognormal(double median, double cv) {
  SyntheticSpec s;
  s.median = median;
  s.cv = cv;
  s.seed = 42;
  return s;
}

TEST(SyntheticBackendTest, SameSeedSameSamples) {
  auto spec = Spec("a", Lognormal(1e-3, 0.05));
  EXPECT_EQ(Draw(spec, 100), Draw(spec, 100));
  EXPECT_EQ(Draw(spec, 100, 9), Draw(spec, 100, 9));
}

TEST(SyntheticBackendTest, SeedNameAndRunSeedChangeValues) {
  auto base = Draw(Spec("a", Lognormal(1e-3, 0.05)), 50);
  SyntheticSpec other_seed = Lognormal(1e-3, 0.05);
  other_seed.seed = 43;
  EXPECT_NE(base, Draw(Spec("a", other_seed), 50));
  EXPECT_NE(base, Draw(Spec("b", Lognormal(1e-3, 0.05)), 50));
  EXPECT_NE(base, Draw(Spec("a", Lognormal(1e-3, 0.05)), 50, /*run_seed=*/1));
}

TEST(SyntheticBackendTest, MedianAndCvMatchDeclared) {
  // n = 4000, cv 0.05: the standard error of the median is about
  // 1.2533 * 0.05 / sqrt(4000) = 0.1% and of the CV about 1.1% relative,
  // so 1% and 5% tolerances are > 5 standard errors.
  auto x = Draw(Spec("m", Lognormal(2e-3, 0.05)), 4000);
  Summary s = Summarize(x);
  EXPECT_NEAR(s.median, 2e-3, 0.01 * 2e-3);
  EXPECT_NEAR(s.cv, 0.05, 0.05 * 0.05);
  EXPECT_GT(s.min, 0);
}

TEST(SyntheticBackendTest, SlowdownScalesEverySample) {
  SyntheticSpec slow = Lognormal(1e-3, 0.1);
  slow.slowdown = 1.1;
  auto a = Draw(Spec("s", Lognormal(1e-3, 0.1)), 200);
  auto b = Draw(Spec("s", slow), 200);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(b[i] / a[i], 1.1, 1e-12);
}

TEST(SyntheticBackendTest, OutlierRateAndScale) {
  SyntheticSpec s = Lognormal(1e-3, 0.01);
  s.outlier_rate = 0.1;
  s.outlier_scale = 5;
  auto x = Draw(Spec("o", s), 4000);
  double frac = std::count_if(x.begin(), x.end(), [](double v) { return v > 2e-3; }) / 4000.0;
  // Binomial sd sqrt(0.1 * 0.9 / 4000) = 0.0047; tolerance ~4 sd.
  EXPECT_NEAR(frac, 0.1, 0.02);
  EXPECT_NEAR(*std::max_element(x.begin(), x.end()), 5e-3, 5e-3 * 0.05);
}

TEST(SyntheticBackendTest, BimodalWeightAndRatio) {
  SyntheticSpec s = Lognormal(1e-3, 0.01);
  s.bimodal_weight = 0.3;
  s.bimodal_ratio = 2.0;
  auto x = Draw(Spec("b", s), 4000);
  std::vector<double> high;
  for (double v : x)
    if (v > 1.5e-3) high.push_back(v);
  EXPECT_NEAR(high.size() / 4000.0, 0.3, 0.03);  // sd 0.0072
  EXPECT_NEAR(Median(high), 2e-3, 2e-3 * 0.01);
}

TEST(SyntheticBackendTest, RoundDriftDependsOnRoundIndexOnly) {
  SyntheticSpec s = Lognormal(1e-3, 0.0);
  s.round_drift_cv = 0.2;
  auto spec = Spec("r", s);
  std::vector<double> medians;
  for (int round = 0; round < 8; ++round) {
    auto x = Draw(spec, 5, 0, round);
    // cv 0: every sample of a round equals median * round factor.
    for (double v : x) EXPECT_DOUBLE_EQ(v, x[0]);
    medians.push_back(x[0]);
  }
  std::sort(medians.begin(), medians.end());
  EXPECT_GT(medians.back() / medians.front(), 1.05);
  // Same round index again (after other rounds ran) gives the same factor.
  SyntheticBackend backend;
  auto inst = backend.Prepare(spec);
  ASSERT_TRUE(inst.ok());
  (*inst)->BeginRound(3);
  double r3 = (*inst)->RunSample()->seconds;
  (*inst)->BeginRound(5);
  (*inst)->BeginRound(3);
  EXPECT_DOUBLE_EQ((*inst)->RunSample()->seconds, r3);
}

TEST(SyntheticBackendTest, RunDriftChangesWithRunSeed) {
  SyntheticSpec s = Lognormal(1e-3, 0.0);
  s.run_drift_cv = 0.1;
  auto spec = Spec("d", s);
  std::vector<double> per_run;
  for (uint64_t run = 1; run <= 200; ++run) per_run.push_back(Draw(spec, 1, run)[0]);
  EXPECT_EQ(Draw(spec, 1, 5)[0], per_run[4]);
  // The per-run factors are lognormal with median 1 and CV 0.1.
  Summary sum = Summarize(per_run);
  EXPECT_NEAR(sum.median, 1e-3, 0.03e-3);
  EXPECT_NEAR(sum.cv, 0.1, 0.025);
}

TEST(SyntheticBackendTest, RejectsBadDistribution) {
  SyntheticSpec s = Lognormal(0.0, 0.1);
  SyntheticBackend backend;
  auto r = backend.Prepare(Spec("bad", s));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ExitCode::kInputError);
  EXPECT_NE(r.error().message.find("synthetic.median must be > 0"), std::string::npos);
  s = Lognormal(1e-3, 0.1);
  s.outlier_rate = 1.5;
  EXPECT_FALSE(backend.Prepare(Spec("bad", s)).ok());
}

TEST(SyntheticBackendTest, OnlySyntheticWorkloads) {
  SyntheticBackend backend;
  WorkloadSpec spec;
  spec.kind = WorkloadKind::kBuiltin;
  EXPECT_TRUE(backend.Unsupported(spec).has_value());
}

TEST(PortableRandomTest, EngineIsTheStandardMt19937_64) {
  // [rand.predef]: the 10000th output of a default-constructed mt19937_64
  // (seed 5489) is 9981545732273789042; Uniform() keeps its top 53 bits.
  detail::PortableRandom r(5489);
  for (int i = 0; i < 9999; ++i) r.Uniform();
  EXPECT_EQ(r.Uniform(), static_cast<double>(9981545732273789042ULL >> 11) * 0x1.0p-53);
}

TEST(PortableRandomTest, NormalHasUnitVariance) {
  detail::PortableRandom r(1);
  const int n = 20000;
  double sum = 0, sq = 0;
  for (int i = 0; i < n; ++i) {
    double z = r.Normal();
    sum += z;
    sq += z * z;
  }
  double mean = sum / n;
  EXPECT_NEAR(mean, 0.0, 0.03);          // sd of the mean 0.007
  EXPECT_NEAR(sq / n - mean * mean, 1.0, 0.05);  // sd of the variance 0.01
}

TEST(SeedMixTest, Fnv1aKnownVectors) {
  // Published FNV-1a 64-bit test vectors (also recomputed with a 5-line
  // Python implementation of the algorithm).
  EXPECT_EQ(detail::Fnv1a64(""), 0xcbf29ce484222325ULL);
  EXPECT_EQ(detail::Fnv1a64("a"), 0xaf63dc4c8601ec8cULL);
  EXPECT_EQ(detail::Fnv1a64("foobar"), 0x85944171f73967e8ULL);
}

TEST(SeedMixTest, MixSeparatesNearbyInputs) {
  EXPECT_NE(detail::MixSeeds(1, 2, 3), detail::MixSeeds(1, 2, 4));
  EXPECT_NE(detail::MixSeeds(1, 2, 3), detail::MixSeeds(2, 1, 3));
  EXPECT_EQ(detail::MixSeeds(1, 2, 3), detail::MixSeeds(1, 2, 3));
}

}  // namespace
}  // namespace gpugate
