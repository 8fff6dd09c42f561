// Backend "synthetic": seeded samples from SyntheticSpec (model in the header).
#include "harness/backends/synthetic_backend.h"

#include <cmath>

namespace gpugate {

namespace {

// Salts that separate the independent streams derived from one seed.
constexpr uint64_t kRunStream = 1;
constexpr uint64_t kRoundStream = 2;
constexpr uint64_t kSampleStream = 3;

class SyntheticInstance final : public WorkloadInstance {
 public:
  SyntheticInstance(const SyntheticSpec& spec, uint64_t key)
      : spec_(spec),
        key_(key),
        sample_key_(MixSeeds(key, kSampleStream, 0)),
        run_factor_(RandomStream(MixSeeds(key, kRunStream, 0)).LognormalFactor(spec.run_drift_cv)) {
    BeginRound(0);
  }

  /// The round factor depends only on the round index, not on how many
  /// samples earlier rounds drew.
  void BeginRound(int round) override {
    RandomStream round_rng(MixSeeds(key_, kRoundStream, static_cast<uint64_t>(round)));
    round_factor_ = round_rng.LognormalFactor(spec_.round_drift_cv);
  }

  Result<Sample> RunSample() override {
    const uint64_t first = 4 * next_sample_++;
    const double mode_u = UnitUniform(CounterBits(sample_key_, first));
    const double z = BoxMullerNormal(UnitUniform(CounterBits(sample_key_, first + 1)),
                                     UnitUniform(CounterBits(sample_key_, first + 2)));
    const double outlier_u = UnitUniform(CounterBits(sample_key_, first + 3));
    double x = spec_.median * spec_.slowdown * run_factor_ * round_factor_ *
               LognormalFactor(spec_.cv, z);
    if (mode_u < spec_.bimodal_weight) x *= spec_.bimodal_ratio;
    if (outlier_u < spec_.outlier_rate) x *= spec_.outlier_scale;
    Sample s;
    s.seconds = x;
    return s;
  }

  void Annotate(WorkloadResult& result) const override {
    result.counters["synthetic_run_factor"] = run_factor_;
  }

 private:
  SyntheticSpec spec_;
  uint64_t key_;
  uint64_t sample_key_;
  uint64_t next_sample_ = 0;
  double run_factor_;
  double round_factor_ = 1.0;
};

std::optional<std::string> CheckSpec(const SyntheticSpec& s) {
  auto finite = [](double v) { return std::isfinite(v); };
  if (!finite(s.median) || s.median <= 0) return "synthetic.median must be > 0";
  if (!finite(s.cv) || s.cv < 0) return "synthetic.cv must be >= 0";
  if (!finite(s.round_drift_cv) || s.round_drift_cv < 0) return "synthetic.round_drift_cv must be >= 0";
  if (!finite(s.run_drift_cv) || s.run_drift_cv < 0) return "synthetic.run_drift_cv must be >= 0";
  if (!(s.outlier_rate >= 0 && s.outlier_rate <= 1)) return "synthetic.outlier_rate must be in [0, 1]";
  if (!finite(s.outlier_scale) || s.outlier_scale <= 0) return "synthetic.outlier_scale must be > 0";
  if (!(s.bimodal_weight >= 0 && s.bimodal_weight <= 1)) return "synthetic.bimodal_weight must be in [0, 1]";
  if (!finite(s.bimodal_ratio) || s.bimodal_ratio <= 0) return "synthetic.bimodal_ratio must be > 0";
  if (!finite(s.slowdown) || s.slowdown <= 0) return "synthetic.slowdown must be > 0";
  return std::nullopt;
}

}  // namespace

std::optional<std::string> SyntheticBackend::Unsupported(const WorkloadSpec& spec) const {
  if (spec.kind != WorkloadKind::kSynthetic) return "backend synthetic runs only synthetic workloads";
  return std::nullopt;
}

Result<std::unique_ptr<WorkloadInstance>> SyntheticBackend::Prepare(const WorkloadSpec& spec) {
  if (auto bad = CheckSpec(spec.synthetic)) {
    std::string where = spec.location.line > 0 ? spec.location.ToString() + ": " : "";
    return InputError(where + "workload '" + spec.name + "': " + *bad);
  }
  const uint64_t key = MixSeeds(spec.synthetic.seed, Fnv1a64(spec.name), run_seed_);
  return std::unique_ptr<WorkloadInstance>(std::make_unique<SyntheticInstance>(spec.synthetic, key));
}

}  // namespace gpugate
