// Common speed factors of runs. Benchmarks measured in one process slow down
// together (a busier neighbour, a slower host, a different clock): their
// run-to-run shifts are strongly correlated. Removing each run's common factor
// before testing a workload leaves the noise that is the workload's own.
//   Tukey (1977), Exploratory Data Analysis, ch. 11: median polish of a
//   two-way table (workload x run) into row levels and column effects, robust
//   to a minority of cells that moved for another reason (a real regression).
#pragma once

#include <vector>

namespace gpugate {

/// Fewest workloads from which a run's common factor is estimated; with fewer
/// the factor is left at 0 and the run's values are compared as they are.
inline constexpr int kMinWorkloadsForRunFactor = 5;

struct RunFactors {
  std::vector<double> factor;     ///< per run (log scale); 0 where not estimated
  std::vector<bool> estimated;    ///< per run: the factor was estimated
  std::vector<double> level;      ///< per workload: its level at factor 0
  /// Variance of the fitted factors across the fitted runs, and the variance
  /// a median of the workloads' own noise would show if the runs had no
  /// common factor at all ((pi/2) sigma^2 / m for m workloads, the large-
  /// sample variance of a median).
  double factor_variance = 0;
  double chance_variance = 0;
  /// The fitted factors vary more than chance (factor_variance > 2 x
  /// chance_variance with at least 3 fitted runs): there is a common factor
  /// to remove. Removing one that is not there only adds the median's noise.
  bool common = false;
};

/// Median polish of `table` (rows = workloads, columns = runs, NaN = missing)
/// over the columns `fit` marks: row levels and column factors, the fitted
/// factors centred to mean 0 (levels read at an average run). Columns
/// not in `fit` (current runs) get factor = median_i(table[i][k] - level[i])
/// when they hold at least max(kMinWorkloadsForRunFactor, ceil(min_share *
/// rows)) values, which keeps a re-run of a few doubtful workloads (whose
/// shared move may be the very change under test) from being "corrected".
/// A fitted column with fewer than kMinWorkloadsForRunFactor values is not
/// estimated either. Columns `share_exempt` marks (the parts of one current
/// run measured on different CPU models) need only kMinWorkloadsForRunFactor
/// values, not the share.
RunFactors PolishRunFactors(const std::vector<std::vector<double>>& table,
                            const std::vector<bool>& fit, double min_share = 0.5,
                            const std::vector<bool>* share_exempt = nullptr);

}  // namespace gpugate
