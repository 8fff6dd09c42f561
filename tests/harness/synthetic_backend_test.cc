// Tests of the synthetic backend: reproducibility, seeding, and that the
// samples follow the declared distribution.
#include "harness/backends/synthetic_backend.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

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

TEST(SyntheticBackendTest, MeanMatchesTheLognormalModel) {
  // A lognormal with median m and CV c has mean m * sqrt(1 + c^2); with
  // c = 0.2 and n = 20000 the standard error of the mean is 0.2 / sqrt(20000)
  // = 0.14% of it, so a 1% tolerance is 7 standard errors.
  auto x = Draw(Spec("mean", Lognormal(1e-3, 0.2)), 20000);
  Summary s = Summarize(x);
  EXPECT_NEAR(s.mean, 1e-3 * std::sqrt(1.0 + 0.2 * 0.2), 0.01e-3);
  EXPECT_NEAR(s.cv, 0.2, 0.2 * 0.05);  // se of the CV ~ 0.6% relative
}

TEST(SyntheticBackendTest, SlowdownScalesEverySample) {
  // Every parameter that draws (noise, mode, outlier, round and run drift)
  // is set: each sample still reads the same random numbers, so the ratio
  // is exactly the slowdown, sample by sample and round by round.
  SyntheticSpec base = Lognormal(1e-3, 0.1);
  base.outlier_rate = 0.1;
  base.outlier_scale = 3;
  base.bimodal_weight = 0.3;
  base.bimodal_ratio = 2;
  base.round_drift_cv = 0.05;
  base.run_drift_cv = 0.2;
  SyntheticSpec slow = base;
  slow.slowdown = 1.1;
  for (int round : {0, 3}) {
    auto a = Draw(Spec("s", base), 200, /*run_seed=*/4, round);
    auto b = Draw(Spec("s", slow), 200, /*run_seed=*/4, round);
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(b[i] / a[i], 1.1, 1e-12);
  }
}

TEST(SyntheticBackendTest, SampleDependsOnItsIndexNotOnRounds) {
  // Counter-based draws: sample i of an instance reads the same numbers
  // whatever rounds began before it (without round drift, the same value).
  auto spec = Spec("c", Lognormal(1e-3, 0.1));
  SyntheticBackend backend(3);
  auto a = backend.Prepare(spec);
  auto b = backend.Prepare(spec);
  ASSERT_TRUE(a.ok() && b.ok());
  (*b)->BeginRound(7);
  (*b)->BeginRound(2);
  for (int i = 0; i < 20; ++i) {
    if (i == 10) (*a)->BeginRound(1);
    EXPECT_EQ((*a)->RunSample()->seconds, (*b)->RunSample()->seconds) << "sample " << i;
  }
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

}  // namespace
}  // namespace gpugate
