// Mann-Whitney U test. Methods cited in mann_whitney.h.
#include "stats/mann_whitney.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>

#include "stats/distributions.h"
#include "util/result.h"

namespace gpugate {

namespace {

struct RankSums {
  double r1 = 0;          // rank sum of x (average ranks for ties)
  double tie_term = 0;    // sum over tie groups of t^3 - t
  bool ties = false;
};

RankSums RankSumOfFirst(std::span<const double> x, std::span<const double> y) {
  std::vector<std::pair<double, bool>> all;  // value, belongs to x
  all.reserve(x.size() + y.size());
  for (double v : x) all.emplace_back(v, true);
  for (double v : y) all.emplace_back(v, false);
  std::sort(all.begin(), all.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  RankSums out;
  size_t i = 0;
  while (i < all.size()) {
    size_t j = i;
    while (j + 1 < all.size() && all[j + 1].first == all[i].first) ++j;
    double t = static_cast<double>(j - i + 1);
    double avg_rank = (static_cast<double>(i) + static_cast<double>(j)) / 2.0 + 1.0;
    for (size_t k = i; k <= j; ++k)
      if (all[k].second) out.r1 += avg_rank;
    if (t > 1) {
      out.ties = true;
      out.tie_term += t * t * t - t;
    }
    i = j + 1;
  }
  return out;
}

// Exact lower-tail probability P(U <= u) from the distribution.
double LowerTail(const std::vector<double>& pmf, double u) {
  if (u < 0) return 0.0;
  int64_t k = static_cast<int64_t>(std::floor(u + 1e-9));
  if (k >= static_cast<int64_t>(pmf.size()) - 1) return 1.0;
  double s = 0;
  for (int64_t i = 0; i <= k; ++i) s += pmf[static_cast<size_t>(i)];
  return std::min(1.0, s);
}

}  // namespace

std::vector<double> MannWhitneyNullDistribution(int n1, int n2) {
  GPUGATE_CHECK(n1 >= 1 && n2 >= 1);
  int m = std::min(n1, n2);
  int n = std::max(n1, n2);
  size_t max_degree = static_cast<size_t>(m) * static_cast<size_t>(n);
  // counts[k] = number of arrangements with U = k; starts as the polynomial 1.
  std::vector<double> counts(max_degree + 1, 0.0);
  counts[0] = 1.0;
  size_t degree = 0;
  for (int i = 1; i <= m; ++i) {
    // Multiply by (1 - q^(n+i)).
    size_t shift = static_cast<size_t>(n + i);
    size_t new_degree = degree + shift;
    std::vector<double> next(new_degree + 1, 0.0);
    for (size_t k = 0; k <= degree; ++k) {
      next[k] += counts[k];
      next[k + shift] -= counts[k];
    }
    // Divide by (1 - q^i): b[k] = a[k] + b[k - i]. The quotient has degree
    // new_degree - i, and is the Gaussian binomial [n+i choose i].
    size_t step = static_cast<size_t>(i);
    for (size_t k = step; k <= new_degree; ++k) next[k] += next[k - step];
    degree = new_degree - step;
    for (size_t k = 0; k <= degree; ++k) counts[k] = std::max(0.0, next[k]);
  }
  double total = std::accumulate(counts.begin(), counts.end(), 0.0);
  for (double& c : counts) c /= total;
  return counts;
}

double MannWhitneyExactCdf(int n1, int n2, int64_t u) {
  return LowerTail(MannWhitneyNullDistribution(n1, n2), static_cast<double>(u));
}

MannWhitneyResult MannWhitneyU(std::span<const double> x, std::span<const double> y,
                               Alternative alternative, MannWhitneyMethod method,
                               bool continuity) {
  GPUGATE_CHECK(!x.empty() && !y.empty());
  const double n1 = static_cast<double>(x.size());
  const double n2 = static_cast<double>(y.size());
  RankSums rs = RankSumOfFirst(x, y);
  MannWhitneyResult out;
  out.ties = rs.ties;
  double u1 = rs.r1 - n1 * (n1 + 1) / 2.0;
  double u2 = n1 * n2 - u1;
  out.u = u1;

  bool exact = method == MannWhitneyMethod::kExact ||
               (method == MannWhitneyMethod::kAuto && !rs.ties &&
                x.size() <= static_cast<size_t>(kMannWhitneyExactMaxN) &&
                y.size() <= static_cast<size_t>(kMannWhitneyExactMaxN));
  out.exact = exact;
  if (exact) {
    std::vector<double> pmf =
        MannWhitneyNullDistribution(static_cast<int>(x.size()), static_cast<int>(y.size()));
    switch (alternative) {
      case Alternative::kGreater:  // P(U >= u1) = P(U <= n1 n2 - u1) by symmetry
        out.p_value = LowerTail(pmf, u2);
        break;
      case Alternative::kLess:
        out.p_value = LowerTail(pmf, u1);
        break;
      case Alternative::kTwoSided:
        out.p_value = std::min(1.0, 2.0 * LowerTail(pmf, std::min(u1, u2)));
        break;
    }
    return out;
  }

  double n = n1 + n2;
  double mu = n1 * n2 / 2.0;
  double var = n1 * n2 / 12.0 * ((n + 1.0) - rs.tie_term / (n * (n - 1.0)));
  if (!(var > 0)) {  // every value tied: no evidence either way
    out.p_value = 1.0;
    return out;
  }
  double u = alternative == Alternative::kGreater ? u1
             : alternative == Alternative::kLess  ? u2
                                                  : std::max(u1, u2);
  double z = (u - mu - (continuity ? 0.5 : 0.0)) / std::sqrt(var);
  double p = NormalSf(z);
  if (alternative == Alternative::kTwoSided) p *= 2.0;
  out.p_value = std::clamp(p, 0.0, 1.0);
  return out;
}

int64_t MannWhitneyLowerCritical(int n1, int n2, double alpha, bool exact) {
  GPUGATE_CHECK(n1 >= 1 && n2 >= 1 && alpha > 0 && alpha < 1);
  const double half = alpha / 2.0;
  if (exact) {
    std::vector<double> pmf = MannWhitneyNullDistribution(n1, n2);
    double cdf = 0;
    int64_t c = -1;
    for (size_t k = 0; k < pmf.size(); ++k) {
      cdf += pmf[k];
      // Small relative slack so that boundary cases computed in floating
      // point match the exact rational comparison.
      if (cdf <= half * (1.0 + 1e-12)) {
        c = static_cast<int64_t>(k);
      } else {
        break;
      }
    }
    return c;
  }
  double nn1 = n1, nn2 = n2;
  double sigma = std::sqrt(nn1 * nn2 * (nn1 + nn2 + 1.0) / 12.0);
  double c = std::floor(nn1 * nn2 / 2.0 - 0.5 - NormalQuantile(1.0 - half) * sigma);
  return std::max<int64_t>(-1, static_cast<int64_t>(c));
}

}  // namespace gpugate
