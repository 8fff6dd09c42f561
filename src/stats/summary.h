// Descriptive statistics over samples: quantiles, median, MAD, moments and a
// distribution-free confidence interval of the median. Pure functions.
#pragma once

#include <span>
#include <utility>
#include <vector>

#include "model/results.h"

namespace gpugate {

/// Quantile by linear interpolation between order statistics (Hyndman & Fan
/// 1996 type 7, the default of R and numpy). `sorted` must be ascending and
/// non-empty; q in [0, 1].
double QuantileSorted(std::span<const double> sorted, double q);

/// Median of unsorted values (copies). Precondition: non-empty.
double Median(std::span<const double> values);

/// Median absolute deviation from the median, unscaled (multiply by 1.4826
/// for a normal-consistent sigma). Precondition: non-empty.
double MedianAbsoluteDeviation(std::span<const double> values);

/// Distribution-free confidence interval for the median from order
/// statistics: the ranks come from the Binomial(n, 1/2) distribution
/// (Conover, Practical Nonparametric Statistics, 3rd ed., §3.2). For n < 6 the
/// interval is the sample range (no order-statistic interval reaches 95%).
/// `sorted` must be ascending and non-empty.
std::pair<double, double> MedianConfidenceIntervalSorted(std::span<const double> sorted,
                                                         double confidence = 0.95);

/// Lower rank r (1-based) of that interval for n samples: it is
/// [x_(r), x_(n+1-r)], the largest r with P(X <= r-1) <= (1-confidence)/2 for
/// X ~ Binomial(n, 1/2) (the normal approximation above n = 1000). 0 when no
/// order-statistic interval reaches `confidence` (the sample range is used).
int MedianCiLowerRank(int n, double confidence = 0.95);

/// Relative half-width of the median's 95% (or `confidence`) interval over
/// ascending `sorted` samples: half the interval's width over the median
/// (type-7 quantile), 0 when empty or when the median is not positive.
/// O(rank) work, no copy: a stop rule that keeps its samples sorted as they
/// arrive can ask it after every sample. Summarize's rel_ci_half_width.
double MedianRelCiHalfWidthSorted(std::span<const double> sorted, double confidence = 0.95);

/// Summary of samples (seconds): median, mean, min, max, sample stddev, MAD,
/// p5, p95, CV and the relative half-width of the median's 95% CI.
/// An empty input gives a zero Summary with n = 0.
Summary Summarize(std::span<const double> values);

/// Summarize() of samples already in ascending order (no copy or sort).
Summary SummarizeSorted(std::span<const double> sorted);

/// Median of `values` (reordered in place) by selection, O(n); the average of
/// the two middle elements for even n, as QuantileSorted(…, 0.5). Precondition:
/// non-empty.
double MedianInPlace(std::vector<double>& values);

/// Location of each non-empty round: the median of log(sample). Samples must
/// be positive. Rounds are the unit of replication within a run.
std::vector<double> RoundLogMedians(const std::vector<std::vector<double>>& rounds);

/// The Harrell-Davis estimate of the median: every order statistic weighted
/// by the Beta((n+1)/2, (n+1)/2) probability of its rank's interval. Unlike
/// the sample median it moves continuously with the values around the
/// middle, so the medians of rounds whose samples mostly hold one value
/// scatter as the rest does instead of all reading that value.
/// Harrell, F. E. & Davis, C. E. (1982), Biometrika 69(3):635-640.
/// Precondition: `values` not empty.
double HarrellDavisMedian(std::vector<double> values);

/// Relative half-width of the confidence interval of a run's level measured
/// over rounds: the level is the mean of the rounds' median log-times
/// (Kalibera & Jones 2013, two-level design), its interval a t interval with
/// R - 1 degrees of freedom, returned as expm1(half-width). Drift between
/// rounds widens it where the pooled-sample interval of the median cannot
/// see it. Returns 0 for fewer than two non-empty rounds; samples must be
/// positive.
double RoundLevelRelHalfWidth(const std::vector<std::vector<double>>& rounds,
                              double confidence = 0.95);

/// The same interval from the rounds' median log-times (RoundLogMedians).
double RoundLevelRelHalfWidthOfLevels(std::span<const double> round_log_medians,
                                      double confidence = 0.95);

/// Whether RoundLevelRelHalfWidthOfLevels(levels, confidence) <= target, the
/// stop rule's question, answered without the Student-t quantile when the
/// normal quantile already settles it: t(df) > z for every df, so an
/// interval too wide at z is too wide at t.
bool RoundLevelWithin(std::span<const double> round_log_medians, double target,
                      double confidence = 0.95);

}  // namespace gpugate
