// Shift estimators for compare. Methods cited in estimate.h.
#include "compare/estimate.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numbers>
#include <numeric>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "stats/distributions.h"
#include "stats/hodges_lehmann.h"
#include "stats/mann_whitney.h"
#include "stats/trimmed.h"
#include "stats/signed_rank.h"
#include "stats/summary.h"
#include "util/result.h"
#include "util/text/format.h"

namespace gpugate {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

double Mean(std::span<const double> v) {
  return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

double SumSquares(std::span<const double> v) {
  if (v.empty()) return 0.0;
  // Values that are all one read exactly 0 (their mean, a sum divided,
  // can differ from them in the last bit).
  if (std::adjacent_find(v.begin(), v.end(), std::not_equal_to<>()) == v.end()) return 0.0;
  double m = Mean(v);
  double s = 0;
  for (double x : v) s += (x - m) * (x - m);
  return s;
}

// Variance (log scale) below which values that were one read as one: the
// rounding a removed speed factor leaves is about 1e-32.
constexpr double kFlatLogVariance = 1e-18;
// The same as a standard error: a billionth.
constexpr double kFlatLogSe = 1e-9;

bool IsFlat(std::span<const double> v) {
  if (v.empty()) return true;
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  return *hi - *lo <= kFlatLogSe;
}

// Fills interval and p from estimate, se and df (t reference).
void FillFromT(LogShift* s) {
  s->p_floor = 0;  // a t reference reaches any p
  s->exact_rank_n = 0;
  if (NoSpreadMeasured(*s)) {  // a coarse timer, nothing else: nothing can be said
    s->ci_low = -kInf;
    s->ci_high = kInf;
    s->p_value = 1.0;
    s->p_greater = s->p_less = 1.0;
    return;
  }
  if (!(s->se > 0)) {  // no spread at all: the shift is exact
    s->ci_low = s->ci_high = s->estimate;
    s->p_value = s->estimate == 0 ? 1.0 : 0.0;
    s->p_greater = s->estimate > 0 ? 0.0 : 1.0;
    s->p_less = s->estimate < 0 ? 0.0 : 1.0;
    return;
  }
  if (std::isinf(s->se)) {
    s->ci_low = -kInf;
    s->ci_high = kInf;
    s->p_value = 1.0;
    s->p_greater = s->p_less = 1.0;
    return;
  }
  double t = StudentTQuantile(0.5 + s->confidence / 2.0, s->df);
  s->ci_low = s->estimate - t * s->se;
  s->ci_high = s->estimate + t * s->se;
  const double z = s->estimate / s->se;
  s->p_value = StudentTTwoSidedP(z, s->df);
  s->p_less = StudentTCdf(z, s->df);
  s->p_greater = StudentTCdf(-z, s->df);
}

// One-sided p-values from a two-sided one for a symmetric reference.
void OneSidedFromTwoSided(LogShift* s) {
  const double half = s->p_value / 2.0;
  s->p_greater = s->estimate > 0 ? half : 1.0 - half;
  s->p_less = s->estimate < 0 ? half : 1.0 - half;
  if (s->estimate == 0) s->p_greater = s->p_less = std::min(1.0, 0.5 + half);
}

}  // namespace

double SampleVariance(std::span<const double> values) {
  if (values.size() < 2) return 0.0;
  return SumSquares(values) / static_cast<double>(values.size() - 1);
}

std::string ClockStepText(double step_s) {
  for (const auto& [step, text] : {std::pair{1e-3, "1 ms"}, std::pair{1e-4, "100 us"},
                                   std::pair{1e-5, "10 us"}, std::pair{1e-6, "1 us"}})
    if (std::fabs(step_s - step) <= 1e-9 * step) return text;
  return FormatDuration(step_s);
}

namespace {

// ", and half a step of the trace's clock (1 us) on each side" / "on the
// baseline's side" / "on the current side" / "in each run" / "in 5 of the
// 11 runs".
std::string ClockText(const LogShift& shift) {
  if (shift.clock_from_values)  // the grid of the values, on the sides whose levels tie
    return ", and the rounding to the step of the timer its values are read on (" + ClockStepText(shift.clock_step_s) +
           ") " +
           (shift.clock_sides == 1   ? "on the baseline's side"
            : shift.clock_sides == 2 ? "on the current side"
                                     : "on each side");
  std::string where;
  if (shift.method == ShiftMethod::kHistoryPrediction && shift.clock_runs < shift.runs)
    where = "in " + std::to_string(shift.clock_runs) + " of the " + std::to_string(shift.runs) + " runs";
  else
    where = shift.clock_sides == 1   ? "on the baseline's side"
            : shift.clock_sides == 2 ? "on the current side"
            : shift.method == ShiftMethod::kHistoryPrediction
                ? "in each run"
                : "on each side";
  const bool steps_differ = shift.clock_step_min_s > 0 && shift.clock_step_min_s < shift.clock_step_s;
  return ", and half a step of the trace's clock (" +
         (steps_differ ? ClockStepText(shift.clock_step_min_s) + " to " : std::string()) +
         ClockStepText(shift.clock_step_s) + ") " + where;
}

}  // namespace

std::string Describe(const LogShift& shift) {
  std::string s;
  switch (shift.method) {
    case ShiftMethod::kHistoryPrediction:
      s = "t test on run-level values, " + std::to_string(shift.current_runs) + " current run" +
          (shift.current_runs == 1 ? "" : "s") + " vs a history of " +
          std::to_string(shift.baseline_units) + " runs";
      if (shift.levels_smoothed)
        s += " (each run read by its rounds' Harrell-Davis medians: their sample medians tie on one value)";
      if (shift.clock_limited) s += ClockText(shift);
      break;
    case ShiftMethod::kRoundsWelch:
      s = "Welch t on " + std::to_string(shift.baseline_units) + " vs " +
          std::to_string(shift.current_units) +
          (shift.levels_smoothed ? " round Harrell-Davis medians (the sample medians tie on one value)"
                                 : " round medians");
      if (shift.clock_limited) s += ClockText(shift);
      break;
    case ShiftMethod::kSamplesHodgesLehmann:
      s = "Hodges-Lehmann shift, Moses interval and Mann-Whitney U on samples";
      break;
    case ShiftMethod::kThresholdOnly:
      return "single value per side: threshold only, no test";
    case ShiftMethod::kReportedNoise:
      s = "Welch t on the two reported values and their reported noise (" +
          std::to_string(shift.baseline_units) + " vs " + std::to_string(shift.current_units) +
          " samples)";
      break;
    case ShiftMethod::kRunSummaries:
      s = "one summary per run and side, noise between runs from the other comparisons of the family";
      if (shift.clock_limited) s += ClockText(shift);
      break;
    case ShiftMethod::kPairedRounds:
      s = shift.trimmed_t
              ? "20%-trimmed mean t on " + std::to_string(shift.current_units) +
                    " paired rounds (interleaved A/B; the signed-rank test cannot give a p this "
                    "family's size needs from so few rounds)"
              : "Wilcoxon signed-rank on " + std::to_string(shift.current_units) +
                    " paired rounds (interleaved A/B), Hodges-Lehmann estimate";
      break;
  }
  if (shift.common_factor_removed)
    s += shift.current_factor_unknown
             ? ", run speed factors removed from the history (its current run repeats too few of the "
               "first run's workloads to read its own speed, so the history's spread of run speeds is "
               "added, with the tails of one draw)"
             : ", run speed factor removed";
  if (shift.heavy_tailed) s += ", heavy-tailed reference";
  if (shift.prior_df > 0) s += ", variance moderated across the suite";
  if (shift.shape_changed)
    s += "; the trimmed means (Yuen) moved outside the shift's interval, so the samples differ "
         "by more than a shift and the interval covers both";
  if (shift.suite_noise_added) s += " + between-run noise estimated across the suite";
  return s;
}

double RunLogLevel(const std::vector<std::vector<double>>& rounds) {
  return RunLogLevelOf(RoundLogMedians(rounds));
}

double RunLogLevelOf(std::vector<double> m) {
  GPUGATE_CHECK(!m.empty());
  if (m.size() <= 2) return Mean(m);
  // Beyond 256 rounds (33,000 averages) the median of the rounds: that many
  // rounds pin the run's level far below its noise between runs.
  if (m.size() > 256) return MedianInPlace(m);
  // The one-sample Hodges-Lehmann estimate: as efficient as the mean on
  // normal rounds (95%) and robust to a wild round: a Google Benchmark
  // repetition 50 times slower than its four siblings (a first-touch stall)
  // moved the mean of five rounds by a factor 2.2 and made a +110%
  // "regression" against a history.
  return HodgesLehmannCentre(m);
}

LogShift RoundsWelch(std::span<const double> baseline_rounds, std::span<const double> current_rounds,
                     double confidence, const VariancePrior& prior) {
  GPUGATE_CHECK(baseline_rounds.size() >= 2 && current_rounds.size() >= 2);
  LogShift s;
  s.method = ShiftMethod::kRoundsWelch;
  s.confidence = confidence;
  s.baseline_units = static_cast<int>(baseline_rounds.size());
  s.current_units = static_cast<int>(current_rounds.size());
  const double n1 = static_cast<double>(baseline_rounds.size());
  const double n2 = static_cast<double>(current_rounds.size());
  const double v1 = SampleVariance(baseline_rounds), v2 = SampleVariance(current_rounds);
  // A side whose own scatter the prior cannot have produced keeps it.
  const VariancePrior p1 = PriorFor(prior, v1, n1 - 1), p2 = PriorFor(prior, v2, n2 - 1);
  const double df1 = n1 - 1 + p1.d0, df2 = n2 - 1 + p2.d0;
  s.prior_df = std::max(p1.d0, p2.d0);
  double a = ModerateVariance(p1, v1, n1 - 1) / n1;
  double b = ModerateVariance(p2, v2, n2 - 1) / n2;
  s.estimate = Mean(current_rounds) - Mean(baseline_rounds);
  s.se = std::sqrt(a + b);
  // Welch-Satterthwaite; when one side has no spread its term drops out.
  double denom = (a > 0 ? a * a / df1 : 0.0) + (b > 0 ? b * b / df2 : 0.0);
  s.df = denom > 0 ? (a + b) * (a + b) / denom : df1 + df2;
  s.unit_factor = std::sqrt(1.0 / n1 + 1.0 / n2);
  s.no_scatter = v1 <= kFlatLogVariance && v2 <= kFlatLogVariance;
  FillFromT(&s);
  return s;
}

double WeightedRunMean(std::span<const double> runs, std::span<const double> var_scales,
                       double* weight_sum) {
  GPUGATE_CHECK(var_scales.empty() || var_scales.size() == runs.size());
  double sw = 0, swx = 0;
  for (size_t i = 0; i < runs.size(); ++i) {
    const double w = var_scales.empty() ? 1.0 : 1.0 / std::max(1.0, var_scales[i]);
    sw += w;
    swx += w * runs[i];
  }
  if (weight_sum) *weight_sum = sw;
  return sw > 0 ? swx / sw : 0.0;
}

double WeightedRunSumSquares(std::span<const double> runs, std::span<const double> var_scales) {
  if (var_scales.empty()) return SumSquares(runs);
  const double mean = WeightedRunMean(runs, var_scales, nullptr);
  double ss = 0;
  for (size_t i = 0; i < runs.size(); ++i) {
    const double r = runs[i] - mean;
    ss += r * r / std::max(1.0, var_scales[i]);
  }
  return ss;
}

double PooledRunVariance(std::span<const double> history_runs, std::span<const double> current_runs,
                         double* df, std::span<const double> history_var_scales) {
  double d = static_cast<double>(history_runs.size() + current_runs.size()) - 2.0;
  if (df) *df = d;
  if (d < 1) return 0.0;
  return (WeightedRunSumSquares(history_runs, history_var_scales) + SumSquares(current_runs)) / d;
}

LogShift HistoryPrediction(std::span<const double> history_runs,
                           std::span<const double> current_runs, int current_rounds,
                           double confidence, const VariancePrior& prior,
                           double current_var_scale, std::span<const double> history_var_scales) {
  GPUGATE_CHECK(history_runs.size() >= 2 && !current_runs.empty());
  LogShift s;
  s.method = ShiftMethod::kHistoryPrediction;
  s.confidence = confidence;
  s.baseline_units = static_cast<int>(history_runs.size());
  s.current_units = current_rounds;
  s.current_runs = static_cast<int>(current_runs.size());
  const double j = static_cast<double>(current_runs.size());
  double df = 0;
  // Two statements: the pooled variance sets df, which must be read after.
  const double pooled = PooledRunVariance(history_runs, current_runs, &df, history_var_scales);
  const VariancePrior own = PriorFor(prior, pooled, df);
  s.prior_df = own.d0;
  double var = ModerateVariance(own, pooled, df);
  double weight_sum = 0;
  const double history_mean = WeightedRunMean(history_runs, history_var_scales, &weight_sum);
  s.estimate = Mean(current_runs) - history_mean;
  s.se = std::sqrt(var * (1.0 / weight_sum + std::max(1.0, current_var_scale) / j));
  s.df = df + own.d0;
  s.between_run_var = s.se * s.se;
  s.no_scatter = pooled <= kFlatLogVariance;
  FillFromT(&s);
  return s;
}

LogShift SamplesHodgesLehmann(std::span<const double> baseline_log, std::span<const double> current_log,
                              double confidence) {
  LogShift s;
  s.method = ShiftMethod::kSamplesHodgesLehmann;
  s.confidence = confidence;
  s.baseline_units = 1;
  s.current_units = 1;
  ShiftEstimate hl = HodgesLehmannShift(baseline_log, current_log, confidence);
  s.estimate = hl.shift;
  s.ci_low = hl.ci_low;
  s.ci_high = hl.ci_high;
  s.df = kInf;
  double z = NormalQuantile(0.5 + confidence / 2.0);
  s.se = std::isfinite(hl.ci_low) && std::isfinite(hl.ci_high)
             ? (hl.ci_high - hl.ci_low) / (2.0 * z)
             : kInf;
  const MannWhitneyResult mw = MannWhitneyU(current_log, baseline_log);
  s.p_value = mw.p_value;
  if (!baseline_log.empty() && !current_log.empty()) {
    // Every current sample above every baseline one: 1 / C(n1 + n2, n1)
    // exactly, or the normal approximation's p at U = n1 n2.
    const double n1 = static_cast<double>(baseline_log.size()), n2 = static_cast<double>(current_log.size());
    if (mw.exact) {
      s.p_floor = std::exp(std::lgamma(n1 + 1) + std::lgamma(n2 + 1) - std::lgamma(n1 + n2 + 1));
    } else {
      const double sigma = std::sqrt(n1 * n2 * (n1 + n2 + 1) / 12.0);
      s.p_floor = 0.5 * std::erfc((n1 * n2 / 2.0 - 0.5) / sigma / std::sqrt(2.0));
    }
  }
  if (!baseline_log.empty() && !current_log.empty())
    s.unit_factor = std::sqrt(1.0 / static_cast<double>(baseline_log.size()) +
                              1.0 / static_cast<double>(current_log.size()));
  // The shift model read against trimmed means: when most samples tie (a
  // timer in whole microseconds) or a mode grew, the median of pairwise
  // differences can stay at exactly 0 while the distribution moved. Two
  // intervals that do not overlap say the samples differ by more than a
  // shift: the interval covers both, and no "unchanged" rests on one.
  if (std::isfinite(s.ci_low) && std::isfinite(s.ci_high)) {
    const TrimmedShift y = YuenTrimmedShift(baseline_log, current_log, confidence);
    if (y.valid && (y.ci_low > s.ci_high || y.ci_high < s.ci_low)) {
      s.shape_changed = true;
      s.ci_low = std::min(s.ci_low, y.ci_low);
      s.ci_high = std::max(s.ci_high, y.ci_high);
      // Later widenings re-centre the interval on the estimate: the larger
      // side keeps both intervals inside it.
      s.se = std::max(s.estimate - s.ci_low, s.ci_high - s.estimate) / z;
    }
  }
  OneSidedFromTwoSided(&s);
  // Every sample of each side reads one value (a coarse timer): no
  // zero-width interval at a rank test's p (FillFromT says the same).
  if (!baseline_log.empty() && !current_log.empty() && IsFlat(baseline_log) && IsFlat(current_log)) {
    s.no_scatter = true;
    s.se = 0;
    FillFromT(&s);
    return s;
  }
  // A shift of exactly 0 has no direction; the U statistic has one.
  if (s.estimate == 0 && !baseline_log.empty() && !current_log.empty()) {
    const double center = static_cast<double>(baseline_log.size()) * static_cast<double>(current_log.size()) / 2.0;
    const double half = s.p_value / 2.0;
    if (mw.u > center) {
      s.p_greater = half;
      s.p_less = 1.0 - half;
    } else if (mw.u < center) {
      s.p_less = half;
      s.p_greater = 1.0 - half;
    }
  }
  return s;
}

int MinPairedRounds(double confidence) {
  const double alpha = 1.0 - confidence;
  int n = kMinPairedRounds;
  // 2^(1-n) <= alpha; the bound keeps a confidence of 1 (refused by the
  // policy) from looping.
  while (n < 1000 && std::ldexp(1.0, 1 - n) > alpha * (1 + 1e-12)) ++n;
  return n;
}

LogShift PairedRounds(std::span<const double> log_ratios, double confidence) {
  LogShift s;
  s.method = ShiftMethod::kPairedRounds;
  s.confidence = confidence;
  s.baseline_units = s.current_units = static_cast<int>(log_ratios.size());
  SignedRankResult w = WilcoxonSignedRank(log_ratios, confidence);
  s.estimate = w.estimate;
  s.df = kInf;
  s.p_value = w.p_value;
  s.p_floor = w.p_floor;
  if (w.exact) s.exact_rank_n = static_cast<int>(w.n);
  std::vector<double> grid(log_ratios.begin(), log_ratios.end());
  std::sort(grid.begin(), grid.end());
  grid.erase(std::unique(grid.begin(), grid.end()), grid.end());
  s.no_spread = !grid.empty() && grid.size() == 1 && static_cast<int>(log_ratios.size()) >= kMinPairedRounds;
  // An interval the exact test cannot give at this level (too few rounds) is
  // none: the full range of Walsh averages covers less than the level it
  // would be labelled with.
  const bool reaches = static_cast<int>(log_ratios.size()) >= MinPairedRounds(confidence) &&
                       w.achieved_confidence >= confidence - 1e-9;
  if (!reaches || s.no_spread) {
    s.ci_low = -kInf;
    s.ci_high = kInf;
    s.se = kInf;
  } else {
    s.ci_low = w.ci_low;
    s.ci_high = w.ci_high;
    double step = kInf;
    for (size_t i = 1; i < grid.size(); ++i) step = std::min(step, grid[i] - grid[i - 1]);
    if (s.ci_high - s.ci_low < step) {
      s.ci_low -= step / 2;
      s.ci_high += step / 2;
    }
    const double z = NormalQuantile(0.5 + confidence / 2.0);
    s.se = (s.ci_high - s.ci_low) / (2.0 * z);
  }
  OneSidedFromTwoSided(&s);
  return s;
}

LogShift PairedRoundsTrimmed(std::span<const double> log_ratios, double confidence) {
  LogShift s;
  s.method = ShiftMethod::kPairedRounds;
  s.trimmed_t = true;
  s.confidence = confidence;
  s.baseline_units = s.current_units = static_cast<int>(log_ratios.size());
  const TrimmedShift t = TrimmedMean(log_ratios, confidence);
  s.estimate = t.valid ? t.shift : 0.0;
  s.se = kInf;
  s.df = kInf;
  if (t.valid && static_cast<int>(log_ratios.size()) >= kMinPairedRounds) {
    s.se = t.se;
    s.df = t.df;
    // The kept rounds agree exactly (a coarse timer): a t on them would
    // read a 1-tick difference in 8 of 10 rounds as p = 2e-5.
    if (!(t.se > 0)) s.se = s.df = kInf;
  }
  FillFromT(&s);
  return s;
}

LogShift ReportedNoise(double log_base, double rel_sd_base, double n_base, double log_current,
                       double rel_sd_current, double n_current, double confidence) {
  GPUGATE_CHECK(n_base >= 2 && n_current >= 2);
  LogShift s;
  s.method = ShiftMethod::kReportedNoise;
  s.confidence = confidence;
  s.baseline_units = static_cast<int>(n_base);
  s.current_units = static_cast<int>(n_current);
  const double vb = std::log1p(rel_sd_base * rel_sd_base);
  const double vc = std::log1p(rel_sd_current * rel_sd_current);
  const double a = vb / n_base, b = vc / n_current;
  s.estimate = log_current - log_base;
  s.se = std::sqrt(a + b);
  const double denom = (a > 0 ? a * a / (n_base - 1) : 0.0) + (b > 0 ? b * b / (n_current - 1) : 0.0);
  s.df = denom > 0 ? (a + b) * (a + b) / denom : n_base + n_current - 2;
  s.unit_factor = std::sqrt(1.0 / n_base + 1.0 / n_current);
  FillFromT(&s);
  return s;
}

double UnitSpread(const LogShift& shift) {
  // A summary's clock step is no spread of its own that noise could scale
  // with: without it a run summary has none.
  if (shift.method == ShiftMethod::kRunSummaries) return 0;
  // Nor is a timer's rounding (WithClockSteps): noise that grows with a
  // workload's spread grows with its measured scatter, and scaling the
  // rounding of a 20-tick timing by the suite's overdispersion made its
  // interval +-45% and hid +50% (caught 16 times in 60).
  const double measured =
      shift.clock_limited ? std::sqrt(std::max(0.0, shift.se * shift.se - shift.clock_var)) : shift.se;
  return shift.unit_factor > 0 ? measured / shift.unit_factor : measured;
}

LogShift WithReference(const LogShift& shift, double scale, double max_df) {
  if (!std::isfinite(shift.se) || !(shift.se > 0) || shift.method == ShiftMethod::kThresholdOnly)
    return shift;
  LogShift s = shift;
  if (scale > 1.0) {
    s.se *= scale;
    s.between_run_var = std::max(s.between_run_var, s.se * s.se - shift.se * shift.se);
  }
  s.df = std::min(s.df, max_df);
  FillFromT(&s);
  return s;
}

namespace {

// The exact signed-rank test on n rounds rejects (W+ >= c at level alpha)
// only when few rounds point the other way: the k negative rounds' ranks sum
// to at least k (k + 1) / 2, so k (k + 1) / 2 <= M - c with M = n (n + 1) / 2.
// Under a shift delta with round scatter sigma a round is negative with
// probability Phi(-delta / sigma), so the test's power is at most
// P(Bin(n, Phi(-delta / sigma)) <= k_max): the shift below which even that
// bound stays under `power`. Near the test's floor (11 rounds against
// 0.01 / 12: only "every round slower" rejects) it needs 2.35 sigma where the
// t reference said 1.36 sigma. Infinity when no W+ rejects.
double SignedRankPowerBound(int n, double sigma, double alpha, double power) {
  const std::vector<double> counts = SignedRankCounts(n);
  const double total = std::ldexp(1.0, n);
  const int m = n * (n + 1) / 2;
  int c = m + 1;
  double tail = 0;
  for (int w = m; w >= 0; --w) {
    if ((tail + counts[static_cast<size_t>(w)]) / total > alpha) break;
    tail += counts[static_cast<size_t>(w)];
    c = w;
  }
  if (c > m) return kInf;
  int k_max = 0;
  while ((k_max + 1) * (k_max + 2) / 2 <= m - c) ++k_max;
  auto at_most = [&](double p) {  // P(Bin(n, p) <= k_max)
    double sum = 0, term = std::pow(1.0 - p, n);  // k = 0
    for (int k = 0; k <= k_max && k <= n; ++k) {
      sum += term;
      term *= (p / (1.0 - p)) * static_cast<double>(n - k) / static_cast<double>(k + 1);
    }
    return sum;
  };
  double lo = 0, hi = 40;
  if (at_most(NormalCdf(-hi)) < power) return kInf;
  for (int i = 0; i < 80; ++i) {
    const double mid = 0.5 * (lo + hi);
    (at_most(NormalCdf(-mid)) >= power ? hi : lo) = mid;
  }
  return hi * sigma;
}

}  // namespace

double MinimumDetectableLog(const LogShift& shift, double log_limit, double power, double alpha) {
  if (!std::isfinite(shift.se) || shift.method == ShiftMethod::kThresholdOnly) return kInf;
  if (NoSpreadMeasured(shift)) return kInf;  // a coarse timer: sees nothing
  // A rank test on too few rounds cannot reach the bar, whatever the shift.
  if (alpha > 0 && shift.p_floor > alpha) return kInf;
  const double df = shift.df > 0 ? shift.df : kInf;
  double bar = log_limit + StudentTQuantile(0.5 + shift.confidence / 2.0, df) * shift.se;
  if (alpha > 0 && alpha < 0.5) bar = std::max(bar, StudentTQuantile(1.0 - alpha, df) * shift.se);
  double mde = bar + StudentTQuantile(power, df) * shift.se;
  // An exact signed-rank test is discrete: near its floor the t reference
  // promises more than it can do. Its round scatter from se (the
  // Hodges-Lehmann estimate's se is sigma sqrt(pi / (3 n)) on normal rounds).
  if (alpha > 0 && shift.exact_rank_n > 0 && shift.exact_rank_n <= 50 && shift.se > 0) {
    const double n = static_cast<double>(shift.exact_rank_n);
    const double sigma = shift.se * std::sqrt(3.0 * n / std::numbers::pi);
    mde = std::max(mde, SignedRankPowerBound(shift.exact_rank_n, sigma, alpha, power));
  }
  return mde;
}

LogShift WithBetweenRunNoise(const LogShift& shift, double tau2, double tau_df) {
  if (!(tau2 > 0) || shift.method == ShiftMethod::kThresholdOnly ||
      shift.method == ShiftMethod::kHistoryPrediction)
    return shift;
  LogShift s = shift;
  s.suite_noise_added = true;
  double w = shift.se * shift.se;
  s.se = std::sqrt(w + tau2);
  s.between_run_var = tau2;
  // Welch-Satterthwaite for a sum of two variance estimates.
  double w_term = std::isinf(shift.df) ? 0.0 : w * w / shift.df;
  double t_term = tau2 * tau2 / std::max(1.0, tau_df);
  s.df = (w + tau2) * (w + tau2) / (w_term + t_term);
  FillFromT(&s);
  return s;
}

LogShift WithClockSteps(const LogShift& shift, double clock_var) {
  if (!(clock_var > 0) || !std::isfinite(shift.se) || shift.method == ShiftMethod::kThresholdOnly)
    return shift;
  LogShift s = shift;
  const double w = shift.se * shift.se;
  s.se = std::sqrt(w + clock_var);
  // Welch-Satterthwaite with the clock's term known exactly.
  s.df = w > 0 && std::isfinite(shift.df) ? (w + clock_var) * (w + clock_var) / (w * w / shift.df) : kInf;
  s.clock_limited = true;
  s.clock_var = clock_var;
  FillFromT(&s);
  return s;
}

LogShift WithUnknownRunFactor(const LogShift& shift, double factor_var, double factor_df) {
  if (!(factor_var > 0) || !(factor_df > 0) || !std::isfinite(shift.se) ||
      shift.method == ShiftMethod::kThresholdOnly)
    return shift;
  LogShift s = shift;
  const double w = shift.se * shift.se;
  const double total = w + factor_var;
  s.se = std::sqrt(total);
  const double w_part = w > 0 && std::isfinite(shift.df) ? w * w / shift.df : 0.0;
  s.df = total * total / (w_part + factor_var * factor_var / factor_df);
  s.between_run_var += factor_var;
  s.current_factor_unknown = true;
  FillFromT(&s);
  return s;
}

bool TakesSuiteNoise(const LogShift& s) {
  // A timing whose values each read one value is a tie of its timer, no
  // draw of the noise between runs, and nothing that noise could decide.
  return !NoSpreadMeasured(s) && std::isfinite(s.se) && std::isfinite(s.estimate) &&
         (s.method == ShiftMethod::kRoundsWelch || s.method == ShiftMethod::kSamplesHodgesLehmann ||
          s.method == ShiftMethod::kReportedNoise || s.method == ShiftMethod::kRunSummaries);
}

bool NoSpreadMeasured(const LogShift& s) { return s.no_scatter && !(s.clock_var > 0); }

LogShift ExactWhenFlat(LogShift s) {
  if (!s.no_scatter) return s;
  s.no_scatter = false;
  if (!(s.se > kFlatLogSe)) s.se = 0;  // the rounding of a removed factor is no spread
  FillFromT(&s);
  return s;
}

bool MovedAtAll(const LogShift& s) {
  return TakesSuiteNoise(s) && !s.tied && !s.clock_from_values && (s.estimate != 0.0 || s.records_differ);
}

LogShift RunSummaries(double log_base, double log_current, double confidence, double clock_var) {
  LogShift s;
  s.method = ShiftMethod::kRunSummaries;
  s.confidence = confidence;
  s.baseline_units = s.current_units = 1;
  s.estimate = log_current - log_base;
  s.se = clock_var > 0 ? std::sqrt(clock_var) : 0;
  s.clock_limited = clock_var > 0;
  s.clock_var = clock_var;
  s.df = kInf;
  FillFromT(&s);
  return s;
}

namespace {

// The smallest tau^2 >= `from` at which the (weighted) `quantile` of the
// standardized effects |d_i - center| / sqrt(se_i^2 + tau^2) falls to
// `target`: `from` itself when it already does. Weighted, each effect counts
// by the share of its variance that is noise between the runs,
// tau^2 / (se_i^2 + tau^2); unweighted, all count alike. `m_eff` receives
// Kish's effective number of effects at the result.
double SolveBetweenRunVariance(const std::vector<double>& d, const std::vector<double>& se,
                               double center, double target, double quantile, bool weighted,
                               double from, double* m_eff) {
  const size_t m = d.size();
  std::vector<double> w(m, 1.0);
  auto weigh = [&](double tau2) {
    if (!weighted) return;
    for (size_t i = 0; i < m; ++i) {
      const double v = se[i] * se[i];
      w[i] = v > 0 ? tau2 / (v + tau2) : 1.0;
    }
  };
  std::vector<std::pair<double, double>> zw(m);  // (|z|, weight)
  auto spread = [&](double tau2) {
    weigh(tau2);
    double total = 0;
    for (size_t i = 0; i < m; ++i) {
      zw[i] = {std::fabs(d[i] - center) / std::sqrt(se[i] * se[i] + tau2 + 1e-300), w[i]};
      total += w[i];
    }
    // The smallest |z| whose cumulative weight exceeds quantile * total: with
    // equal weights the element of rank floor(quantile * m), the upper median.
    if (!weighted) {
      const auto mid = zw.begin() + static_cast<std::ptrdiff_t>(
                                        std::min(m - 1, static_cast<size_t>(quantile * static_cast<double>(m))));
      std::nth_element(zw.begin(), mid, zw.end());
      return mid->first;
    }
    // Weighted selection by repeated partition: expected O(m).
    const double limit = quantile * total;
    auto lo = zw.begin(), hi = zw.end();
    double below = 0;  // weight of the elements before lo (all smaller)
    while (hi - lo > 1) {
      const auto mid = lo + (hi - lo) / 2;
      std::nth_element(lo, mid, hi);
      double left = below;
      for (auto it = lo; it != mid; ++it) left += it->second;
      if (left > limit) {
        hi = mid;
      } else if (left + mid->second > limit) {
        return mid->first;
      } else {
        below = left + mid->second;
        lo = mid + 1;
      }
    }
    if (lo != hi) return lo->first;
    return std::max_element(zw.begin(), zw.end())->first;  // rounding left no element above
  };
  // Weighted, tau^2 = 0 itself has no weights: start far below every se,
  // where they are proportional to 1 / se^2.
  double min_var = kInf;
  for (double x : se)
    if (x > 0) min_var = std::min(min_var, x * x);
  const double start =
      std::max(from, weighted ? (std::isfinite(min_var) ? 1e-9 * min_var : 1e-18) : 0.0);
  *m_eff = static_cast<double>(m);
  if (spread(start) <= target) return from;
  double lo = start, hi = std::max(1e-12, 4.0 * start);
  while (spread(hi) > target && hi < 1e6) hi *= 4.0;
  for (int iter = 0; iter < 100 && hi - lo > 1e-12 * hi; ++iter) {
    double mid = 0.5 * (lo + hi);
    if (spread(mid) > target) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  weigh(hi);
  double sw = 0, sw2 = 0;
  for (double x : w) {
    sw += x;
    sw2 += x * x;
  }
  if (sw2 > 0) *m_eff = sw * sw / sw2;
  return hi;
}

// The one-run effects of a family that take the suite's noise, their
// centre, and the `quantile` of |t| their reference predicts (for the median,
// the MAD of a t_df variable; 0.6745 for the normal).
struct SuiteEffects {
  std::vector<double> d, se, unit;  // unit: UnitSpread()
  double center = 0, target = 0;
};

std::optional<SuiteEffects> CollectSuiteEffects(std::span<const LogShift> shifts, double quantile) {
  SuiteEffects e;
  std::vector<double> dfs;
  // Ties of a coarse clock measure no noise between the runs: half the
  // kernels of a whole-microsecond trace reading the same put the median
  // effect, and with it the noise, at 0 (zero-width intervals for the rest).
  // Left out unless at most one other comparison moved at all: a 2 us
  // kernel that happened to tie beside two that moved 0.1% and 25% put the
  // noise at 0.1% and called a fourth kernel moving +193% between two runs
  // of one program a regression (and two ties beside two did the same);
  // left out, too few kernels remain to show the noise, and nothing is
  // judged. When everything else reads the same but one (one or two kernels
  // edited in a copy of a file: its long kernels' records are exactly alike
  // too), the ties are what the runs show. A long kernel whose median call
  // reads the same in two runs whose calls differ is no copy: it counts
  // as moved (MovedAtAll).
  size_t moved = 0;
  for (const LogShift& s : shifts) moved += MovedAtAll(s);
  const bool skip_ties = TiesLeftOut(moved);
  for (const LogShift& s : shifts)
    if (TakesSuiteNoise(s) && !(skip_ties && s.tied) && !s.clock_from_values) {
      e.d.push_back(s.estimate);
      e.se.push_back(s.se);
      e.unit.push_back(UnitSpread(s));
      dfs.push_back(std::isfinite(s.df) ? s.df : 1e6);
    }
  if (e.d.size() < static_cast<size_t>(kMinSuiteForNoise)) return std::nullopt;
  e.center = Median(e.d);
  e.target = StudentTQuantile(0.5 + quantile / 2.0, Median(dfs));
  return e;
}

}  // namespace

bool SuiteCanShowNoise(std::span<const LogShift> shifts) {
  return CollectSuiteEffects(shifts, 0.5).has_value();  // the quantile sets only the target
}

double EstimateSuiteBetweenRunVariance(std::span<const LogShift> shifts, double* tau_df,
                                       double quantile) {
  if (tau_df) *tau_df = 0;
  const std::optional<SuiteEffects> e = CollectSuiteEffects(shifts, quantile);
  if (!e) return 0.0;
  // Two readings of the same excess, the larger kept. All effects alike: the
  // workloads that jump between processes count fully, however noisy their
  // rounds. Each by what it can show: a workload whose rounds scatter far
  // more than the runs differ has the same |z| whatever tau is, and counted
  // alike such workloads would outvote the precise ones that do show how
  // far the runs differ (a suite of noisy benchmarks beside a few quiet ones
  // that moved 20-40% would get tau = 0).
  double m_all = 0, m_weighted = 0;
  const double all =
      SolveBetweenRunVariance(e->d, e->se, e->center, e->target, quantile, false, 0.0, &m_all);
  // Only a weighted reading above the unweighted one matters: searched from there.
  const double weighted =
      SolveBetweenRunVariance(e->d, e->se, e->center, e->target, quantile, true, all, &m_weighted);
  const double tau2 = std::max(all, weighted);
  if (!(tau2 > 0)) return 0.0;
  const double m_eff = weighted > all ? m_weighted : m_all;
  // Degrees of freedom of a MAD-based variance from m_eff values.
  if (tau_df) *tau_df = std::max(1.0, 0.37 * (m_eff - 1.0));
  return tau2;
}

double EstimateSuiteOverdispersion(std::span<const LogShift> shifts, double* df,
                                   double quantile) {
  if (df) *df = 0;
  const std::optional<SuiteEffects> e = CollectSuiteEffects(shifts, quantile);
  if (!e) return 0.0;
  const size_t m = e->d.size();
  std::vector<double> r(m);
  for (size_t i = 0; i < m; ++i) {
    const double dev = std::fabs(e->d[i] - e->center);
    r[i] = dev == 0 ? 0.0 : (e->unit[i] > 0 ? dev / e->unit[i] : kInf);
  }
  auto mid = r.begin() + static_cast<std::ptrdiff_t>(
                             std::min(m - 1, static_cast<size_t>(quantile * static_cast<double>(m))));
  std::nth_element(r.begin(), mid, r.end());
  const double ratio = *mid / e->target;
  if (!(ratio > 0.0) || !std::isfinite(ratio)) return 0.0;
  if (df) *df = std::max(1.0, 0.37 * static_cast<double>(m - 1));
  return ratio * ratio;
}

}  // namespace gpugate
