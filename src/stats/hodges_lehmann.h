// Hodges-Lehmann estimate of a location shift between two samples and its
// distribution-free confidence interval (Moses), the interval obtained by
// inverting the Mann-Whitney test, so interval and test never disagree.
//   Hodges & Lehmann (1963), Ann. Math. Statist. 34:598-611;
//   Moses, in Walker & Lev, Statistical Inference (1953), ch. 18;
//   Hollander, Wolfe & Chicken, Nonparametric Statistical Methods, 3rd ed., §4.2-4.3.
#pragma once

#include <cstdint>
#include <span>

namespace gpugate {

struct ShiftEstimate {
  double shift = 0;     ///< median of the pairwise differences y_j - x_i
  double ci_low = 0;    ///< -inf when the samples are too small for the level
  double ci_high = 0;   ///< +inf likewise
  double confidence = 0.95;
  bool exact = false;   ///< critical value from the exact U distribution
  int64_t k = 0;        ///< the interval is [D_(k), D_(N+1-k)] over N = n1*n2 sorted differences
};

/// k-th smallest (1-based) of the n1*n2 differences y_j - x_i, for ascending
/// sorted x and y. Small products select directly; large ones bisect on the
/// value, counting differences <= v in O(n1 + n2) with two pointers, then snap
/// to the actual difference (in the spirit of Johnson & Mizoguchi 1978), so
/// the cost is O((n1 + n2) log range) instead of O(n1 n2).
double KthPairwiseDifference(std::span<const double> x_sorted, std::span<const double> y_sorted,
                             int64_t k);

/// The Hodges-Lehmann shift alone (the median of the differences y_j - x_i),
/// for ascending sorted x and y, both non-empty.
double HodgesLehmannEstimate(std::span<const double> x_sorted, std::span<const double> y_sorted);

/// Hodges-Lehmann shift of y relative to x (current minus baseline; use
/// log-times to get a log ratio) with the Moses interval at `confidence`.
/// The critical value is exact (no ties, both sizes <= kMannWhitneyExactMaxN)
/// or from the normal approximation. Both inputs must be non-empty.
ShiftEstimate HodgesLehmannShift(std::span<const double> x, std::span<const double> y,
                                 double confidence = 0.95);

}  // namespace gpugate
