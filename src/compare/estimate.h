// Shift estimators for compare: how much slower or faster the current run is,
// on log-times, with an interval and a test that agree, and with the unit of
// replication chosen so that noise between rounds (and between runs, when the
// baseline holds a history) enters the error term.
//   Kalibera & Jones (2013), "Rigorous Benchmarking in Reasonable Time", ISMM:
//     hierarchical (run / round / sample) replication; within-run samples are
//     not independent draws.
//   Welch (1947), Biometrika 34:28-35: unequal-variance t with
//     Satterthwaite degrees of freedom.
//   Hodges & Lehmann (1963) with the Moses interval (stats/hodges_lehmann.h).
//   DerSimonian & Laird (1986), Control. Clin. Trials 7:177-188: a
//     between-unit variance component tau^2 estimated from the excess spread
//     of effects; here estimated robustly (median/MAD) across a suite.
//   McCullagh & Nelder (1989), Generalized Linear Models, 2nd ed., 4.5: an
//     overdispersion factor phi scaling each unit's own variance.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "stats/moderated_variance.h"
#include "stats/summary.h"  // MedianInPlace, RoundLogMedians

namespace gpugate {

enum class ShiftMethod {
  kHistoryPrediction,  ///< current run vs the distribution of run-level values in a history
  kRoundsWelch,        ///< round-level values, Welch t (one run per side)
  kSamplesHodgesLehmann,  ///< pooled samples, HL shift + Moses CI + U test (no rounds)
  kThresholdOnly,      ///< a single value per side: the ratio alone, no test
  kPairedRounds,       ///< interleaved A/B: per-round log ratios, signed-rank HL + Walsh interval
  kReportedNoise,      ///< one summary value per side with the producer's own noise (nvbench, gbench aggregates)
  /// One summary per run and side without a within-run error (a kernel's
  /// median per call): the log ratio, se 0 until the noise between runs that
  /// the family's other comparisons show is added (docs/kernels.md).
  kRunSummaries,
};

/// A shift of log(value) current minus baseline with its uncertainty.
struct LogShift {
  ShiftMethod method = ShiftMethod::kThresholdOnly;
  double estimate = 0;   ///< log ratio current / baseline
  double se = 0;         ///< standard error of `estimate` (inf when unknown)
  double df = 0;         ///< degrees of freedom of the t reference (inf = normal)
  double ci_low = 0, ci_high = 0;  ///< log scale, at `confidence`
  double confidence = 0.95;
  double p_value = 1;    ///< two-sided, H0: no shift; NaN for kThresholdOnly
  /// One-sided p-values from the same reference: H1 "current larger" and
  /// H1 "current smaller" (regressions are tested one-sided).
  double p_greater = 0.5, p_less = 0.5;
  /// A common speed factor of the runs was removed from `estimate`.
  bool common_factor_removed = false;
  /// ... from the history's runs, but the current runs' is unknown: their
  /// spread was added (WithUnknownRunFactor).
  bool current_factor_unknown = false;
  /// The interval uses a heavy-tailed reference (df capped below the
  /// nominal one, see WithReference() and docs/statistics.md 1g).
  bool heavy_tailed = false;
  /// Part of se^2 that is noise between runs (history or suite estimate);
  /// used to explain an inconclusive verdict.
  double between_run_var = 0;
  bool suite_noise_added = false;  ///< WithBetweenRunNoise() was applied
  /// Samples: the trimmed means' interval (Yuen) and the shift's (Moses)
  /// did not overlap, so the two samples differ by more than a shift and
  /// the interval covers both.
  bool shape_changed = false;
  /// One run per side and too few such comparisons in the family to estimate
  /// the noise between runs: the interval holds within-run noise only.
  bool between_run_unmeasured = false;
  /// The smallest one-sided p its test can give, whatever the shift: an
  /// exact rank test on few rounds or samples has one (2^-n for n paired
  /// rounds); 0 for a t reference. A regression needs p <= alpha (q/m for a
  /// lone change among m), which no shift reaches when p_floor > alpha.
  double p_floor = 0;
  /// Paired rounds judged on their trimmed mean (PairedRoundsTrimmed), not
  /// the signed-rank test.
  bool trimmed_t = false;
  /// Untied paired rounds of an exact signed-rank test (PairedRounds); 0
  /// otherwise. MinimumDetectableLog reads the test's discreteness from it.
  int exact_rank_n = 0;
  /// Paired rounds that all read the same ratio: no spread was measured (a
  /// timer coarser than any change), so the interval is unbounded.
  bool no_spread = false;
  /// Both sides' rounds (or samples, or every run of a history and the
  /// current runs) read one value each: a timer coarser than their scatter.
  /// Its interval is unbounded and p is 1 (NoSpreadMeasured), never a
  /// zero-width interval at p = 0 (one tick of a millisecond timer read
  /// +100% [+100%, +100%]). Cleared for metrics that are no timing
  /// (ExactWhenFlat).
  bool no_scatter = false;
  /// One run per side whose two sides read exactly the same values on a
  /// coarse clock (kernels of 100 us or less of a trace in whole
  /// microseconds with the same median call): a tie of the clock, no draw
  /// of the noise between runs. Left out of the estimates of that noise and
  /// of the reference's calibration. (A long kernel that ties is evidence:
  /// in a copy of a file it is what shows the edited kernels.)
  bool tied = false;
  /// The two sides' records differ though their summaries may read the same
  /// (a kernel whose median call is equal in two runs whose calls are not):
  /// the runs are not copies of one file. See MovedAtAll().
  bool records_differ = false;
  /// Run summaries of a trace's kernel on a coarse clock (kRunSummaries, or
  /// kHistoryPrediction through WithClockSteps()): half a step of each side's
  /// clock is in `se`, as `clock_var` (log scale).
  bool clock_limited = false;
  double clock_var = 0;
  /// The coarsest step of the clocks (seconds), and which sides are on one:
  /// bit 1 the baseline's, bit 2 the current's. For the sentence.
  double clock_step_s = 0, clock_step_min_s = 0;
  int clock_sides = 0;
  /// Of the `runs` summaries compared, how many are on a clock.
  int clock_runs = 0, runs = 0;
  /// ... and that half step is 0.5% of a summary or more: left out of the
  /// reference's calibration.
  bool clock_coarse = false;
  /// The "clock" is the grid the values themselves lie on (a side whose
  /// round medians or run levels tie while its values scatter), no trace's.
  bool clock_from_values = false;
  /// The levels compared are the rounds' Harrell-Davis medians: their
  /// sample medians tied on one value while the values scatter off any grid.
  bool levels_smoothed = false;
  int baseline_units = 0;  ///< rounds (or history runs) on the baseline side
  int current_units = 0;   ///< rounds on the current side
  int current_runs = 1;    ///< runs on the current side (confirmation re-runs add runs)
  double prior_df = 0;     ///< degrees of freedom borrowed from the suite (moderation)
  /// sqrt(1/n1 + 1/n2) for the n1 and n2 units (rounds or samples) behind
  /// `se`, so that se / unit_factor is the spread of one unit: a workload
  /// measured with fewer units has a larger se, not a larger spread. 0 when
  /// unknown (UnitSpread() then reads se itself).
  double unit_factor = 0;
};

/// Within-run spread of one unit (a round or a sample) of a one-run
/// comparison on the log scale: se / unit_factor, or se when unknown.
double UnitSpread(const LogShift& shift);

/// Human name of a method for sentences ("Welch t on round medians").
std::string Describe(const LogShift& shift);

/// Run-level value of the round log-medians (Kalibera & Jones' two-level
/// summary): their mean for one or two rounds, the one-sample Hodges-Lehmann
/// estimate (median of the Walsh averages) for 3 to 256, so one wild round
/// cannot move it; their median beyond. Precondition: at least one non-empty
/// round.
double RunLogLevel(const std::vector<std::vector<double>>& rounds);
/// The same centre of given round levels (logs), e.g. round means.
double RunLogLevelOf(std::vector<double> round_levels);

/// Unbiased sample variance; 0 for fewer than two values.
double SampleVariance(std::span<const double> values);

/// Welch t on round-level values (>= 2 per side). Between-round noise is the
/// error term; each side's variance is moderated with `prior` (Smyth 2004)
/// and gains its d0 degrees of freedom. Interval = estimate -/+ t_{df,(1+c)/2} se
/// and p from the same t, so p < 1 - c exactly when the interval excludes 0.
LogShift RoundsWelch(std::span<const double> baseline_rounds, std::span<const double> current_rounds,
                     double confidence, const VariancePrior& prior = {});

/// Current run(s) against a history of >= 2 run-level values (a two-sample t
/// on run-level values; with one current run this is the prediction
/// interval): d = mean(c) - mean(h), s^2 pooled over both with K + J - 2 df
/// and moderated with `prior`, se = s sqrt(1/K + 1/J). A run's value holds
/// between-run and within-run noise alike, so both enter s.
///
/// `current_var_scale` (>= 1) multiplies the current runs' share of the
/// variance: a current run measured on a noisier machine state than the
/// history's typical run (every workload scattered more around its level)
/// carries more noise than the history's variance says.
///
/// `history_var_scales` (empty, or one >= 1 per history run) do the same for
/// the history's runs: a run with scale r has variance r s^2, so it enters
/// with weight 1/r: the mean is weighted, the sum of squares is weighted,
/// and 1/K becomes 1/sum(w). One odd process in a history then no longer
/// widens every comparison (docs/statistics.md §1a).
LogShift HistoryPrediction(std::span<const double> history_runs,
                           std::span<const double> current_runs, int current_rounds,
                           double confidence, const VariancePrior& prior = {},
                           double current_var_scale = 1.0,
                           std::span<const double> history_var_scales = {});

/// Pooled within-group variance of history and current run levels and its df
/// (K + J - 2), the quantity HistoryPrediction() moderates; history runs
/// weighted by 1/`history_var_scales` when given.
double PooledRunVariance(std::span<const double> history_runs, std::span<const double> current_runs,
                         double* df, std::span<const double> history_var_scales = {});

/// The weighted mean of history run levels (weights 1/`var_scales`, all 1
/// when empty) and the sum of their weights.
double WeightedRunMean(std::span<const double> runs, std::span<const double> var_scales,
                       double* weight_sum);

/// sum(w (x - mean_w)^2) of history run levels with weights 1/`var_scales`
/// (the plain sum of squares about the mean when empty).
double WeightedRunSumSquares(std::span<const double> runs, std::span<const double> var_scales);

/// HL shift of log-samples with its Moses interval and the U test p (exact
/// for small samples without ties). se is backed out of the interval width
/// for use in WithBetweenRunNoise().
LogShift SamplesHodgesLehmann(std::span<const double> baseline_log, std::span<const double> current_log,
                              double confidence);

/// Adds a between-run variance tau2 (estimated with `tau_df` degrees of
/// freedom) to a one-run-per-side estimate: se' = sqrt(se^2 + tau2), df by
/// Welch-Satterthwaite, interval and p recomputed from the same t.
LogShift WithBetweenRunNoise(const LogShift& shift, double tau2, double tau_df);

/// Paired rounds (interleaved A/B): `log_ratios[r]` = ln(head_r / base_r).
/// Wilcoxon signed-rank test, Hodges-Lehmann estimate and Walsh-average
/// interval (stats/signed_rank.h); se is backed out of the interval width.
/// Ratios on a grid (a coarse timer: 21/20 or 20/20) can leave the interval
/// narrower than one step of the grid, down to zero width, although the
/// shift may lie anywhere within half a step: it is then widened by half the
/// smallest step each side. Rounds that all agree are `no_spread`.
LogShift PairedRounds(std::span<const double> log_ratios, double confidence);

/// Paired rounds judged on their 20%-trimmed mean (TrimmedMean, a t
/// reference with h - 1 degrees of freedom), for a family where the exact
/// signed-rank test on so few rounds cannot give a p below q/m: 2^-n for n
/// rounds. `trimmed_t` is set; se infinite below 6 rounds, as PairedRounds.
/// Kept rounds that all agree (a coarse timer: 8 of 10 rounds one tick
/// slower) measure no spread a t could use: se is then infinite, and the
/// caller keeps the rank test (PairedRounds), which reads such rounds on
/// their grid. Never a zero-width interval.
LogShift PairedRoundsTrimmed(std::span<const double> log_ratios, double confidence);

/// Fewest paired rounds judged on their trimmed mean (g = 2, 5 degrees of
/// freedom): below, the rank test stays.
inline constexpr int kMinTrimmedRounds = 10;

/// One summary value per side with the noise its producer reported (relative
/// standard deviation `rel_sd` over `n` samples): Welch t on the log means,
/// sigma_log = sqrt(ln(1 + rel_sd^2)) (lognormal), se^2 = sb^2/nb + sc^2/nc,
/// Satterthwaite df. Within-run noise only, like RoundsWelch: suite-level
/// between-run noise applies on top.
LogShift ReportedNoise(double log_base, double rel_sd_base, double n_base, double log_current,
                       double rel_sd_current, double n_current, double confidence);

/// Fewest paired rounds for a 95% Walsh interval (2^-5 = 0.031 > 0.025).
inline constexpr int kMinPairedRounds = 6;

/// Fewest paired rounds whose exact signed-rank test can give an interval at
/// `confidence`: the smallest n with 2 * 2^-n <= 1 - confidence, and never
/// fewer than kMinPairedRounds (8 at 99%, 11 at 99.9%). Rounds that read no
/// change or tie lower what the test has, so more may be needed.
int MinPairedRounds(double confidence);

/// The same shift with se multiplied by `scale` (>= 1) and the reference's
/// degrees of freedom capped at `max_df`; interval and p recomputed.
LogShift WithReference(const LogShift& shift, double scale, double max_df);

/// Minimum detectable effect on the log scale: the true shift that the
/// regression test passes with probability `power` under the shift's own
/// reference. A regression needs both the lower end of the interval above
/// `log_limit` and a one-sided p at most `alpha` (the false-discovery
/// adjustment's bar for this hypothesis: q/m when it is the only change among
/// m), so the bar is the larger of log_limit + t_{(1+c)/2} se and
/// t_{1-alpha} se, and the MDE that bar plus t_power se. `alpha` <= 0 leaves
/// the p-value out (the interval alone). Infinity when se is not finite, and
/// when the shift's test cannot give a p below alpha (p_floor > alpha).
double MinimumDetectableLog(const LogShift& shift, double log_limit, double power = 0.9,
                            double alpha = 0.0);

/// Whether `shifts` hold enough comparisons to show the noise between the
/// runs (kMinSuiteForNoise that take it; clock ties left out unless at most
/// one other comparison moved): without them EstimateSuiteBetweenRunVariance
/// reads 0, which is "unmeasured", not "none".
bool SuiteCanShowNoise(std::span<const LogShift> shifts);

/// Between-run variance tau^2 for a family of one-run-per-side estimates
/// (one per workload): the smallest tau^2 >= 0 for which the standardized
/// effects (d_i - median d) / sqrt(se_i^2 + tau^2) have the spread their t
/// reference predicts (MAD = t_{0.75, df}). Median and MAD keep real
/// regressions (a minority) from inflating it. Read twice, the larger kept:
/// every effect counted alike, and each weighed by tau^2 / (se_i^2 + tau^2)
/// (a workload whose rounds scatter far more than the runs differ shows
/// nothing of tau). Returns 0 for fewer than kMinSuiteForNoise estimates.
/// `tau_df` receives ~0.37 (m - 1), the degrees of freedom of a MAD-based
/// variance from m values (Kish's effective m for the weighted reading).
double EstimateSuiteBetweenRunVariance(std::span<const LogShift> shifts, double* tau_df,
                                       double quantile = 0.5);

/// Overdispersion of the same family per unit of within-run variance: the
/// kappa for which the effects (d_i - median d) / (sqrt(kappa) u_i), u_i =
/// UnitSpread(), have the median absolute deviation their t reference
/// predicts (a quasi-likelihood dispersion, McCullagh & Nelder 1989,
/// estimated robustly). It models noise between runs that grows with a
/// workload's own scatter (a noisy benchmark also shifts most between
/// processes), where EstimateSuiteBetweenRunVariance() models the part common
/// to all: workload i's comparison needs variance kappa u_i^2 where its se^2
/// is smaller. Read per unit, not per se, so a workload measured with fewer
/// samples is not taken for a noisier one. With equal unit counts this is
/// the classic phi = kappa u^2 / se^2. Returns 0 for fewer than
/// kMinSuiteForNoise estimates; `df` as for tau^2.
double EstimateSuiteOverdispersion(std::span<const LogShift> shifts, double* df,
                                   double quantile = 0.5);

/// Fewest one-run-per-side comparisons from which a suite-level between-run
/// variance is estimated. With 3 the estimate has ~1 degree of freedom, so it
/// widens intervals a lot when the effects disagree, and not at all when they
/// agree with their standard errors.
inline constexpr int kMinSuiteForNoise = 3;

/// A kRunSummaries shift: estimate = log_current - log_base; se the
/// summaries' clock steps (`clock_var`, log scale), else 0, until
/// WithBetweenRunNoise() adds the family's noise between runs.
LogShift RunSummaries(double log_base, double log_current, double confidence, double clock_var = 0);

/// Adds the variance `clock_var` (log scale) of run summaries read on a
/// coarse clock to a history's shift: half a step of each side's clock,
/// which the runs' own spread does not show when every run reads the same
/// step (a 2 us kernel at 2 us in ten runs and 3 us in the current one is
/// not +50% [+50%, +50%]). The clock's part is a bound, not an estimate:
/// infinite degrees of freedom in the Welch-Satterthwaite df. Applied after
/// the reference's calibration, which scales the runs' noise, not the clock.
LogShift WithClockSteps(const LogShift& shift, double clock_var);

/// `shift` of a workload whose current runs have no speed factor (runs of
/// too few of the family's workloads) against a history whose factors were
/// removed: the current runs' unknown factor is one more draw of the
/// history's factors, whose variance `factor_var` (from `factor_df` degrees
/// of freedom) joins se^2 (Welch-Satterthwaite df).
LogShift WithUnknownRunFactor(const LogShift& shift, double factor_var, double factor_df);

/// A clock step for sentences: "1 us", "10 us", "100 us", "1 ms". (A grid
/// step of values that are no time reads as FormatValueInUnit(step, "").)
std::string ClockStepText(double step_s);

/// Whether a shift is a one-run-per-side estimate that suite-level
/// between-run noise applies to (finite, Welch on rounds, HL on samples,
/// reported noise or run summaries).
bool TakesSuiteNoise(const LogShift& shift);

/// A timing whose values each read one value (no_scatter): its interval is
/// unbounded, p is 1, its MDE infinite, whatever spread the suite's other
/// workloads would lend it (their scatter says nothing of a reading that a
/// coarse timer quantized: one tick of a 1 ms timer read +100% [+98.7%,
/// +101.3%] beside benchmarks that scatter by 1%), and it takes no noise
/// between runs (TakesSuiteNoise). A kernel on a trace's known clock is
/// not: half a step of that clock is its spread (clock_var, WithClockSteps).
/// Spreads below a billionth (log scale)
/// are rounding, not noise: removing each run's speed factor leaves
/// differences of 1e-16 between values that were one.
bool NoSpreadMeasured(const LogShift& shift);

/// The shift with its flat values read as exact (a count or a size, no
/// timing): no_scatter cleared and the interval and p filled from se.
LogShift ExactWhenFlat(LogShift shift);

/// Whether a one-run comparison that takes the suite's noise is no clock tie
/// and shows two runs rather than a copy of one file: its estimate moved,
/// or its records differ. Where two or more of a family's comparisons did,
/// its clock ties are left out of the noise estimates (TiesLeftOut()).
bool MovedAtAll(const LogShift& shift);
inline bool TiesLeftOut(size_t moved_at_all) { return moved_at_all >= 2; }

}  // namespace gpugate
