// E-divisive means change-point detection (Matteson & James 2014) with a
// seeded permutation test. See change_point.h.
#include "stats/change_point.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <utility>
#include <vector>

#include "stats/summary.h"
#include "util/result.h"

namespace gpugate {

namespace detail {

// The statistic at every split from running sums of distances: moving value
// p from the right part to the left changes the within-left sum by its
// distances to the values before it and the within-right sum by those to
// the values after it. Each such sum of |x_i - x_p| over a set is
// (count below x_p) * x_p - (sum below) + (sum above) - (count above) * x_p,
// read from prefix sums over the values' ranks: O(n log n) for a segment
// (a history of 1000 runs was O(n^2) per split and per permutation).
// The counts and sums of the values moved to the left part are prefix sums
// over their ranks among all values (a Fenwick tree in the workspace).
Split BestSplit(std::span<const double> x, int min_segment, SplitWorkspace& ws) {
  Split best{0, -std::numeric_limits<double>::infinity()};
  const size_t n = x.size();
  const size_t min_seg = static_cast<size_t>(std::max(2, min_segment));
  if (n < 2 * min_seg) return best;
  std::vector<size_t>& order = ws.order;
  order.resize(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return x[a] < x[b] || (x[a] == x[b] && a < b); });
  std::vector<size_t>& rank = ws.rank;
  rank.resize(n);
  std::vector<double>& sorted_prefix = ws.sorted_prefix;  // sum of the values of rank < r
  sorted_prefix.assign(n + 1, 0.0);
  for (size_t r = 0; r < n; ++r) {
    rank[order[r]] = r;
    sorted_prefix[r + 1] = sorted_prefix[r] + x[order[r]];
  }
  const double total = sorted_prefix[n];
  // Start with every value on the right: W_R = sum of all pairwise distances.
  double within_right = 0;
  for (size_t r = 0; r < n; ++r)
    within_right += x[order[r]] * (2.0 * static_cast<double>(r) - static_cast<double>(n - 1));
  std::vector<int64_t>& tree_count = ws.left_count;
  std::vector<double>& tree_sum = ws.left_sum;
  tree_count.assign(n + 1, 0);
  tree_sum.assign(n + 1, 0.0);
  // Count and sum of the left part's values of rank below `r`.
  auto below = [&](size_t r) {
    double c = 0, sum = 0;
    for (size_t i = r; i > 0; i -= i & (~i + 1)) {
      c += static_cast<double>(tree_count[i]);
      sum += tree_sum[i];
    }
    return std::pair<double, double>{c, sum};
  };
  auto add = [&](size_t r, double value) {
    for (size_t i = r + 1; i <= n; i += i & (~i + 1)) {
      tree_count[i] += 1;
      tree_sum[i] += value;
    }
  };
  double left_sum = 0, within_left = 0, between = 0;
  for (size_t tau = 1; tau + min_seg <= n; ++tau) {
    // Move value p = tau-1 from the right part to the left part.
    const size_t p = tau - 1;
    const double xp = x[p];
    const auto [below_left, below_left_sum] = below(rank[p]);
    const double left_count = static_cast<double>(p);
    const double to_left = (below_left * xp - below_left_sum) +
                           ((left_sum - below_left_sum) - (left_count - below_left) * xp);
    const double below_right = static_cast<double>(rank[p]) - below_left;
    const double below_right_sum = sorted_prefix[rank[p]] - below_left_sum;
    const double right_count = static_cast<double>(n - p - 1);
    const double right_sum = total - left_sum - xp;
    const double to_right = (below_right * xp - below_right_sum) +
                            ((right_sum - below_right_sum) - (right_count - below_right) * xp);
    add(rank[p], xp);
    left_sum += xp;
    within_left += to_left;
    within_right -= to_right;
    between += to_right - to_left;
    if (tau < min_seg) continue;
    const double m = static_cast<double>(tau), k = static_cast<double>(n - tau);
    // Ê = 2/(mk) Σ|X-Y| - (m choose 2)^-1 Σ|X-X'| - (k choose 2)^-1 Σ|Y-Y'|, Q̂ = mk/(m+k) Ê.
    const double energy = 2.0 * between / (m * k) - 2.0 * within_left / (m * (m - 1)) -
                          2.0 * within_right / (k * (k - 1));
    const double q = m * k / (m + k) * energy;
    if (q > best.statistic) best = Split{tau, q};
  }
  return best;
}

Split BestSplit(std::span<const double> x, int min_segment) {
  SplitWorkspace workspace;
  return BestSplit(x, min_segment, workspace);
}

}  // namespace detail

namespace {

struct Segment {
  size_t begin = 0, end = 0;  ///< [begin, end)
};

struct Candidate {
  size_t segment = 0;
  detail::Split split;
};

/// The largest Q̂ over all segments of `x`.
Candidate BestOverSegments(std::span<const double> x, const std::vector<Segment>& segments, int min_segment,
                           detail::SplitWorkspace& workspace) {
  Candidate best{0, {0, -std::numeric_limits<double>::infinity()}};
  for (size_t s = 0; s < segments.size(); ++s) {
    auto split = detail::BestSplit(x.subspan(segments[s].begin, segments[s].end - segments[s].begin), min_segment,
                                   workspace);
    if (split.statistic > best.split.statistic) best = Candidate{s, split};
  }
  return best;
}

/// Fisher-Yates shuffle of [begin, end) with an explicit generator, so the
/// sequence is the same with every standard library.
void ShuffleRange(std::vector<double>& v, size_t begin, size_t end, std::mt19937_64& rng) {
  for (size_t i = end - begin; i > 1; --i) {
    size_t j = static_cast<size_t>(rng() % i);
    std::swap(v[begin + i - 1], v[begin + j]);
  }
}

double SegmentMedian(std::span<const double> x, Segment s) { return Median(x.subspan(s.begin, s.end - s.begin)); }

}  // namespace

std::vector<ChangePoint> DetectChangePoints(std::span<const double> values, const ChangePointOptions& options) {
  GPUGATE_CHECK(options.permutations >= 1);
  std::vector<Segment> segments = {{0, values.size()}};
  std::vector<std::pair<size_t, std::pair<double, double>>> found;  // index, (Q̂, p)
  std::mt19937_64 rng(options.seed);
  std::vector<double> scratch(values.begin(), values.end());
  detail::SplitWorkspace workspace;

  while (static_cast<int>(found.size()) < options.max_change_points) {
    Candidate observed = BestOverSegments(values, segments, options.min_segment, workspace);
    if (!std::isfinite(observed.split.statistic)) break;
    // Permutation test: shuffle within every current segment, so existing
    // change points are respected, and take the best split over segments.
    // The split is kept when p = (1 + at_least) / (1 + R) <= alpha. Once
    // at_least makes that impossible the remaining permutations cannot
    // change the decision, so they are not drawn: without a change point a
    // permutation reaches the observed statistic about half the time, and
    // with alpha = 0.01 and R = 499 the test stops after about ten draws
    // instead of 499 (Besag & Clifford 1991 stop the same way). A rejected
    // split ends the search, so the generator's later state is never used:
    // the change points found are the same as with all R draws.
    int at_least = 0;
    const double total = 1.0 + options.permutations;
    for (int r = 0; r < options.permutations; ++r) {
      std::copy(values.begin(), values.end(), scratch.begin());
      for (const auto& s : segments) ShuffleRange(scratch, s.begin, s.end, rng);
      Candidate perm = BestOverSegments(scratch, segments, options.min_segment, workspace);
      // A permutation as extreme as the observed split counts, ties within
      // rounding included (the same statistic summed in another order).
      const double tie = 1e-12 * std::fabs(observed.split.statistic);
      if (perm.split.statistic >= observed.split.statistic - tie &&
          (1.0 + ++at_least) / total > options.alpha)
        break;
    }
    double p = (1.0 + at_least) / total;
    if (p > options.alpha) break;
    Segment s = segments[observed.segment];
    size_t cut = s.begin + observed.split.index;
    found.push_back({cut, {observed.split.statistic, p}});
    segments[observed.segment] = Segment{s.begin, cut};
    segments.insert(segments.begin() + static_cast<std::ptrdiff_t>(observed.segment) + 1, Segment{cut, s.end});
  }

  std::sort(found.begin(), found.end());
  std::vector<ChangePoint> out;
  for (size_t i = 0; i < found.size(); ++i) {
    Segment before{i == 0 ? 0 : found[i - 1].first, found[i].first};
    Segment after{found[i].first, i + 1 < found.size() ? found[i + 1].first : values.size()};
    ChangePoint cp;
    cp.index = found[i].first;
    cp.statistic = found[i].second.first;
    cp.p_value = found[i].second.second;
    cp.median_before = SegmentMedian(values, before);
    cp.median_after = SegmentMedian(values, after);
    cp.n_before = before.end - before.begin;
    cp.n_after = after.end - after.begin;
    out.push_back(cp);
  }
  return out;
}

int MinValuesForAStep(const ChangePointOptions& options) {
  const int m = std::max(options.min_segment, 2);
  const int r = options.permutations;
  // The estimate reaches alpha when X <= c.
  const double c = std::floor(options.alpha * (r + 1.0) - 1.0 + 1e-9);
  if (r < 1 || c < 0) return 0;
  for (int n = 2 * m; n <= 10000; ++n) {
    // q = 2 / C(n, n/2), through logs.
    const int k = n / 2;
    const double log_q = std::log(2.0) - (std::lgamma(n + 1.0) - std::lgamma(k + 1.0) - std::lgamma(n - k + 1.0));
    const double q = std::exp(log_q);
    if (q >= 1) continue;
    // P(X <= c) for X ~ Binomial(r, q).
    double cdf = 0;
    for (int i = 0; i <= static_cast<int>(c) && i <= r; ++i)
      cdf += std::exp(std::lgamma(r + 1.0) - std::lgamma(i + 1.0) - std::lgamma(r - i + 1.0) + i * log_q +
                      (r - i) * std::log1p(-q));
    if (cdf >= 0.9) return n;
  }
  return 0;
}

}  // namespace gpugate
