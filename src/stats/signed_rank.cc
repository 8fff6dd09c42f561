// Wilcoxon signed-rank test with the Hodges-Lehmann one-sample interval.
// See signed_rank.h for the method and its references.
#include "stats/signed_rank.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "stats/summary.h"

namespace gpugate {

namespace {

constexpr int kMaxExactN = 50;  // 2^50 sign patterns still fit a double's exact integers


/// Standard normal upper quantile z with P(Z > z) = p, by bisection on erfc
/// (only used for the interval rank, where 1e-12 is plenty).
double NormalUpperQuantile(double p) {
  double lo = -40, hi = 40;
  for (int i = 0; i < 200; ++i) {
    double mid = 0.5 * (lo + hi);
    if (0.5 * std::erfc(mid / std::sqrt(2.0)) > p) lo = mid; else hi = mid;
  }
  return 0.5 * (lo + hi);
}

}  // namespace

std::vector<double> SignedRankCounts(int n) {
  const int max_sum = n * (n + 1) / 2;
  std::vector<double> counts(static_cast<size_t>(max_sum) + 1, 0.0);
  counts[0] = 1;
  // Adding rank r: each existing pattern either leaves r negative or adds it to W+.
  for (int r = 1; r <= n; ++r)
    for (int t = r * (r + 1) / 2; t >= r; --t) counts[static_cast<size_t>(t)] += counts[static_cast<size_t>(t - r)];
  return counts;
}

SignedRankResult WilcoxonSignedRank(std::span<const double> differences, double confidence) {
  SignedRankResult out;
  out.achieved_confidence = confidence;
  std::vector<double> d(differences.begin(), differences.end());
  if (std::all_of(d.begin(), d.end(), [](double x) { return x == 0.0; })) return out;  // no evidence
  const int64_t n = static_cast<int64_t>(d.size());
  out.n = n;

  // Tukey: without zeros or ties, W+ is the number of positive Walsh
  // averages, and the interval's ends are order statistics of them. Counting
  // a Walsh average of exactly 0 as neither side keeps that identity on any
  // data: the test of "no shift" is the interval's own, and it is
  // conservative where values tie (breaking the ties by a little continuous
  // jitter can only raise the count), so zeros and ties need no other rule.
  std::vector<double> walsh = WalshAverages(d);
  std::vector<double> copy = walsh;
  out.estimate = MedianInPlace(copy);
  std::sort(walsh.begin(), walsh.end());
  const int64_t m = static_cast<int64_t>(walsh.size());  // n (n + 1) / 2
  const int64_t pos = m - (std::upper_bound(walsh.begin(), walsh.end(), 0.0) - walsh.begin());
  const int64_t neg = std::lower_bound(walsh.begin(), walsh.end(), 0.0) - walsh.begin();
  out.w_plus = static_cast<double>(pos);

  const double nn = static_cast<double>(n);
  const double alpha = 1.0 - confidence;
  int64_t k = 1;  // the interval is [W_(k), W_(M+1-k)] over sorted Walsh averages
  if (n <= kMaxExactN) {
    out.exact = true;
    out.p_floor = std::ldexp(1.0, -static_cast<int>(n));
    std::vector<double> counts = SignedRankCounts(static_cast<int>(n));
    const double total = std::ldexp(1.0, static_cast<int>(n));
    std::vector<double> cdf(counts.size());
    std::partial_sum(counts.begin(), counts.end(), cdf.begin());
    auto at_least = [&](int64_t w) {  // P(W+ >= w)
      return w <= 0 ? 1.0 : (total - cdf[static_cast<size_t>(w - 1)]) / total;
    };
    out.p_value = std::min(1.0, 2.0 * std::min(at_least(pos), at_least(neg)));
    // Largest k with P(W+ <= k-1) <= alpha/2.
    k = 0;
    while (static_cast<size_t>(k) < cdf.size() && cdf[static_cast<size_t>(k)] / total <= alpha / 2) ++k;
    double tail = k == 0 ? 0.0 : cdf[static_cast<size_t>(k - 1)] / total;
    if (k == 0) {
      k = 1;  // no interval reaches the level: report the full range
      tail = counts[0] / total;
    }
    out.achieved_confidence = 1.0 - 2.0 * tail;
  } else {
    const double mean = static_cast<double>(m) / 2;
    const double sd = std::sqrt(nn * (nn + 1) * (2 * nn + 1) / 24.0);
    // P(W+ >= w), continuity-corrected.
    auto at_least = [&](int64_t w) { return 0.5 * std::erfc((static_cast<double>(w) - 0.5 - mean) / sd / std::sqrt(2.0)); };
    out.p_value = std::min(1.0, 2.0 * std::min(at_least(pos), at_least(neg)));
    out.p_floor = at_least(m);
    k = static_cast<int64_t>(std::floor(mean - NormalUpperQuantile(alpha / 2) * sd)) + 1;
    if (k < 1) {
      // No interval reaches the level: the full range, with the coverage the
      // approximation gives it (W+ = 0 or W+ = M, continuity-corrected).
      k = 1;
      out.achieved_confidence = 1.0 - std::erfc((mean - 0.5) / sd / std::sqrt(2.0));
    }
  }
  k = std::min(k, (m + 1) / 2);
  out.ci_low = walsh[static_cast<size_t>(k - 1)];
  out.ci_high = walsh[static_cast<size_t>(m - k)];
  return out;
}

std::vector<double> WalshAverages(std::span<const double> x) {
  std::vector<double> walsh;
  walsh.reserve(x.size() * (x.size() + 1) / 2);
  for (size_t i = 0; i < x.size(); ++i)
    for (size_t j = i; j < x.size(); ++j) walsh.push_back(0.5 * (x[i] + x[j]));
  return walsh;
}

double HodgesLehmannCentre(std::span<const double> x) {
  if (x.empty()) return 0.0;
  std::vector<double> walsh = WalshAverages(x);
  return MedianInPlace(walsh);
}

}  // namespace gpugate
