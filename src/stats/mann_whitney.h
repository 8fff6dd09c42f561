// The Mann-Whitney U (Wilcoxon rank-sum) test: the U statistic, its exact null
// distribution for small samples without ties, and the normal approximation
// with tie and continuity corrections for everything else.
//   Mann & Whitney (1947), Ann. Math. Statist. 18:50-60;
//   Hollander, Wolfe & Chicken, Nonparametric Statistical Methods, 3rd ed., §4.1.
// The conventions (which U, how the continuity correction is applied) follow
// scipy.stats.mannwhitneyu so results can be checked against it.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace gpugate {

/// Alternative hypothesis about x relative to y.
enum class Alternative {
  kTwoSided,
  kGreater,  ///< x tends to be larger than y
  kLess,     ///< x tends to be smaller than y
};

enum class MannWhitneyMethod {
  kAuto,        ///< exact when both samples have <= kMannWhitneyExactMaxN values and no ties
  kExact,       ///< exact null distribution (ties are ignored: use only without ties)
  kAsymptotic,  ///< normal approximation with tie correction
};

/// Largest sample size (each side) for which kAuto uses the exact distribution.
inline constexpr int kMannWhitneyExactMaxN = 50;

struct MannWhitneyResult {
  double u = 0;        ///< U of x: number of pairs (x_i, y_j) with x_i > y_j, ties count 1/2
  double p_value = 1;  ///< for the requested alternative
  bool exact = false;  ///< exact distribution used
  bool ties = false;   ///< the pooled sample contains ties
};

/// Mann-Whitney U test of x against y. Both must be non-empty.
/// Asymptotic p: z = (U - n1 n2 / 2 - 0.5 [continuity]) / sigma with
/// sigma^2 = n1 n2 / 12 * ((n + 1) - sum(t^3 - t) / (n (n - 1))), where U is U_x
/// (greater), U_y (less) or max(U_x, U_y) (two-sided, p doubled).
MannWhitneyResult MannWhitneyU(std::span<const double> x, std::span<const double> y,
                               Alternative alternative = Alternative::kTwoSided,
                               MannWhitneyMethod method = MannWhitneyMethod::kAuto,
                               bool continuity = true);

/// Exact null distribution of U for sample sizes n1, n2 (no ties): element u is
/// P(U = u), u = 0 .. n1*n2. Computed from the generating function
/// prod_{i=1..m} (1 - q^(n+i)) / (1 - q^i) (a Gaussian binomial coefficient;
/// Andrews, The Theory of Partitions, §3.3), O(min(n1,n2) * n1 * n2) time.
std::vector<double> MannWhitneyNullDistribution(int n1, int n2);

/// P(U <= u) under the exact null distribution (no ties).
double MannWhitneyExactCdf(int n1, int n2, int64_t u);

/// Lower critical value of U for a two-sided level `alpha`: the largest c with
/// P(U <= c) <= alpha / 2, or -1 when even U = 0 is too likely (tiny samples).
/// Exact when `exact`, else from the normal approximation with continuity
/// correction: c = floor(n1 n2 / 2 - 0.5 - z_{1-alpha/2} sigma).
int64_t MannWhitneyLowerCritical(int n1, int n2, double alpha, bool exact);

}  // namespace gpugate
