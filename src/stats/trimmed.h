// Yuen's test of trimmed means: two samples compared by their 20%-trimmed
// means, with the winsorized variances as their error. It is robust to a
// minority of wild values like the Hodges-Lehmann shift, and, unlike it,
// does not assume the two samples differ by a shift of one shape: a timer
// that reads in whole microseconds (most samples tie) or a bimodal workload
// whose slow mode grew moves the trimmed mean while the median of pairwise
// differences can stay at exactly 0.
//   Yuen (1974), "The two-sample trimmed t for unequal population
//   variances", Biometrika 61(1):165-170;
//   Wilcox (2012), Introduction to Robust Estimation and Hypothesis
//   Testing, 3rd ed., section 5.3.
#pragma once

#include <span>

namespace gpugate {

struct TrimmedShift {
  bool valid = false;  ///< both samples leave at least 2 values after trimming
  double shift = 0;    ///< trimmed mean of y minus trimmed mean of x
  double se = 0;       ///< sqrt(d_x + d_y)
  double df = 0;       ///< Welch-Satterthwaite degrees of freedom (infinite when se is 0)
  double ci_low = 0;   ///< shift -/+ t quantile x se at `confidence`
  double ci_high = 0;
};

/// Yuen's interval for y - x at `confidence`, trimming `trim` of each end
/// (g = floor(trim n) values): d = (n - 1) s_w^2 / (h (h - 1)) with s_w^2
/// the winsorized variance and h = n - 2g the values kept.
TrimmedShift YuenTrimmedShift(std::span<const double> x, std::span<const double> y, double confidence,
                              double trim = 0.2);

/// The one-sample trimmed mean of `x` (Tukey-McLaughlin): `shift` is the
/// trimmed mean, se^2 = (n - 1) s_w^2 / (h (h - 1)), df = h - 1, interval
/// at `confidence`. Invalid below 2 g + 2 values.
TrimmedShift TrimmedMean(std::span<const double> x, double confidence, double trim = 0.2);

}  // namespace gpugate
