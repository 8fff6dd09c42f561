// Suggestions of a comparison: the policy's expression rules (rules/engine.h;
// the built-in ones are in policies/default.yaml) plus three diagnostics that
// look across verdicts and stay in code: noise between runs, environment
// mismatch, and the kernel that regressed most. Pure functions over plain data.
#pragma once

#include <vector>

#include "model/results.h"
#include "model/verdicts.h"
#include "rules/rule_spec.h"

namespace gpugate {

/// Spread of one run's samples: `within` = pooled SD of log(sample) around
/// each round's mean (~ CV), measured only when some round holds two or more
/// samples (`within_measured`; Google Benchmark repetitions are rounds of one
/// sample each), `between` = SD of the round log-medians (0 with fewer than
/// two rounds).
struct NoiseProfile {
  double within = 0;
  bool within_measured = false;
  double between = 0;
  int rounds = 0;
};
NoiseProfile MeasureNoise(const WorkloadResult& w);

/// Runs the policy's expression rules over `current` (with `baseline`, the
/// newest baseline run, for the kernel.base_* names) and the diagnostics over
/// `verdicts` (which must come from comparing `current` with a baseline);
/// suggestions are in SuggestionBefore order.
std::vector<Suggestion> SuggestFromComparison(const std::vector<ExprRule>& rules,
                                              const Results& current, const Verdicts& verdicts,
                                              const Results* baseline = nullptr);

}  // namespace gpugate
