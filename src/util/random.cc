// Hashing and counter-based random numbers (methods cited in random.h).
#include "util/random.h"

#include <cmath>
#include <numbers>

namespace gpugate {

uint64_t Fnv1a64(std::string_view text) {
  uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a 64-bit offset basis
  for (unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ULL;  // FNV 64-bit prime
  }
  return h;
}

uint64_t MixSeeds(uint64_t a, uint64_t b, uint64_t c) {
  return SplitMix64(SplitMix64(SplitMix64(a) ^ b) ^ c);
}

double BoxMullerNormal(double u1, double u2) {
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

double LognormalFactor(double cv, double z) {
  if (cv <= 0) return 1.0;
  const double sigma = std::sqrt(std::log1p(cv * cv));
  return std::exp(sigma * z);
}

double RandomStream::Normal() {
  const double u1 = Uniform();
  const double u2 = Uniform();
  return BoxMullerNormal(u1, u2);
}

double RandomStream::LognormalFactor(double cv) {
  return gpugate::LognormalFactor(cv, Normal());
}

}  // namespace gpugate
