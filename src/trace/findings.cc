// TraceFindings: convert, then evaluate (see findings.h).
#include "trace/findings.h"

#include "rules/engine.h"
#include "trace/to_results.h"

namespace gpugate {

std::vector<Suggestion> TraceFindings(const TraceReport& report, const std::vector<ExprRule>& rules) {
  if (report.devices.empty()) return {};
  const Results results = TraceReportToResults(report);
  return EvaluateRules(rules, results, nullptr);
}

}  // namespace gpugate
