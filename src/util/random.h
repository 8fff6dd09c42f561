// Hashing and seeded pseudo-random numbers, the same on every platform and
// standard library: FNV-1a for names, SplitMix64 for seeds and streams.
// Draws are counter-based: the k-th number of a stream is a pure function of
// (key, k), so a draw costs a few multiplications, nothing carries engine
// state, and any position of a stream can be read directly.
#pragma once

#include <cstdint>
#include <string_view>

namespace gpugate {

/// FNV-1a, 64 bit (Fowler, Noll, Vo): a stable hash of a name.
uint64_t Fnv1a64(std::string_view text);

/// SplitMix64 (Steele, Lea & Flood 2014, "Fast splittable pseudorandom number
/// generators"; constants of Vigna's splitmix64.c): adds the golden gamma
/// 0x9E3779B97F4A7C15 to `x`, then applies the "variant 13" finaliser. A
/// bijection on 64-bit values; SplitMix64(s), SplitMix64(s + gamma), ... is
/// the generator's output sequence from state s.
inline uint64_t SplitMix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

/// Combines three seeds so that nearby inputs give unrelated outputs (each
/// step runs the SplitMix64 finaliser over the running value).
uint64_t MixSeeds(uint64_t a, uint64_t b, uint64_t c);

/// Output `counter` (0-based) of the SplitMix64 sequence whose state starts
/// at `key`: SplitMix64(key + counter * gamma). Streams for different keys
/// come from MixSeeds, so they start at unrelated points of the sequence.
inline uint64_t CounterBits(uint64_t key, uint64_t counter) {
  return SplitMix64(key + counter * 0x9E3779B97F4A7C15ULL);
}

/// Uniform in the open interval (0, 1) from the top 52 bits:
/// ((bits >> 12) + 0.5) * 2^-52, exact in a double (53 significant bits), so
/// never 0 (its logarithm is finite) and never 1 (`u < 1` always holds).
inline double UnitUniform(uint64_t bits) {
  return (static_cast<double>(bits >> 12) + 0.5) * 0x1.0p-52;
}

/// Standard normal by the Box-Muller transform (Box & Muller 1958) from two
/// independent uniforms in (0, 1): sqrt(-2 ln u1) * cos(2 pi u2). The second
/// (sine) variate is not used, so every normal costs exactly two uniforms.
double BoxMullerNormal(double u1, double u2);

/// Lognormal factor with median 1 and coefficient of variation `cv` from a
/// standard normal z: exp(sigma * z) with sigma^2 = ln(1 + cv^2). cv <= 0
/// gives exactly 1.
double LognormalFactor(double cv, double z);

/// A sequential reader of one counter-based stream: draw k reads
/// CounterBits(key, k). Cheap to construct (one word), so code may make one
/// per round, per sample or per decision.
class RandomStream {
 public:
  explicit RandomStream(uint64_t key) : key_(key) {}
  /// The next 64 random bits.
  uint64_t NextBits() { return CounterBits(key_, counter_++); }
  /// Uniform in (0, 1) (UnitUniform): one draw.
  double Uniform() { return UnitUniform(NextBits()); }
  /// Standard normal (BoxMullerNormal): two draws.
  double Normal();
  /// Lognormal with median 1 and coefficient of variation `cv`: two draws,
  /// also when cv = 0 (then the factor is exactly 1).
  double LognormalFactor(double cv);

 private:
  uint64_t key_;
  uint64_t counter_ = 0;
};

}  // namespace gpugate
