// Test helper: suites of results drawn from the synthetic backend's model
// (lognormal samples with a per-run shift, a per-round shift and within-round
// scatter, each given as a coefficient of variation), drawn from the shared
// seeded generator (util/random.h) so the draws are identical on every platform.
#pragma once

#include <cmath>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "model/results.h"
#include "util/random.h"

namespace gpugate::testing {

/// The seeded generator: counter-based SplitMix64 with Box-Muller normals.
using Rng = RandomStream;

/// Log-scale sigma of a lognormal with coefficient of variation `cv`.
inline double SigmaForCv(double cv) { return std::sqrt(std::log1p(cv * cv)); }

struct NoiseModel {
  double within_cv = 0.02;   ///< scatter of samples within a round
  double round_cv = 0.01;    ///< per-round multiplicative shift
  double run_cv = 0.0;       ///< per-run shift, independent per workload
  int rounds = 5;
  int per_round = 6;
};

/// One run of `workloads` synthetic workloads ("w0", "w1", ...), medians
/// spread from 10 us to ~10 ms; workloads in `slowed` get `slowdown`.
inline Results MakeRun(Rng& rng, int workloads, const NoiseModel& m, double slowdown = 1.0,
                       const std::set<int>& slowed = {}) {
  Results r;
  r.run.run_id = "synthetic";
  r.run.env.cpu_model = "Synthetic CPU";
  const double s_within = SigmaForCv(m.within_cv);
  const double s_round = SigmaForCv(m.round_cv);
  const double s_run = SigmaForCv(m.run_cv);
  for (int i = 0; i < workloads; ++i) {
    WorkloadResult w;
    w.name = "w" + std::to_string(i);
    w.kind = "synthetic";
    w.backend = "synthetic";
    double median = 1e-5 * std::pow(1.15, i % 50);
    double level = std::log(median) + (slowed.count(i) ? std::log(slowdown) : 0.0) +
                   s_run * rng.Normal();
    for (int k = 0; k < m.rounds; ++k) {
      double round_level = level + s_round * rng.Normal();
      std::vector<double> samples;
      for (int j = 0; j < m.per_round; ++j)
        samples.push_back(std::exp(round_level + s_within * rng.Normal()));
      w.rounds.push_back(std::move(samples));
    }
    r.workloads.push_back(std::move(w));
  }
  return r;
}

}  // namespace gpugate::testing
