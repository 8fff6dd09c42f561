// Normal and Student-t distribution functions. Methods cited in distributions.h.
#include "stats/distributions.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace gpugate {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Continued fraction for I_x(a, b) (valid for x < (a + 1) / (a + b + 2)),
// modified Lentz evaluation.
double BetaContinuedFraction(double a, double b, double x) {
  constexpr double kTiny = 1e-300;
  constexpr double kEps = 1e-15;
  double qab = a + b, qap = a + 1.0, qam = a - 1.0;
  double c = 1.0;
  double d = 1.0 - qab * x / qap;
  if (std::fabs(d) < kTiny) d = kTiny;
  d = 1.0 / d;
  double h = d;
  for (int m = 1; m <= 10000; ++m) {
    double m2 = 2.0 * m;
    double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
    d = 1.0 + aa * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1.0 + aa / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1.0 / d;
    h *= d * c;
    aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
    d = 1.0 + aa * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1.0 + aa / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1.0 / d;
    double del = d * c;
    h *= del;
    if (std::fabs(del - 1.0) < kEps) break;
  }
  return h;
}

}  // namespace

double NormalCdf(double x) { return 0.5 * std::erfc(-x / M_SQRT2); }

double NormalSf(double x) { return 0.5 * std::erfc(x / M_SQRT2); }

double NormalQuantile(double p) {
  if (p <= 0) return -kInf;
  if (p >= 1) return kInf;
  // Acklam's coefficients.
  static constexpr double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,
                                 -2.759285104469687e+02, 1.383577518672690e+02,
                                 -3.066479806614716e+01, 2.506628277459239e+00};
  static constexpr double b[] = {-5.447609879822406e+01, 1.615858368580409e+02,
                                 -1.556989798598866e+02, 6.680131188771972e+01,
                                 -1.328068155288572e+01};
  static constexpr double c[] = {-7.784894002430293e-03, -3.223964580411365e-01,
                                 -2.400758277161838e+00, -2.549732539343734e+00,
                                 4.374664141464968e+00,  2.938163982698783e+00};
  static constexpr double d[] = {7.784695709041462e-03, 3.224671290700398e-01,
                                 2.445134137142996e+00, 3.754408661907416e+00};
  constexpr double kLow = 0.02425;
  double x;
  if (p < kLow) {
    double q = std::sqrt(-2 * std::log(p));
    x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  } else if (p <= 1 - kLow) {
    double q = p - 0.5;
    double r = q * q;
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
  } else {
    double q = std::sqrt(-2 * std::log1p(-p));
    x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  // One Halley step (Acklam's refinement).
  double e = NormalCdf(x) - p;
  double u = e * std::sqrt(2 * M_PI) * std::exp(x * x / 2);
  x = x - u / (1 + x * u / 2);
  return x;
}

double RegularizedIncompleteBeta(double a, double b, double x) {
  if (x <= 0) return 0.0;
  if (x >= 1) return 1.0;
  double log_front = std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) +
                     b * std::log1p(-x);
  if (x < (a + 1.0) / (a + b + 2.0)) {
    return std::exp(log_front) * BetaContinuedFraction(a, b, x) / a;
  }
  return 1.0 - std::exp(log_front) * BetaContinuedFraction(b, a, 1.0 - x) / b;
}

namespace {

// Beyond 1e10 degrees of freedom t is the normal to double precision, and
// the incomplete beta with a = df / 2 loses its accuracy (at 1e15 the CDF
// of t = 2 read 0.49): such a t is read as the normal.
bool NormalLimit(double df) { return df > 1e10; }

}  // namespace

double StudentTCdf(double t, double df) {
  if (NormalLimit(df)) return NormalCdf(t);
  if (std::isnan(t)) return t;
  if (std::isinf(t)) return t > 0 ? 1.0 : 0.0;
  double tail = 0.5 * RegularizedIncompleteBeta(df / 2.0, 0.5, df / (df + t * t));
  return t >= 0 ? 1.0 - tail : tail;
}

double StudentTTwoSidedP(double t, double df) {
  if (NormalLimit(df)) return std::min(1.0, 2.0 * NormalSf(std::fabs(t)));
  if (std::isinf(t)) return 0.0;
  return std::min(1.0, RegularizedIncompleteBeta(df / 2.0, 0.5, df / (df + t * t)));
}

namespace {

double SolveStudentTQuantile(double p, double df);

/// A comparison asks for the same few quantiles many times (its confidence
/// and its bars at the same degrees of freedom, once per result): the last
/// ones asked for, per thread, by their exact arguments. The result is a pure
/// function of them, so a hit is the same number a solve gives.
struct QuantileMemo {
  static constexpr size_t kSlots = 256;
  struct Slot {
    double p = std::numeric_limits<double>::quiet_NaN(), df = 0, x = 0;
  };
  Slot slots[kSlots];

  static size_t SlotOf(double p, double df) {
    uint64_t a = 0, b = 0;
    std::memcpy(&a, &p, sizeof a);
    std::memcpy(&b, &df, sizeof b);
    uint64_t h = (a ^ (b * 0x9e3779b97f4a7c15ULL)) * 0xbf58476d1ce4e5b9ULL;
    return static_cast<size_t>(h >> 56) % kSlots;
  }
};

}  // namespace

double StudentTQuantile(double p, double df) {
  if (!(p > 0 && p < 1) || NormalLimit(df) || p == 0.5) return SolveStudentTQuantile(p, df);
  thread_local QuantileMemo memo;
  QuantileMemo::Slot& slot = memo.slots[QuantileMemo::SlotOf(p, df)];
  if (slot.p == p && slot.df == df) return slot.x;
  const double x = SolveStudentTQuantile(p, df);
  slot = {p, df, x};
  return x;
}

namespace {

double SolveStudentTQuantile(double p, double df) {
  if (p <= 0) return -kInf;
  if (p >= 1) return kInf;
  if (NormalLimit(df)) return NormalQuantile(p);
  if (p < 0.5) return -SolveStudentTQuantile(1.0 - p, df);
  if (p == 0.5) return 0.0;
  // Closed forms for one and two degrees of freedom.
  if (df == 1.0) return std::tan(M_PI * (p - 0.5));
  if (df == 2.0) return (2.0 * p - 1.0) / std::sqrt(2.0 * p * (1.0 - p));
  // Cornish-Fisher start (Abramowitz & Stegun 26.7.5, four terms from 3 df
  // on, where the series is accurate to about 1e-4 in the tails; one term
  // below), then Halley's method on the CDF, kept inside a bracket [lo, hi]
  // that always contains the root. Near the root Halley's steps converge
  // cubically, so two or three evaluations of the CDF usually settle it.
  const double z = NormalQuantile(p), z2 = z * z;
  double x = z + z * (z2 + 1.0) / 4.0 / df;
  if (df >= 3.0) {
    const double g2 = z * ((5.0 * z2 + 16.0) * z2 + 3.0) / 96.0;
    const double g3 = z * (((3.0 * z2 + 19.0) * z2 + 17.0) * z2 - 15.0) / 384.0;
    const double g4 = z * ((((79.0 * z2 + 776.0) * z2 + 1482.0) * z2 - 1920.0) * z2 - 945.0) / 92160.0;
    x += (g2 + (g3 + g4 / df) / df) / (df * df);
  }
  if (!(x > 0) || !std::isfinite(x)) x = z;
  // The density's constant once, not per step.
  const double log_c = std::lgamma((df + 1.0) / 2.0) - std::lgamma(df / 2.0) - 0.5 * std::log(df * M_PI);
  double lo = 0.0, hi = kInf;
  for (int i = 0; i < 200; ++i) {
    double f = StudentTCdf(x, df) - p;
    if (f > 0) {
      hi = x;
    } else {
      lo = x;
    }
    const double pdf = std::exp(log_c - (df + 1.0) / 2.0 * std::log1p(x * x / df));
    const double u = f / pdf;
    // f''/f' = -(df + 1) x / (df + x^2) for the t density.
    const double halley = 1.0 + 0.5 * u * (df + 1.0) * x / (df + x * x);
    double next = x - (halley > 0.5 ? u / halley : u);
    if (!(next > lo && next < hi) || !std::isfinite(next)) {
      next = std::isinf(hi) ? std::max(2.0 * x, x + 1.0) : 0.5 * (lo + hi);
    }
    if (std::fabs(next - x) <= 1e-13 * std::max(1.0, std::fabs(x))) return next;
    x = next;
  }
  return x;
}

}  // namespace

double Digamma(double x) {
  double r = 0;
  while (x < 10) {
    r -= 1.0 / x;
    x += 1.0;
  }
  double f = 1.0 / (x * x);
  return r + std::log(x) - 0.5 / x -
         f * (1.0 / 12 - f * (1.0 / 120 - f * (1.0 / 252 - f * (1.0 / 240 - f / 132))));
}

double Trigamma(double x) {
  double r = 0;
  while (x < 10) {
    r += 1.0 / (x * x);
    x += 1.0;
  }
  double f = 1.0 / (x * x);
  return r + 1.0 / x + f / 2.0 +
         f / x * (1.0 / 6 - f * (1.0 / 30 - f * (1.0 / 42 - f * (1.0 / 30 - f * 5.0 / 66))));
}

double Tetragamma(double x) {
  double r = 0;
  while (x < 10) {
    r -= 2.0 / (x * x * x);
    x += 1.0;
  }
  double f = 1.0 / (x * x);
  return r - f - 1.0 / (x * x * x) -
         f * f * (0.5 - f * (1.0 / 6 - f * (1.0 / 6 - f * (3.0 / 10 - f * 5.0 / 6))));
}

double TrigammaInverse(double y) {
  if (!(y > 0)) return kInf;
  if (y > 1e7) return 1.0 / std::sqrt(y);
  if (y < 1e-6) return 1.0 / y;
  double x = 0.5 + 1.0 / y;
  for (int i = 0; i < 50; ++i) {
    double tri = Trigamma(x);
    double dif = tri * (1.0 - tri / y) / Tetragamma(x);
    x += dif;
    if (-dif / x < 1e-8) break;
  }
  return x;
}

}  // namespace gpugate
