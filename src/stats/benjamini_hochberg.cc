// Benjamini-Hochberg adjustment. Method cited in benjamini_hochberg.h.
#include "stats/benjamini_hochberg.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace gpugate {

std::vector<double> BenjaminiHochbergAdjust(std::span<const double> p_values) {
  std::vector<double> out(p_values.size(), std::numeric_limits<double>::quiet_NaN());
  std::vector<size_t> order;
  order.reserve(p_values.size());
  for (size_t i = 0; i < p_values.size(); ++i)
    if (!std::isnan(p_values[i])) order.push_back(i);
  const double m = static_cast<double>(order.size());
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return p_values[a] < p_values[b]; });
  double running_min = 1.0;
  for (size_t r = order.size(); r-- > 0;) {
    double rank = static_cast<double>(r + 1);
    running_min = std::min(running_min, p_values[order[r]] * m / rank);
    out[order[r]] = std::clamp(running_min, 0.0, 1.0);
  }
  return out;
}

}  // namespace gpugate
