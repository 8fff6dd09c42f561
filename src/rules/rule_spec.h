// Expression rules of a policy (`rules:` entries with `id` and `when`):
// what a rule looks at, what it emits and how urgent it is. Parsed by
// config/policy.cc, evaluated by rules/engine.cc, listed in docs/rules.md.
#pragma once

#include <optional>
#include <string>

#include "config/suite.h"
#include "rules/expr.h"

namespace gpugate {

/// What a rule emits when its condition holds. `kOff` disables a rule (e.g. a
/// built-in one) by id.
enum class RuleEmit { kSuggestion, kWarning, kFail, kOff };

/// Urgency; also the order of suggestions in reports (critical first).
/// Stored in Suggestion::priority as 0..3.
enum class RulePriority { kCritical = 0, kHigh = 1, kMedium = 2, kLow = 3 };

/// What one evaluation of a rule looks at: each workload, each kernel of each
/// workload, or each trace (a workload read from a Chrome/Kineto trace).
/// Inferred from the names the condition uses (kernel.* > trace.* > workload).
enum class RuleScope { kWorkload, kKernel, kTrace };

struct ExprRule {
  std::string id;                        ///< "small-grid"
  rules::Expr when;                      ///< boolean condition
  std::optional<rules::Expr> speedup;    ///< estimated fraction of time saved, in [0, 1]
  rules::Template message;               ///< what the user reads
  std::optional<rules::Template> hint;   ///< how to act on it
  RuleEmit emit = RuleEmit::kSuggestion;
  RulePriority priority = RulePriority::kMedium;
  RuleScope scope = RuleScope::kWorkload;
  std::string source;                    ///< where the rule's reasoning comes from
  SourceLocation location;               ///< the entry in the policy file
};

const char* ToString(RuleEmit e);
const char* ToString(RulePriority p);
const char* ToString(RuleScope s);

}  // namespace gpugate
