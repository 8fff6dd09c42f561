// Findings about a trace: the rule engine (rules/engine.h) over the trace
// converted to results (trace/to_results.h), one workload per GPU, so
// `gpugate analyze` and `gpugate compare` say the same things about the same
// trace with the same thresholds, from the same policy rules.
#pragma once

#include <vector>

#include "model/verdicts.h"
#include "rules/rule_spec.h"
#include "trace/analysis.h"

namespace gpugate {

/// The suggestions, warnings and failures `rules` emit for `report` (trace,
/// kernel and workload rules), sorted as every report sorts them
/// (SuggestionBefore). A trace without GPU activity has no workload, so
/// nothing fires.
std::vector<Suggestion> TraceFindings(const TraceReport& report, const std::vector<ExprRule>& rules);

}  // namespace gpugate
