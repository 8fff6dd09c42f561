// Benjamini-Hochberg step-up adjustment of p-values, controlling the false
// discovery rate across a family of tests (a suite of benchmarks).
//   Benjamini & Hochberg (1995), J. R. Statist. Soc. B 57:289-300.
#pragma once

#include <span>
#include <vector>

namespace gpugate {

/// BH-adjusted p-values in input order: with p sorted ascending,
/// p_adj(i) = min_{j >= i} min(1, m p_(j) / j), which is monotone in p.
/// Rejecting every hypothesis with p_adj <= q is the BH procedure at level q.
/// NaN entries are not part of the family (m counts the others) and stay NaN.
std::vector<double> BenjaminiHochbergAdjust(std::span<const double> p_values);

}  // namespace gpugate
