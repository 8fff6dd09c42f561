// Tests for the shift estimators of compare/ against scipy reference values.
#include "compare/estimate.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "stats/distributions.h"
#include "stats/signed_rank.h"

namespace gpugate {
namespace {

// Reference: Debian /usr/bin/python3, scipy 1.10.1:
//   stats.ttest_ind(c, b, equal_var=False) -> t, p; Welch df and
//   d -/+ stats.t.ppf(0.975, df) * se computed by hand.
TEST(CompareEstimate, RoundsWelchMatchesScipy) {
  std::vector<double> b = {-6.90, -6.88, -6.91, -6.87, -6.89};
  std::vector<double> c = {-6.80, -6.83, -6.79, -6.82, -6.78, -6.81};
  LogShift s = RoundsWelch(b, c, 0.95);
  EXPECT_EQ(s.method, ShiftMethod::kRoundsWelch);
  EXPECT_NEAR(s.estimate, 0.08500000000000085, 1e-12);
  EXPECT_NEAR(s.se, 0.010408329997330684, 1e-12);
  EXPECT_NEAR(s.df, 8.989361702127656, 1e-9);
  EXPECT_NEAR(s.p_value, 1.8902703665773873e-05, 1e-10);
  EXPECT_NEAR(s.ci_low, 0.06145047356095874, 1e-9);
  EXPECT_NEAR(s.ci_high, 0.10854952643904296, 1e-9);
  EXPECT_NEAR(s.estimate / s.se, 8.166535844059512, 1e-9);
}

// Reference: d = x - mean(h); se = std(h, ddof=1) * sqrt(1 + 1/K);
//   p = 2 * stats.t.sf(|d/se|, K-1); low = d - stats.t.ppf(0.975, K-1) * se
TEST(CompareEstimate, HistoryPredictionMatchesScipy) {
  std::vector<double> h = {0.10, 0.31, -0.05, 0.22, 0.02, 0.15, -0.12, 0.08, 0.27, 0.01};
  std::vector<double> x = {0.60};
  LogShift s = HistoryPrediction(h, x, 5, 0.95);
  EXPECT_EQ(s.method, ShiftMethod::kHistoryPrediction);
  EXPECT_NEAR(s.estimate, 0.501, 1e-12);
  EXPECT_NEAR(s.se, 0.14653744307248653, 1e-12);
  EXPECT_DOUBLE_EQ(s.df, 9.0);
  EXPECT_NEAR(s.p_value, 0.0076409606173276174, 1e-10);
  EXPECT_NEAR(s.ci_low, 0.16950927354382428, 1e-9);
  EXPECT_DOUBLE_EQ(s.between_run_var, s.se * s.se);  // all of it is between-run noise
}

TEST(CompareEstimate, HistoryPredictionModeratesItsOwnVariance) {
  // A noisy workload against a quiet suite prior keeps most of its own
  // variance: (d0 s0^2 + (K + J - 2) s^2) / (d0 + K + J - 2).
  std::vector<double> h = {0.0, 0.2, -0.2, 0.1, -0.1};  // s^2 = 0.025 over 4 df
  std::vector<double> x = {0.0};
  VariancePrior prior{2.0, 1e-4};
  LogShift s = HistoryPrediction(h, x, 10, 0.95, prior);
  const double var = (2.0 * 1e-4 + 4 * 0.025) / 6.0;
  EXPECT_NEAR(s.se, std::sqrt(var * (1.0 / 5 + 1.0)), 1e-12);
  EXPECT_DOUBLE_EQ(s.df, 6.0);
  EXPECT_DOUBLE_EQ(s.prior_df, 2.0);
}

// A history run with variance scale r enters with weight 1/r: weighted mean,
// weighted sum of squares over K + J - 2 df, 1/K replaced by 1/sum(w).
// Reference computed by hand (numpy: np.average(h, weights=w), ...).
TEST(CompareEstimate, HistoryPredictionWeighsNoisyHistoryRuns) {
  std::vector<double> h = {0.00, 0.02, -0.01, 0.01, 0.60};  // the last run scattered
  std::vector<double> x = {0.03};
  std::vector<double> scales = {1.0, 1.0, 1.0, 1.0, 25.0};
  const double w[] = {1, 1, 1, 1, 1.0 / 25};
  double sw = 0, swx = 0;
  for (int i = 0; i < 5; ++i) {
    sw += w[i];
    swx += w[i] * h[i];
  }
  const double mean = swx / sw;
  double ss = 0;
  for (int i = 0; i < 5; ++i) ss += w[i] * (h[i] - mean) * (h[i] - mean);
  const double var = ss / (5 + 1 - 2);
  LogShift s = HistoryPrediction(h, x, 5, 0.95, {}, 1.0, scales);
  EXPECT_NEAR(s.estimate, 0.03 - mean, 1e-12);
  EXPECT_NEAR(s.se, std::sqrt(var * (1.0 / sw + 1.0)), 1e-12);
  EXPECT_DOUBLE_EQ(s.df, 4.0);
  double df = 0;
  EXPECT_NEAR(PooledRunVariance(h, x, &df, scales), var, 1e-15);
  // Unweighted, the scattered run pulls the mean and widens the interval
  // several times over.
  LogShift plain = HistoryPrediction(h, x, 5, 0.95);
  EXPECT_GT(plain.se, 3 * s.se);
  // Scales of 1 are the unweighted estimate exactly.
  LogShift ones = HistoryPrediction(h, x, 5, 0.95, {}, 1.0, std::vector<double>(5, 1.0));
  EXPECT_DOUBLE_EQ(ones.se, plain.se);
  EXPECT_DOUBLE_EQ(ones.estimate, plain.estimate);
}

TEST(CompareEstimate, ModerationAddsPriorDegreesOfFreedom) {
  std::vector<double> b = {-6.90, -6.88, -6.91, -6.87, -6.89};
  std::vector<double> c = {-6.80, -6.83, -6.79, -6.82, -6.78, -6.81};
  VariancePrior prior{40.0, 0.0004};
  LogShift s = RoundsWelch(b, c, 0.95, prior);
  // Each side: (40 * 0.0004 + (n-1) s^2) / (40 + n - 1), df n - 1 + 40.
  double vb = (40 * 0.0004 + 4 * 0.00025) / 44.0;
  double vc = (40 * 0.0004 + 5 * 0.00035) / 45.0;
  EXPECT_NEAR(s.se, std::sqrt(vb / 5 + vc / 6), 1e-12);
  EXPECT_GT(s.df, 80.0);
  EXPECT_DOUBLE_EQ(s.prior_df, 40.0);
}

TEST(CompareEstimate, BetweenRunNoiseWidensIntervalAndKeepsAgreement) {
  std::vector<double> b = {0.0, 0.01, -0.01, 0.005, -0.005};
  std::vector<double> c = {0.10, 0.11, 0.09, 0.105, 0.095};
  LogShift s = RoundsWelch(b, c, 0.95);
  LogShift w = WithBetweenRunNoise(s, 0.04, 20.0);
  EXPECT_TRUE(w.suite_noise_added);
  EXPECT_NEAR(w.se, std::sqrt(s.se * s.se + 0.04), 1e-15);
  EXPECT_GT(w.ci_high - w.ci_low, 0.5);
  EXPECT_GT(w.p_value, 0.05);   // no longer significant...
  EXPECT_LT(w.ci_low, 0.0);     // ...and the interval covers 0: they agree
  EXPECT_LT(s.p_value, 1e-6);
}

TEST(CompareEstimate, SuiteBetweenRunVarianceFromExcessSpread) {
  // 40 workloads whose rounds say se = 0.01 but whose effects are +-0.2 * 0.6745:
  // the spread (MAD) of N(0, 0.2^2), so sqrt(se^2 + tau^2) must come out as 0.2.
  std::vector<LogShift> shifts;
  for (int i = 0; i < 40; ++i) {
    LogShift s;
    s.method = ShiftMethod::kRoundsWelch;
    s.se = 0.01;
    s.df = 1e6;
    s.estimate = (i % 2 ? 1.0 : -1.0) * 0.2 * 0.6744897501960817;
    shifts.push_back(s);
  }
  double tau_df = 0;
  double tau2 = EstimateSuiteBetweenRunVariance(shifts, &tau_df);
  EXPECT_NEAR(std::sqrt(tau2 + 0.0001), 0.2, 1e-4);
  EXPECT_NEAR(tau_df, 0.37 * 39, 1e-9);
  // Effects the rounds explain: no extra variance.
  for (auto& s : shifts) s.estimate *= 0.01;
  EXPECT_EQ(EstimateSuiteBetweenRunVariance(shifts, &tau_df), 0.0);
  // Too few workloads to estimate.
  shifts.resize(kMinSuiteForNoise - 1);
  for (auto& s : shifts) s.estimate *= 100;
  EXPECT_EQ(EstimateSuiteBetweenRunVariance(shifts, &tau_df), 0.0);
}

TEST(CompareEstimate, SuiteBetweenRunVarianceIsNotOutvotedByNoisyRounds) {
  // Six workloads whose rounds scatter by 30% (their effects well within
  // that) beside two quiet ones (se 0.5%) that moved +-20% between the runs.
  // Counted alike, the six noisy workloads set the median |z| and tau^2 would
  // be 0, leaving the quiet workloads' 20% moves "significant"; weighed by
  // what each can show, tau comes out near the quiet ones' moves.
  std::vector<LogShift> shifts;
  auto add = [&](double estimate, double se) {
    LogShift s;
    s.method = ShiftMethod::kRoundsWelch;
    s.se = se;
    s.df = 8;
    s.estimate = estimate;
    shifts.push_back(s);
  };
  for (double d : {0.1, -0.05, 0.08, -0.12, 0.02, -0.03}) add(d, 0.3);
  for (double d : {0.2, -0.2}) add(d, 0.005);
  double tau_df = 0;
  const double tau2 = EstimateSuiteBetweenRunVariance(shifts, &tau_df);
  EXPECT_GT(std::sqrt(tau2), 0.15);
  EXPECT_LT(std::sqrt(tau2), 0.3);
  // Fewer degrees of freedom than eight equal votes would give.
  EXPECT_GE(tau_df, 1.0);
  EXPECT_LT(tau_df, 0.37 * 7);
  // With all eight alike (se 0.3), the effects agree with their rounds.
  for (auto& s : shifts) s.se = 0.3;
  EXPECT_EQ(EstimateSuiteBetweenRunVariance(shifts, &tau_df), 0.0);
}

TEST(CompareEstimate, SuiteOverdispersionScalesWithOwnScatter) {
  // Seven workloads whose effects are +-3 * 0.6745 of their own standard
  // errors (se from 1% to 32%), around a workload with no effect: the spread
  // is 3 times what each workload's scatter explains, so phi = 9.
  const double se[] = {0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.05};
  const double z = 3 * 0.6744897501960817;
  std::vector<LogShift> shifts;
  for (int i = 0; i < 7; ++i) {
    LogShift s;
    s.method = ShiftMethod::kSamplesHodgesLehmann;
    s.se = se[i];
    s.df = 1e6;
    s.estimate = i == 6 ? 0.0 : (i % 2 ? -z : z) * se[i];
    shifts.push_back(s);
  }
  double df = 0;
  // Without unit counts the unit spread is se itself: kappa is the classic phi.
  EXPECT_NEAR(EstimateSuiteOverdispersion(shifts, &df), 9.0, 1e-3);
  EXPECT_NEAR(df, 0.37 * 6, 1e-9);
  // Spread within what the scatter explains: kappa u^2 < se^2, no workload
  // needs more (phi 9/16).
  for (auto& s : shifts) s.estimate /= 4;
  EXPECT_NEAR(EstimateSuiteOverdispersion(shifts, &df), 9.0 / 16, 1e-3);
  // Too few comparisons: nothing is estimated.
  shifts.resize(2);
  EXPECT_DOUBLE_EQ(EstimateSuiteOverdispersion(shifts, &df), 0.0);
  EXPECT_EQ(df, 0.0);
}

TEST(CompareEstimate, OverdispersionIsPerUnitNotPerStandardError) {
  // Six workloads measured with 2,000 samples a side and one with 20, all
  // with the same 5% spread per sample; their effects move by 3 spreads'
  // worth of a tenth. Per standard error the 2,000-sample workloads look
  // 10 times overdispersed, and that factor would widen the 20-sample
  // workload's interval tenfold; per unit of spread it is one factor for all.
  std::vector<LogShift> shifts;
  auto add = [&](double estimate, double n) {
    LogShift s;
    s.method = ShiftMethod::kSamplesHodgesLehmann;
    s.unit_factor = std::sqrt(2.0 / n);
    s.se = 0.05 * s.unit_factor;
    s.df = 1e6;
    s.estimate = estimate;
    shifts.push_back(s);
  };
  const double step = 0.3 * 0.05 * 0.6744897501960817;
  for (int i = 0; i < 6; ++i) add((i % 2 ? -1.0 : 1.0) * step, 2000);
  add(0.0, 20);
  double df = 0;
  const double kappa = EstimateSuiteOverdispersion(shifts, &df);
  EXPECT_NEAR(kappa, 0.09, 1e-3);  // (0.3)^2: the runs differ by 0.3 spreads
  // The 20-sample workload's se^2 (0.05^2 / 10) already covers kappa u^2:
  // it gets no extra variance; the 2,000-sample ones get kappa u^2 - se^2.
  EXPECT_LT(kappa * UnitSpread(shifts[6]) * UnitSpread(shifts[6]), shifts[6].se * shifts[6].se);
  EXPECT_GT(kappa * UnitSpread(shifts[0]) * UnitSpread(shifts[0]), 8 * shifts[0].se * shifts[0].se);
}

TEST(CompareEstimate, RoundLevelsAreMediansOfLogs) {
  std::vector<std::vector<double>> rounds = {{1.0, std::exp(1.0), std::exp(2.0)}, {}, {std::exp(3.0)}};
  auto m = RoundLogMedians(rounds);
  ASSERT_EQ(m.size(), 2u);
  EXPECT_NEAR(m[0], 1.0, 1e-15);
  EXPECT_NEAR(m[1], 3.0, 1e-15);
  EXPECT_NEAR(RunLogLevel(rounds), 2.0, 1e-15);
}

// A run's level is robust to one wild round: Google Benchmark repetitions of
// 2.4 ms with one of 125 ms (a first-touch stall, seen in a real corpus) keep
// the run near 2.4 ms, where the mean of the five logs read 5.3 ms.
TEST(CompareEstimate, RunLevelIgnoresOneWildRound) {
  std::vector<std::vector<double>> rounds = {{125.449}, {2.984}, {2.444}, {2.4}, {2.295}};
  const double level = std::exp(RunLogLevel(rounds));
  EXPECT_GT(level, 2.3);
  EXPECT_LT(level, 2.75);
  // Symmetric rounds: the centre, as the mean.
  std::vector<std::vector<double>> even = {{std::exp(1.0)}, {std::exp(2.0)}, {std::exp(3.0)}, {std::exp(4.0)}};
  EXPECT_NEAR(RunLogLevel(even), 2.5, 1e-12);
}

// The minimum detectable effect is where the regression test, as the judge
// applies it, passes 90% of the time: the interval's lower end above the
// threshold AND a one-sided p under the false-discovery bar. Checked by
// drawing estimates around it: with the bar of a lone change among 14
// hypotheses at q = 0.01 (p <= 0.01/14) the interval alone would promise far
// more than the test delivers.
TEST(CompareEstimate, MinimumDetectableEffectIsWhereTheTestReaches90Percent) {
  LogShift s;
  s.method = ShiftMethod::kHistoryPrediction;
  s.se = 0.1;
  s.df = 1e9;  // normal reference
  s.confidence = 0.95;
  const double limit = std::log1p(0.03), alpha = 0.01 / 14;
  const double z_interval = 1.959963984540054, z_bar = 3.1888;  // z_{0.9993}
  auto power = [&](double true_shift) {
    std::mt19937_64 rng(7);
    std::normal_distribution<double> noise(0.0, s.se);
    int hits = 0;
    const int n = 200000;
    for (int i = 0; i < n; ++i) {
      const double est = true_shift + noise(rng);
      hits += est - z_interval * s.se > limit && est / s.se > z_bar;
    }
    return static_cast<double>(hits) / n;
  };
  const double with_bar = MinimumDetectableLog(s, limit, 0.9, alpha);
  const double interval_only = MinimumDetectableLog(s, limit, 0.9);
  EXPECT_NEAR(with_bar, 3.1888 * 0.1 + 1.2816 * 0.1, 1e-3);
  EXPECT_NEAR(interval_only, limit + (1.96 + 1.2816) * 0.1, 1e-3);
  EXPECT_NEAR(power(with_bar), 0.90, 0.005);
  EXPECT_LT(power(interval_only), 0.7);  // the interval alone promised 90%
  // A threshold far above the noise: the interval is the bar, alpha does not bind.
  EXPECT_DOUBLE_EQ(MinimumDetectableLog(s, std::log1p(0.5), 0.9, alpha),
                   MinimumDetectableLog(s, std::log1p(0.5), 0.9));
}

// A rank test on few units has a smallest p: 2^-n for n paired rounds,
// 1 / C(n1 + n2, n1) for the exact U test. Where it lies above the bar a
// lone change must clear, no shift is detectable: the MDE is unbounded.
TEST(CompareEstimate, ARankTestsSmallestPBoundsWhatItCanDetect) {
  const std::vector<double> ratios = {0.21, 0.22, 0.19, 0.2, 0.23, 0.18, 0.205, 0.215, 0.195, 0.225};
  const LogShift paired = PairedRounds(ratios, 0.95);
  EXPECT_DOUBLE_EQ(paired.p_floor, std::ldexp(1.0, -10));
  EXPECT_DOUBLE_EQ(paired.p_greater, std::ldexp(1.0, -10));  // every round slower: the floor itself
  EXPECT_TRUE(std::isinf(MinimumDetectableLog(paired, std::log1p(0.03), 0.9, 0.01 / 12)));
  EXPECT_TRUE(std::isfinite(MinimumDetectableLog(paired, std::log1p(0.03), 0.9, 0.01 / 5)));
  // The trimmed mean has a t reference: no floor.
  const LogShift trimmed = PairedRoundsTrimmed(ratios, 0.95);
  EXPECT_TRUE(trimmed.trimmed_t);
  EXPECT_EQ(trimmed.p_floor, 0.0);
  EXPECT_NEAR(trimmed.estimate, 0.2075, 1e-12);  // mean of the middle six
  EXPECT_LT(trimmed.p_greater, 1e-6);
  EXPECT_TRUE(std::isfinite(MinimumDetectableLog(trimmed, std::log1p(0.03), 0.9, 0.01 / 12)));
  // Kept rounds that all agree (a coarse timer) give a t nothing to read:
  // se infinite (the judge keeps the rank test), never p = 0 from se = 0.
  const std::vector<double> coarse = {0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.0, 0.1};
  EXPECT_TRUE(std::isinf(PairedRoundsTrimmed(coarse, 0.95).se));
  // The rank test reads them on their grid (steps of 0.05): an interval
  // narrower than a step is widened by half a step each side.
  const LogShift grid = PairedRounds(coarse, 0.95);
  EXPECT_GE(grid.ci_high - grid.ci_low, 0.05 - 1e-12);
  EXPECT_FALSE(grid.no_spread);
  const std::vector<double> same(10, 0.05);
  EXPECT_TRUE(std::isinf(PairedRoundsTrimmed(same, 0.95).se));
  EXPECT_TRUE(PairedRounds(same, 0.95).no_spread);
  EXPECT_TRUE(std::isinf(PairedRounds(same, 0.95).se));
  const std::vector<double> base = {0.0, 0.01, 0.02}, cur = {0.1, 0.11, 0.12};
  const LogShift samples = SamplesHodgesLehmann(base, cur, 0.95);
  EXPECT_NEAR(samples.p_floor, 1.0 / 20, 1e-12);
  EXPECT_TRUE(std::isinf(MinimumDetectableLog(samples, 0.0, 0.9, 0.01)));
  // Between-run noise added: a t reference again.
  EXPECT_EQ(WithBetweenRunNoise(samples, 0.01, 10).p_floor, 0.0);
}

// An interval is given only at a level the exact test reaches: the smallest
// two-sided p of n untied rounds is 2^(1-n), so 6 rounds reach 95% (0.031)
// but not 99%, and 8 reach 99% (0.0078). A round that reads no change is a
// round: it counts, and keeps 0 inside the interval (probes DB1, DC2).
TEST(CompareEstimate, PairedRoundsGiveNoIntervalBelowTheLevelTheTestReaches) {
  EXPECT_EQ(MinPairedRounds(0.95), 6);
  EXPECT_EQ(MinPairedRounds(0.99), 8);
  EXPECT_EQ(MinPairedRounds(0.999), 11);
  EXPECT_EQ(MinPairedRounds(0.75), 6);  // never fewer than 6
  const std::vector<double> six = {0.10, 0.11, 0.09, 0.12, 0.095, 0.105};
  EXPECT_TRUE(std::isfinite(PairedRounds(six, 0.95).ci_low));
  EXPECT_TRUE(std::isinf(PairedRounds(six, 0.99).ci_low));
  EXPECT_TRUE(std::isinf(PairedRounds(six, 0.99).ci_high));
  const std::vector<double> eight = {0.10, 0.11, 0.09, 0.12, 0.095, 0.105, 0.1025, 0.0975};
  const LogShift s8 = PairedRounds(eight, 0.99);
  EXPECT_TRUE(std::isfinite(s8.ci_low));
  EXPECT_GT(s8.ci_low, 0.0);
  const std::vector<double> eight_one_zero = {0.10, 0.11, 0.09, 0.12, 0.095, 0.105, 0.1025, 0.0};
  const LogShift one_zero = PairedRounds(eight_one_zero, 0.99);
  EXPECT_TRUE(std::isfinite(one_zero.ci_low));
  EXPECT_LE(one_zero.ci_low, 0.0);
  // Tied rounds keep the exact distribution; below its level the full
  // range is reported with the coverage it has, never the level asked for.
  const std::vector<double> tied = {0.1, 0.1, 0.2};
  EXPECT_LT(WilcoxonSignedRank(tied, 0.99).achieved_confidence, 0.99);
  EXPECT_TRUE(std::isinf(PairedRounds(tied, 0.99).ci_low));
}

// Near its floor the exact signed-rank test is far from its t reference:
// 11 rounds against 0.01 / 12 reject only when every round is slower, which
// takes a shift of 2.35 round sigmas for 90% power (0.9^(1/11) = P(d > 0)).
TEST(CompareEstimate, AnExactSignedRankTestNearItsFloorPromisesNoMoreThanItCanDo) {
  std::mt19937_64 rng(5);
  std::normal_distribution<double> noise(0.0, 0.02);
  std::vector<double> ratios(11);
  for (double& r : ratios) r = noise(rng);
  const LogShift s = PairedRounds(ratios, 0.95);
  ASSERT_EQ(s.exact_rank_n, 11);
  const double sigma = s.se * std::sqrt(3.0 * 11 / 3.141592653589793);
  const double mde = MinimumDetectableLog(s, 0.0, 0.9, 0.01 / 12);
  EXPECT_NEAR(mde, NormalQuantile(std::pow(0.9, 1.0 / 11)) * sigma, 1e-6 * sigma);
  // With room below the bar (5 comparisons: 2^-11 << 0.002) the bound no
  // longer binds beyond the t reference by as much.
  EXPECT_LT(MinimumDetectableLog(s, 0.0, 0.9, 0.01 / 5), mde);
}

}  // namespace
}  // namespace gpugate
