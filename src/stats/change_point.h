// Change points in a series of run-level values (e.g. the median log-time of a
// workload in each stored baseline run): E-divisive means.
//
// Method: Matteson & James (2014), "A Nonparametric Approach for Multiple
// Change Point Analysis of Multivariate Data", JASA 109(505). The divergence
// statistic Q̂ (energy distance with exponent alpha = 1, scaled by m·n/(m+n))
// is maximised over split points; significance by a permutation test that
// shuffles the values within every current segment (their §3.2), and the
// procedure is applied hierarchically until the next split is not
// significant. As in Hunter/Otava (Fleming et al., "Hunter: Using Change
// Point Detection to Hunt for Performance Regressions", ICPE 2023) the right
// end of each candidate split is the end of its segment, which makes one
// search O(n²). Permutations are drawn from a seeded generator, so results
// are reproducible.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace gpugate {

struct ChangePointOptions {
  double alpha = 0.01;         ///< a split is kept when its permutation p-value <= alpha
  int permutations = 499;      ///< permutation draws per tested split (min p = 1/(R+1))
  int min_segment = 3;         ///< fewest values on each side of a split (>= 2)
  int max_change_points = 10;  ///< stop after this many
  uint64_t seed = 1;           ///< permutation generator seed
};

struct ChangePoint {
  size_t index = 0;           ///< first value of the new level (0-based)
  double statistic = 0;       ///< Q̂ at the split
  double p_value = 1;         ///< permutation p-value when it was accepted
  double median_before = 0;   ///< median of the segment that ends at index-1
  double median_after = 0;    ///< median of the segment that starts at index
  size_t n_before = 0, n_after = 0;
};

/// Change points of `values` in increasing index order; empty when no split
/// is significant or the series is shorter than 2·min_segment.
std::vector<ChangePoint> DetectChangePoints(std::span<const double> values,
                                            const ChangePointOptions& options = {});

/// The fewest values in which a step can reach `alpha`: a perfect step
/// between k and n - k values is matched by 2 of the C(n, k) ways to place
/// its higher values, so its true permutation p-value is at best
/// q = 2 / C(n, n/2); the test estimates it from `permutations` draws as
/// (1 + X) / (permutations + 1), X ~ Binomial(permutations, q). The length
/// returned is the first at which that estimate reaches alpha with
/// probability 0.9 or more (a step away from the middle, or a noisy one,
/// needs more). 0 when no length up to 10,000 values does.
int MinValuesForAStep(const ChangePointOptions& options);

namespace detail {
/// Best split of one segment: the largest Q̂ over split points with at least
/// `min_segment` values per side; statistic is -inf when no split is allowed.
struct Split {
  size_t index = 0;
  double statistic = 0;
};
/// The buffers one search needs, kept between calls so that the permutation
/// test, which searches again per draw, does not allocate per draw.
struct SplitWorkspace {
  std::vector<size_t> order, rank;
  std::vector<double> sorted_prefix, left_sum;
  std::vector<int64_t> left_count;
};
Split BestSplit(std::span<const double> segment, int min_segment, SplitWorkspace& workspace);
Split BestSplit(std::span<const double> segment, int min_segment);
}  // namespace detail

}  // namespace gpugate
