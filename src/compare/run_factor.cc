// Median polish for run speed factors (see run_factor.h).
#include "compare/run_factor.h"

#include <algorithm>
#include <cmath>

#include "stats/summary.h"

namespace gpugate {

namespace {

double MedianOrNaN(std::vector<double>& v) {
  if (v.empty()) return std::nan("");
  return MedianInPlace(v);
}

}  // namespace

RunFactors PolishRunFactors(const std::vector<std::vector<double>>& table,
                            const std::vector<bool>& fit, double min_share,
                            const std::vector<bool>* share_exempt) {
  const size_t rows = table.size();
  const size_t cols = fit.size();
  RunFactors out;
  out.factor.assign(cols, 0.0);
  out.estimated.assign(cols, false);
  out.level.assign(rows, 0.0);
  auto present = [&](size_t i, size_t k) { return k < table[i].size() && std::isfinite(table[i][k]); };

  std::vector<size_t> count(cols, 0);
  for (size_t i = 0; i < rows; ++i)
    for (size_t k = 0; k < cols; ++k) count[k] += present(i, k);
  std::vector<bool> use(cols, false);
  for (size_t k = 0; k < cols; ++k)
    use[k] = fit[k] && count[k] >= static_cast<size_t>(kMinWorkloadsForRunFactor);

  std::vector<bool> has_level(rows, false);  // a value in some fitted column
  for (size_t i = 0; i < rows; ++i)
    for (size_t k = 0; k < cols && !has_level[i]; ++k) has_level[i] = fit[k] && present(i, k);

  std::vector<double> buf;
  auto row_levels = [&] {
    for (size_t i = 0; i < rows; ++i) {
      buf.clear();
      for (size_t k = 0; k < cols; ++k)
        if (fit[k] && present(i, k)) buf.push_back(table[i][k] - out.factor[k]);
      const double m = MedianOrNaN(buf);
      out.level[i] = std::isfinite(m) ? m : 0.0;
    }
  };
  auto column_factor = [&](size_t k) {
    buf.clear();
    for (size_t i = 0; i < rows; ++i)
      if (has_level[i] && present(i, k)) buf.push_back(table[i][k] - out.level[i]);
    return MedianOrNaN(buf);
  };

  // Alternate row and column medians; a few sweeps converge (Tukey 1977).
  for (int sweep = 0; sweep < 4; ++sweep) {
    row_levels();
    for (size_t k = 0; k < cols; ++k) {
      if (!use[k]) continue;
      const double f = column_factor(k);
      if (std::isfinite(f)) out.factor[k] = f;
    }
  }
  // Centre the fitted factors at mean 0 so levels read at an average run.
  double sum = 0;
  int n = 0;
  for (size_t k = 0; k < cols; ++k)
    if (use[k]) sum += out.factor[k], ++n;
  if (n > 0) {
    const double mean = sum / n;
    for (size_t k = 0; k < cols; ++k)
      if (use[k]) out.factor[k] -= mean;
  }
  row_levels();
  for (size_t k = 0; k < cols; ++k) out.estimated[k] = use[k];

  // Is there a common factor at all? Compare the fitted factors' spread with
  // what the median of the workloads' residual noise gives by chance.
  std::vector<double> fitted;
  for (size_t k = 0; k < cols; ++k)
    if (use[k]) fitted.push_back(out.factor[k]);
  if (fitted.size() >= 3) {
    double ss = 0;
    for (double f : fitted) ss += f * f;  // centred at mean 0 above
    out.factor_variance = ss / static_cast<double>(fitted.size() - 1);
    std::vector<double> noise;
    for (size_t i = 0; i < rows; ++i) {
      double r2 = 0;
      int n = 0;
      for (size_t k = 0; k < cols; ++k)
        if (use[k] && present(i, k)) {
          const double r = table[i][k] - out.level[i] - out.factor[k];
          r2 += r * r;
          ++n;
        }
      if (n >= 2) noise.push_back(r2 / (n - 1));
    }
    if (!noise.empty()) {
      const double m = static_cast<double>(noise.size());
      out.chance_variance = 1.5707963267948966 * MedianInPlace(noise) / m;
      out.common = out.factor_variance > 2.0 * out.chance_variance;
    }
  }

  // Columns not fitted (current runs): their factor against the levels.
  const size_t need = std::max(static_cast<size_t>(kMinWorkloadsForRunFactor),
                               static_cast<size_t>(std::ceil(min_share * static_cast<double>(rows))));
  for (size_t k = 0; k < cols; ++k) {
    const bool exempt = share_exempt != nullptr && k < share_exempt->size() && (*share_exempt)[k];
    if (fit[k] || count[k] < (exempt ? static_cast<size_t>(kMinWorkloadsForRunFactor) : need)) continue;
    const double f = column_factor(k);
    if (!std::isfinite(f)) continue;
    out.factor[k] = f;
    out.estimated[k] = true;
  }
  return out;
}

}  // namespace gpugate
