// Empirical-Bayes moderation of many variance estimates (one per benchmark):
// each variance is shrunk toward a common prior estimated from all of them,
// which adds the prior's degrees of freedom to every test. With few rounds or
// runs per benchmark this turns t tests with 4 or 9 df into tests with many,
// without assuming the benchmarks share one variance (a heterogeneous suite
// gets a weak prior).
//   Smyth (2004), "Linear models and empirical Bayes methods for assessing
//   differential expression in microarray experiments", Stat. Appl. Genet.
//   Mol. Biol. 3(1):3, section 6 (moment estimation of d0 and s0^2).
#pragma once

#include <span>

namespace gpugate {

/// Scaled inverse-chi-square prior for variances: sigma^2 ~ s0^2 d0 / chi^2_{d0}.
struct VariancePrior {
  double d0 = 0;     ///< prior degrees of freedom; 0 = no moderation
  double s0_sq = 0;  ///< prior variance
  int count = 0;     ///< variances it was estimated from (0: set by hand)
};

/// Fewest usable variances from which a prior is estimated.
inline constexpr int kMinVariancesForPrior = 5;

/// Estimates the prior from variances s_g^2 with df d_g (entries with a zero
/// or non-finite variance or df < 1 are ignored). Moment estimates on
/// log-variances: e_g = log s_g^2 - psi(d_g/2) + log(d_g/2); d0 solves
/// psi'(d0/2) = mean((e_g - mean e)^2 G/(G-1) - psi'(d_g/2)); when that is
/// <= 0 the variances agree beyond sampling noise and d0 is capped at the
/// pooled df sum(d_g). Returns d0 = 0 for fewer than kMinVariancesForPrior.
VariancePrior EstimateVariancePrior(std::span<const double> variances, std::span<const double> dfs);

/// Posterior variance (d0 s0^2 + d s^2) / (d0 + d); its df is d0 + d.
double ModerateVariance(const VariancePrior& prior, double variance, double df);

/// The prior for one variance: `prior`, or none (d0 = 0) when the variance
/// is beyond what the prior allows for one of its prior.count variances
/// (upper F(df, d0) tail below 0.05 / count, a Bonferroni bound). One
/// benchmark that scatters by 30% among 500 that scatter by 1% is not one
/// more draw of their variance, and shrinking it to theirs makes its own
/// noise a false regression (limma's robust moderation protects such
/// hypervariable units the same way: Phipson et al. 2016, Ann. Appl. Stat.
/// 10(2):946). A prior of unknown count (set by hand) is returned as it is.
VariancePrior PriorFor(const VariancePrior& prior, double variance, double df);

}  // namespace gpugate
