// Suggestion rules: turn the measured data and the verdicts into advice with
// evidence (noisy workloads, noise between runs, throttling, environment
// mismatch, memory- vs compute-bound, the kernel that regressed most).
// Pure functions over plain data.
#pragma once

#include <vector>

#include "model/results.h"
#include "model/verdicts.h"

namespace gpugate {

/// Within-round spread (log-scale SD, ~CV) above which a workload is noisy.
inline constexpr double kNoisyWithinRoundCv = 0.05;
/// Spread of round medians (log-scale SD) above which rounds disagree.
inline constexpr double kNoisyBetweenRounds = 0.03;
/// Arithmetic intensity (FLOP per byte) below which a workload is treated
/// as memory-bound and above which as compute-bound. Typical ridge points
/// (peak FLOP/s / peak B/s) of CPUs and GPUs lie between these.
inline constexpr double kMemoryBoundIntensity = 1.0;
inline constexpr double kComputeBoundIntensity = 10.0;

/// Spread of one run's samples: `within` = pooled SD of log(sample) around
/// each round's mean (~ CV), `between` = SD of the round log-medians (0 with
/// fewer than two rounds).
struct NoiseProfile {
  double within = 0;
  double between = 0;
  int rounds = 0;
};
NoiseProfile MeasureNoise(const WorkloadResult& w);

/// Runs every rule. `verdicts` must come from comparing `current` with
/// `baseline_runs`; suggestions are ordered by priority (1 first).
std::vector<Suggestion> SuggestFromComparison(const std::vector<Results>& baseline_runs,
                                              const Results& current, const Verdicts& verdicts);

}  // namespace gpugate
