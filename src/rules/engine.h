// The rule engine: evaluates a policy's expression rules (rules/rule_spec.h)
// over the current run — each workload, each kernel, each trace — and turns
// the rules that fire into suggestions, warnings or failures with their
// evidence, estimated speedup and hint. The names a rule may use are the
// schema below (RuleSchema); docs/rules.md lists them. Pure: data in, data out.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/results.h"
#include "model/verdicts.h"
#include "rules/expr.h"
#include "rules/rule_spec.h"

namespace gpugate {

/// Every name a rule condition, speedup or message may use, with its type,
/// dimension and meaning. `share()` accepts kernel.duration and
/// kernel.launches; `count()` accepts `kernel`.
const rules::Schema& RuleSchema();

/// The scope a rule runs in, from the names its expressions use.
RuleScope InferScope(const rules::Expr& when, const std::optional<rules::Expr>& speedup);

/// The schema a rule's message and hint are parsed with once its scope is
/// known: RuleSchema() where the kernel.* names that a workload or trace rule
/// (evaluated once per workload, not per kernel) can never give are marked
/// unavailable, so naming one fails the policy at the name.
const rules::Schema& RuleSchemaFor(RuleScope scope);

/// Evaluates every rule not switched off. `verdicts` (may be empty) links
/// findings to the regression they explain (a kernel's or workload's own
/// verdict). `baseline` (may be null; the newest baseline run) gives the
/// kernel.base_* names and kernel.code_changed: the same workload's kernel
/// of the same name there. Suggestions come out sorted by priority, then
/// estimated speedup (largest first), then rule id and workload.
std::vector<Suggestion> EvaluateRules(const std::vector<ExprRule>& rules, const Results& current,
                                      const Verdicts* verdicts, const Results* baseline = nullptr);


}  // namespace gpugate
