// Hodges-Lehmann shift and Moses interval. Methods cited in hodges_lehmann.h.
#include "stats/hodges_lehmann.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "stats/mann_whitney.h"
#include "util/result.h"

namespace gpugate {

namespace {

// Below this many differences, materialise them and use nth_element.
constexpr int64_t kDirectSelectLimit = 4096;

// Number of pairs with y_j - x_i <= v. Rounding is monotone, so the computed
// difference is non-decreasing in j and non-increasing in i.
int64_t CountAtMost(std::span<const double> x, std::span<const double> y, double v) {
  int64_t count = 0;
  size_t j = 0;
  // Walk x from smallest to largest: the admissible prefix of y only grows.
  for (double xi : x) {
    while (j < y.size() && y[j] - xi <= v) ++j;
    count += static_cast<int64_t>(j);
  }
  return count;
}

// Smallest difference strictly greater than v.
double SmallestAbove(std::span<const double> x, std::span<const double> y, double v) {
  double best = std::numeric_limits<double>::infinity();
  size_t j = 0;
  for (double xi : x) {
    while (j < y.size() && y[j] - xi <= v) ++j;
    if (j < y.size()) best = std::min(best, y[j] - xi);
  }
  return best;
}

}  // namespace

double KthPairwiseDifference(std::span<const double> x_sorted, std::span<const double> y_sorted,
                             int64_t k) {
  const int64_t n1 = static_cast<int64_t>(x_sorted.size());
  const int64_t n2 = static_cast<int64_t>(y_sorted.size());
  GPUGATE_CHECK(n1 > 0 && n2 > 0 && k >= 1 && k <= n1 * n2);
  if (n1 * n2 <= kDirectSelectLimit) {
    std::vector<double> d;
    d.reserve(static_cast<size_t>(n1 * n2));
    for (double xi : x_sorted)
      for (double yj : y_sorted) d.push_back(yj - xi);
    auto nth = d.begin() + (k - 1);
    std::nth_element(d.begin(), nth, d.end());
    return *nth;
  }
  // Invariant: CountAtMost(lo) < k <= CountAtMost(hi).
  double hi = y_sorted.back() - x_sorted.front();
  double lo = y_sorted.front() - x_sorted.back();
  if (k == 1) return lo;
  lo = std::nextafter(lo, -std::numeric_limits<double>::infinity());
  for (int iter = 0; iter < 2000; ++iter) {
    double mid = lo + (hi - lo) / 2.0;
    if (mid <= lo || mid >= hi) break;
    if (CountAtMost(x_sorted, y_sorted, mid) >= k) {
      hi = mid;
    } else {
      lo = mid;
    }
    // Stop early once a single distinct difference is left in (lo, hi]:
    // checked every fourth step (two more passes), since a check costs two
    // steps of the bisection and the first steps never succeed.
    if (iter % 4 == 3) {
      double above = SmallestAbove(x_sorted, y_sorted, lo);
      if (CountAtMost(x_sorted, y_sorted, above) >= k) return above;
    }
  }
  return SmallestAbove(x_sorted, y_sorted, lo);
}

double HodgesLehmannEstimate(std::span<const double> x_sorted, std::span<const double> y_sorted) {
  const int64_t total = static_cast<int64_t>(x_sorted.size()) * static_cast<int64_t>(y_sorted.size());
  const double low = KthPairwiseDifference(x_sorted, y_sorted, (total + 1) / 2);
  if (total % 2 == 1) return low;
  // The next difference: the same value when it is tied, else the smallest
  // one above it (one pass instead of a second search).
  if (total > kDirectSelectLimit && CountAtMost(x_sorted, y_sorted, low) >= total / 2 + 1) return low;
  const double high = total > kDirectSelectLimit ? SmallestAbove(x_sorted, y_sorted, low)
                                                 : KthPairwiseDifference(x_sorted, y_sorted, total / 2 + 1);
  return 0.5 * (low + high);
}

ShiftEstimate HodgesLehmannShift(std::span<const double> x, std::span<const double> y,
                                 double confidence) {
  GPUGATE_CHECK(!x.empty() && !y.empty());
  GPUGATE_CHECK(confidence > 0 && confidence < 1);
  std::vector<double> xs(x.begin(), x.end());
  std::vector<double> ys(y.begin(), y.end());
  std::sort(xs.begin(), xs.end());
  std::sort(ys.begin(), ys.end());
  const int64_t n1 = static_cast<int64_t>(xs.size());
  const int64_t n2 = static_cast<int64_t>(ys.size());
  const int64_t total = n1 * n2;

  ShiftEstimate out;
  out.confidence = confidence;
  out.shift = HodgesLehmannEstimate(xs, ys);

  bool ties = std::adjacent_find(xs.begin(), xs.end()) != xs.end() ||
              std::adjacent_find(ys.begin(), ys.end()) != ys.end();
  if (!ties) {
    std::vector<double> pooled;
    std::merge(xs.begin(), xs.end(), ys.begin(), ys.end(), std::back_inserter(pooled));
    ties = std::adjacent_find(pooled.begin(), pooled.end()) != pooled.end();
  }
  out.exact = !ties && n1 <= kMannWhitneyExactMaxN && n2 <= kMannWhitneyExactMaxN;
  int64_t c = MannWhitneyLowerCritical(static_cast<int>(n1), static_cast<int>(n2),
                                       1.0 - confidence, out.exact);
  out.k = c + 1;
  if (c < 0) {
    out.ci_low = -std::numeric_limits<double>::infinity();
    out.ci_high = std::numeric_limits<double>::infinity();
    return out;
  }
  out.ci_low = KthPairwiseDifference(xs, ys, out.k);
  out.ci_high = KthPairwiseDifference(xs, ys, total + 1 - out.k);
  return out;
}

}  // namespace gpugate
