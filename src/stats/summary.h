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

/// Summary of samples (seconds): median, mean, min, max, sample stddev, MAD,
/// p5, p95, CV and the relative half-width of the median's 95% CI.
/// An empty input gives a zero Summary with n = 0.
Summary Summarize(std::span<const double> values);

}  // namespace gpugate
