// Descriptive statistics. Methods cited at each declaration in summary.h.
#include "stats/summary.h"

#include <algorithm>
#include <cmath>

#include "stats/distributions.h"
#include "util/result.h"

namespace gpugate {

double QuantileSorted(std::span<const double> sorted, double q) {
  GPUGATE_CHECK(!sorted.empty());
  if (q <= 0) return sorted.front();
  if (q >= 1) return sorted.back();
  double h = (static_cast<double>(sorted.size()) - 1.0) * q;
  size_t lo = static_cast<size_t>(std::floor(h));
  size_t hi = std::min(lo + 1, sorted.size() - 1);
  double frac = h - static_cast<double>(lo);
  return sorted[lo] + frac * (sorted[hi] - sorted[lo]);
}

double Median(std::span<const double> values) {
  GPUGATE_CHECK(!values.empty());
  std::vector<double> v(values.begin(), values.end());
  std::sort(v.begin(), v.end());
  return QuantileSorted(v, 0.5);
}

double MedianAbsoluteDeviation(std::span<const double> values) {
  double m = Median(values);
  std::vector<double> dev;
  dev.reserve(values.size());
  for (double x : values) dev.push_back(std::fabs(x - m));
  return Median(dev);
}

int MedianCiLowerRank(int n, double confidence) {
  const double alpha = 1.0 - confidence;
  if (n > 1000) {
    // Normal approximation to the binomial: r = n/2 - z * sqrt(n)/2.
    // z = Phi^-1(1 - alpha/2), found by bisection on the normal tail 0.5*erfc(z/sqrt 2).
    double lo = 0.0, hi = 10.0;
    for (int i = 0; i < 80; ++i) {
      double mid = (lo + hi) / 2;
      if (0.5 * std::erfc(mid / std::sqrt(2.0)) > alpha / 2) lo = mid; else hi = mid;
    }
    double z = (lo + hi) / 2;
    return std::max(0, static_cast<int>(std::floor(n / 2.0 - z * std::sqrt(static_cast<double>(n)) / 2.0)));
  }
  // Largest r with P(X <= r-1) <= alpha/2, X ~ Binomial(n, 1/2); the CDF is
  // accumulated term by term, each pmf from the last by the ratio
  // P(X = i+1) / P(X = i) = (n - i) / (i + 1), starting from 2^-n (exact, and
  // a normal double for n <= 1000): O(r) multiplications.
  int lower_rank = 0;
  double pmf = std::ldexp(1.0, -n);
  double cdf = 0.0;
  for (int r = 1; r <= n / 2; ++r) {
    const int i = r - 1;
    if (i > 0) pmf *= static_cast<double>(n - i + 1) / static_cast<double>(i);
    cdf += pmf;
    if (cdf <= alpha / 2) lower_rank = r; else break;
  }
  return lower_rank;
}

std::pair<double, double> MedianConfidenceIntervalSorted(std::span<const double> sorted,
                                                         double confidence) {
  GPUGATE_CHECK(!sorted.empty());
  const int n = static_cast<int>(sorted.size());
  const int lower_rank = MedianCiLowerRank(n, confidence);
  if (lower_rank < 1) return {sorted.front(), sorted.back()};
  const int upper_rank = n + 1 - lower_rank;
  return {sorted[lower_rank - 1], sorted[upper_rank - 1]};
}

double MedianRelCiHalfWidthSorted(std::span<const double> sorted, double confidence) {
  if (sorted.empty()) return 0.0;
  const double median = QuantileSorted(sorted, 0.5);
  const auto [lo, hi] = MedianConfidenceIntervalSorted(sorted, confidence);
  return median > 0 ? (hi - lo) / 2.0 / median : 0.0;
}

Summary Summarize(std::span<const double> values) {
  std::vector<double> v(values.begin(), values.end());
  std::sort(v.begin(), v.end());
  return SummarizeSorted(v);
}

Summary SummarizeSorted(std::span<const double> v) {
  Summary s;
  if (v.empty()) return s;
  s.n = static_cast<int64_t>(v.size());
  s.min = v.front();
  s.max = v.back();
  s.median = QuantileSorted(v, 0.5);
  s.p5 = QuantileSorted(v, 0.05);
  s.p95 = QuantileSorted(v, 0.95);
  double sum = 0;
  for (double x : v) sum += x;
  s.mean = sum / static_cast<double>(v.size());
  double ss = 0;
  for (double x : v) ss += (x - s.mean) * (x - s.mean);
  s.stddev = v.size() > 1 ? std::sqrt(ss / static_cast<double>(v.size() - 1)) : 0.0;
  s.cv = s.mean > 0 ? s.stddev / s.mean : 0.0;
  std::vector<double> dev;
  dev.reserve(v.size());
  for (double x : v) dev.push_back(std::fabs(x - s.median));
  s.mad = MedianInPlace(dev);
  s.rel_ci_half_width = MedianRelCiHalfWidthSorted(v, 0.95);
  return s;
}

double MedianInPlace(std::vector<double>& v) {
  GPUGATE_CHECK(!v.empty());
  const size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  double upper = v[mid];
  if (v.size() % 2 == 1) return upper;
  double lower = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
  return lower + 0.5 * (upper - lower);
}

double HarrellDavisMedian(std::vector<double> values) {
  GPUGATE_CHECK(!values.empty());
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  const double a = (static_cast<double>(n) + 1) / 2;
  double sum = 0, below = 0;
  for (size_t i = 1; i <= n; ++i) {
    const double upto = i == n ? 1.0 : RegularizedIncompleteBeta(a, a, static_cast<double>(i) / static_cast<double>(n));
    sum += (upto - below) * values[i - 1];
    below = upto;
  }
  return sum;
}

std::vector<double> RoundLogMedians(const std::vector<std::vector<double>>& rounds) {
  std::vector<double> out;
  out.reserve(rounds.size());
  std::vector<double> logs;
  for (const auto& r : rounds) {
    if (r.empty()) continue;
    logs.clear();
    for (double x : r) logs.push_back(std::log(x));
    out.push_back(MedianInPlace(logs));
  }
  return out;
}

double RoundLevelRelHalfWidth(const std::vector<std::vector<double>>& rounds, double confidence) {
  return RoundLevelRelHalfWidthOfLevels(RoundLogMedians(rounds), confidence);
}

namespace {

// Standard error of the mean of the levels (0 for fewer than two).
double LevelStandardError(std::span<const double> levels) {
  const size_t k = levels.size();
  if (k < 2) return 0.0;
  double mean = 0;
  for (double v : levels) mean += v;
  mean /= static_cast<double>(k);
  double ss = 0;
  for (double v : levels) ss += (v - mean) * (v - mean);
  return std::sqrt(ss / static_cast<double>(k - 1) / static_cast<double>(k));
}

}  // namespace

double RoundLevelRelHalfWidthOfLevels(std::span<const double> levels, double confidence) {
  const size_t k = levels.size();
  if (k < 2) return 0.0;
  const double se = LevelStandardError(levels);
  const double t = StudentTQuantile(0.5 + confidence / 2.0, static_cast<double>(k - 1));
  return std::expm1(t * se);
}

bool RoundLevelWithin(std::span<const double> levels, double target, double confidence) {
  if (levels.size() < 2) return 0.0 <= target;
  const double se = LevelStandardError(levels);
  if (std::expm1(NormalQuantile(0.5 + confidence / 2.0) * se) > target) return false;
  return RoundLevelRelHalfWidthOfLevels(levels, confidence) <= target;
}

}  // namespace gpugate
