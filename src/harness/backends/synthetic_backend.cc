// Backend "synthetic": seeded samples from SyntheticSpec (model in the header).
#include "harness/backends/synthetic_backend.h"

#include <cmath>
#include <numbers>

namespace gpugate {

namespace detail {

uint64_t Fnv1a64(std::string_view text) {
  uint64_t h = 0xcbf29ce484222325ULL;  // FNV offset basis
  for (unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ULL;  // FNV prime
  }
  return h;
}

namespace {
uint64_t SplitMix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}
}  // namespace

uint64_t MixSeeds(uint64_t a, uint64_t b, uint64_t c) {
  return SplitMix64(SplitMix64(SplitMix64(a) ^ b) ^ c);
}

double PortableRandom::Uniform() {
  return static_cast<double>(engine_() >> 11) * 0x1.0p-53;
}

double PortableRandom::Normal() {
  // 1 - U lies in (0, 1], so the log is finite.
  const double u1 = 1.0 - Uniform();
  const double u2 = Uniform();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

double PortableRandom::LognormalFactor(double cv) {
  const double z = Normal();
  if (cv <= 0) return 1.0;
  const double sigma = std::sqrt(std::log1p(cv * cv));
  return std::exp(sigma * z);
}

}  // namespace detail

namespace {

// Salts that separate the independent streams derived from one seed.
constexpr uint64_t kRunStream = 1;
constexpr uint64_t kRoundStream = 2;
constexpr uint64_t kSampleStream = 3;

class SyntheticInstance final : public WorkloadInstance {
 public:
  SyntheticInstance(const SyntheticSpec& spec, uint64_t seed)
      : spec_(spec), seed_(seed), samples_(detail::MixSeeds(seed, kSampleStream, 0)) {
    detail::PortableRandom run_rng(detail::MixSeeds(seed, kRunStream, 0));
    run_factor_ = run_rng.LognormalFactor(spec_.run_drift_cv);
    BeginRound(0);
  }

  /// The round factor depends only on the round index, not on how many
  /// samples earlier rounds drew.
  void BeginRound(int round) override {
    detail::PortableRandom round_rng(
        detail::MixSeeds(seed_, kRoundStream, static_cast<uint64_t>(round)));
    round_factor_ = round_rng.LognormalFactor(spec_.round_drift_cv);
  }

  Result<Sample> RunSample() override {
    const double mode_u = samples_.Uniform();
    const double noise = samples_.LognormalFactor(spec_.cv);
    const double outlier_u = samples_.Uniform();
    double x = spec_.median * spec_.slowdown * run_factor_ * round_factor_ * noise;
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
  uint64_t seed_;
  detail::PortableRandom samples_;
  double run_factor_ = 1.0;
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
  const uint64_t seed = detail::MixSeeds(spec.synthetic.seed, detail::Fnv1a64(spec.name), run_seed_);
  return std::unique_ptr<WorkloadInstance>(std::make_unique<SyntheticInstance>(spec.synthetic, seed));
}

}  // namespace gpugate
