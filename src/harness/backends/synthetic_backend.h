// Backend "synthetic": seeded samples from a declared distribution
// (SyntheticSpec), for tests and demos of detection and A/A silence. Sample
// values are returned at once; no time is spent waiting.
//
// Model of one sample (all factors multiplicative, lognormal factors have
// median 1 and the given coefficient of variation):
//   x = median * slowdown * run_factor * round_factor[r] * mode * noise * outlier
//   run_factor    lognormal(run_drift_cv), drawn once per run
//   round_factor  lognormal(round_drift_cv), drawn per round index
//   mode          bimodal_ratio with probability bimodal_weight, else 1
//   noise         lognormal(cv)
//   outlier       outlier_scale with probability outlier_rate, else 1
// Seed: Mix(spec.synthetic.seed, Fnv1a64(name), run_seed); every sample draws
// the same number of random numbers whatever the parameters, so two specs
// that differ only in `slowdown` give exactly proportional samples.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>

#include "harness/backend.h"

namespace gpugate {

class SyntheticBackend final : public Backend {
 public:
  /// `run_seed` is RunOptions.run_seed (0 = the suite's seeds alone).
  explicit SyntheticBackend(uint64_t run_seed = 0) : run_seed_(run_seed) {}
  std::string Name() const override { return "synthetic"; }
  std::optional<std::string> Unsupported(const WorkloadSpec& spec) const override;
  /// Validates the distribution (median > 0, CVs >= 0, rates in [0, 1],
  /// scales > 0); a bad value is a kInputError naming the field.
  Result<std::unique_ptr<WorkloadInstance>> Prepare(const WorkloadSpec& spec) override;

 private:
  uint64_t run_seed_;
};

namespace detail {

/// FNV-1a, 64 bit (Fowler, Noll, Vo).
uint64_t Fnv1a64(std::string_view text);
/// Combines seeds with the splitmix64 finaliser so nearby inputs give
/// unrelated outputs.
uint64_t MixSeeds(uint64_t a, uint64_t b, uint64_t c);

/// Portable random variates on top of std::mt19937_64 (whose output sequence
/// the standard fixes), unlike std::*_distribution whose algorithms differ
/// between standard libraries.
class PortableRandom {
 public:
  explicit PortableRandom(uint64_t seed) : engine_(seed) {}
  /// Uniform in [0, 1) with 53 random bits.
  double Uniform();
  /// Standard normal by the Box-Muller transform (Box & Muller 1958); uses
  /// one pair of uniforms per call and discards the second variate, so the
  /// number of engine draws per call is fixed (two).
  double Normal();
  /// Lognormal with median 1 and coefficient of variation `cv`:
  /// exp(sigma * Z) with sigma^2 = ln(1 + cv^2). cv = 0 gives exactly 1 but
  /// still consumes its draws.
  double LognormalFactor(double cv);

 private:
  std::mt19937_64 engine_;
};

}  // namespace detail

}  // namespace gpugate
