// Normal and Student-t distribution functions (CDF, survival, quantile) for
// the tests and intervals in compare/. Pure functions, no state.
#pragma once

namespace gpugate {

/// Standard normal CDF Phi(x), via erfc for accuracy in both tails.
double NormalCdf(double x);

/// Standard normal survival function 1 - Phi(x), accurate for large x.
double NormalSf(double x);

/// Standard normal quantile Phi^-1(p), p in (0, 1). Acklam's rational
/// approximation (relative error 1.15e-9) refined by one Halley step on
/// erfc, which brings it to double precision. p <= 0 gives -inf, p >= 1 +inf.
double NormalQuantile(double p);

/// Regularized incomplete beta function I_x(a, b), a, b > 0, x in [0, 1],
/// by the continued fraction of Didonato & Morris evaluated with the modified
/// Lentz method (Press et al., Numerical Recipes, 3rd ed., §6.4).
double RegularizedIncompleteBeta(double a, double b, double x);

/// Student-t CDF with `df` > 0 degrees of freedom (df may be fractional, as
/// Welch-Satterthwaite gives): P(T <= t) = 1 - I_{df/(df+t^2)}(df/2, 1/2)/2
/// for t >= 0. An infinite df gives the normal CDF.
double StudentTCdf(double t, double df);

/// Two-sided p-value P(|T| >= |t|) of Student's t with `df` degrees of freedom.
double StudentTTwoSidedP(double t, double df);

/// Student-t quantile: the t with StudentTCdf(t, df) = p, p in (0, 1). Found
/// by safeguarded Newton iteration from the normal quantile (Cornish-Fisher
/// start), accurate to ~1e-12 relative.
double StudentTQuantile(double p, double df);

/// Digamma psi(x) and its derivatives psi'(x) (trigamma) and psi''(x), x > 0:
/// the recurrence psi(x) = psi(x + 1) - 1/x up to x >= 10, then the asymptotic
/// (Bernoulli) series (Abramowitz & Stegun 6.3.18, 6.4.12).
double Digamma(double x);
double Trigamma(double x);
double Tetragamma(double x);

/// Inverse of the trigamma function for y > 0, by Smyth's Newton iteration
/// (limma's trigammaInverse; Smyth 2004, Stat. Appl. Genet. Mol. Biol. 3:3).
double TrigammaInverse(double y);

}  // namespace gpugate
