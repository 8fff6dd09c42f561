// Yuen's trimmed-mean interval. Method cited in trimmed.h.
#include "stats/trimmed.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "stats/distributions.h"

namespace gpugate {
namespace {

struct Trimmed {
  double mean = 0;
  double d = 0;  // squared standard error of the trimmed mean
  double h = 0;  // values kept
};

bool Trim(std::span<const double> values, double trim, Trimmed* out) {
  std::vector<double> v(values.begin(), values.end());
  const size_t n = v.size();
  const size_t g = static_cast<size_t>(std::floor(trim * static_cast<double>(n)));
  if (n < 2 * g + 2) return false;
  std::sort(v.begin(), v.end());
  const size_t h = n - 2 * g;
  double sum = 0;
  for (size_t i = g; i < n - g; ++i) sum += v[i];
  out->mean = sum / static_cast<double>(h);
  // Winsorized: the g smallest set to v[g], the g largest to v[n - 1 - g].
  double wsum = 0;
  for (size_t i = 0; i < n; ++i) wsum += std::clamp(v[i], v[g], v[n - 1 - g]);
  const double wmean = wsum / static_cast<double>(n);
  double ss = 0;
  for (size_t i = 0; i < n; ++i) {
    const double r = std::clamp(v[i], v[g], v[n - 1 - g]) - wmean;
    ss += r * r;
  }
  const double hd = static_cast<double>(h);
  out->d = ss / (hd * (hd - 1.0));  // (n - 1) s_w^2 / (h (h - 1)), s_w^2 = ss / (n - 1)
  // Kept values that all agree have no spread, exactly: a mean of equal
  // doubles need not equal them, and a residue of 1e-36 is not a variance.
  if (v[g] == v[n - 1 - g]) out->d = 0;
  out->h = hd;
  return true;
}

}  // namespace

TrimmedShift YuenTrimmedShift(std::span<const double> x, std::span<const double> y, double confidence,
                              double trim) {
  TrimmedShift out;
  Trimmed a, b;
  if (!Trim(x, trim, &a) || !Trim(y, trim, &b)) return out;
  out.valid = true;
  out.shift = b.mean - a.mean;
  out.se = std::sqrt(a.d + b.d);
  const double denom = (a.d > 0 ? a.d * a.d / (a.h - 1.0) : 0.0) + (b.d > 0 ? b.d * b.d / (b.h - 1.0) : 0.0);
  out.df = denom > 0 ? (a.d + b.d) * (a.d + b.d) / denom : std::numeric_limits<double>::infinity();
  const double t = std::isfinite(out.df) ? StudentTQuantile(0.5 + confidence / 2.0, out.df)
                                         : NormalQuantile(0.5 + confidence / 2.0);
  out.ci_low = out.shift - t * out.se;
  out.ci_high = out.shift + t * out.se;
  return out;
}

TrimmedShift TrimmedMean(std::span<const double> x, double confidence, double trim) {
  TrimmedShift out;
  Trimmed a;
  if (!Trim(x, trim, &a)) return out;
  out.valid = true;
  out.shift = a.mean;
  out.se = std::sqrt(a.d);
  out.df = a.h - 1.0;
  const double t = StudentTQuantile(0.5 + confidence / 2.0, out.df);
  out.ci_low = out.shift - t * out.se;
  out.ci_high = out.shift + t * out.se;
  return out;
}

}  // namespace gpugate
