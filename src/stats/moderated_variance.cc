// Empirical-Bayes variance moderation. Method cited in moderated_variance.h.
#include "stats/moderated_variance.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "stats/distributions.h"

namespace gpugate {

VariancePrior EstimateVariancePrior(std::span<const double> variances, std::span<const double> dfs) {
  VariancePrior prior;
  std::vector<double> e, d;
  const size_t n = std::min(variances.size(), dfs.size());
  for (size_t i = 0; i < n; ++i) {
    if (!(variances[i] > 0) || !std::isfinite(variances[i]) || !(dfs[i] >= 1)) continue;
    e.push_back(std::log(variances[i]) - Digamma(dfs[i] / 2.0) + std::log(dfs[i] / 2.0));
    d.push_back(dfs[i]);
  }
  const size_t g = e.size();
  if (g < static_cast<size_t>(kMinVariancesForPrior)) return prior;
  double mean_e = 0, pooled_df = 0;
  for (size_t i = 0; i < g; ++i) {
    mean_e += e[i];
    pooled_df += d[i];
  }
  mean_e /= static_cast<double>(g);
  double v = 0;
  for (size_t i = 0; i < g; ++i) {
    v += (e[i] - mean_e) * (e[i] - mean_e) * static_cast<double>(g) / static_cast<double>(g - 1) -
         Trigamma(d[i] / 2.0);
  }
  v /= static_cast<double>(g);
  double d0 = v > 0 ? 2.0 * TrigammaInverse(v) : pooled_df;
  if (!(d0 <= pooled_df)) d0 = pooled_df;
  prior.d0 = d0;
  prior.s0_sq = std::exp(mean_e + Digamma(d0 / 2.0) - std::log(d0 / 2.0));
  prior.count = static_cast<int>(g);
  return prior;
}

VariancePrior PriorFor(const VariancePrior& prior, double variance, double df) {
  if (prior.count < 1 || !(prior.d0 > 0) || !(prior.s0_sq > 0) || !(df >= 1) ||
      !(variance > prior.s0_sq) || !std::isfinite(variance))
    return prior;
  // P(F(df, d0) > f) = I_{d0 / (d0 + df f)}(d0 / 2, df / 2).
  const double f = variance / prior.s0_sq;
  const double upper = RegularizedIncompleteBeta(prior.d0 / 2.0, df / 2.0, prior.d0 / (prior.d0 + df * f));
  const double bound = 0.05 / static_cast<double>(std::max(prior.count, 1));
  return upper < bound ? VariancePrior{} : prior;
}

double ModerateVariance(const VariancePrior& prior, double variance, double df) {
  if (!(prior.d0 > 0)) return variance;
  return (prior.d0 * prior.s0_sq + df * variance) / (prior.d0 + df);
}

}  // namespace gpugate
