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
// Randomness is counter-based (util/random.h): with
//   key = MixSeeds(spec.synthetic.seed, Fnv1a64(name), run_seed),
// run_factor reads draws 0-1 of stream MixSeeds(key, 1, 0), round_factor[r]
// draws 0-1 of MixSeeds(key, 2, r), and sample i of the instance (warmup
// included) draws 4i..4i+3 of MixSeeds(key, 3, 0): a uniform for mode, two
// for noise's normal (Box-Muller), a uniform for outlier. Every value is a
// function of its position alone, whatever the parameters, so two specs
// that differ only in `slowdown` give exactly proportional samples.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "harness/backend.h"
#include "util/random.h"

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

// The names the A/B interleaving (harness/ab.cc) draws its machine drift and
// order with; the helpers themselves live in util/random.h.
using ::gpugate::Fnv1a64;
using ::gpugate::MixSeeds;
using PortableRandom = ::gpugate::RandomStream;

}  // namespace detail

}  // namespace gpugate
