// What every human-readable report shows, computed once from the verdicts:
// the counts line, rows in reporting order (regressions first), the cells of
// each section as plain text, environment differences, suggestions and
// warnings. Markdown, HTML and the console render this view, escaping each
// cell for their format; nothing here is escaped.
#pragma once

#include <string>
#include <vector>

#include "model/verdicts.h"

namespace gpugate {

/// True when a result makes the gate fail: a regression whose severity is
/// `fail` and that no waiver covers.
bool FailsGate(const MetricVerdict& m);

/// Position of a verdict in reports: regression, improvement, inconclusive,
/// incomparable, skipped, new, removed, unchanged.
int VerdictOrder(Verdict v);

/// Metrics in reporting order: by VerdictOrder; regressions that fail the
/// gate before warn-only and waived ones; within a group larger effects
/// first; otherwise input order.
std::vector<const MetricVerdict*> OrderedMetrics(const Verdicts& verdicts);

/// "2 regressions (1 waived), 1 improvement, 40 unchanged, 3 inconclusive";
/// new, removed, skipped and incomparable are appended when present.
std::string CountsSentence(const Verdicts& verdicts);

/// "high", "medium", "low" for priorities 1, 2, 3 (others are clamped).
const char* PriorityName(int priority);

/// "0.0012 (0.0040)": p-value and BH-adjusted p-value; "n/a" parts when absent.
std::string FormatPValues(const MetricVerdict& m);

/// "1.00 ms → 1.04 ms" (with `arrow`), or "" when neither value is known.
std::string FormatValues(const MetricVerdict& m, const char* arrow = " \u2192 ");

/// The sentence with what the policy did to it: "waived until fixed (reason):
/// ...", "warn only: ...", "severity off: ...". Falls back to the reason code.
std::string NoteText(const MetricVerdict& m);

/// Column label of the interval: "Change [95% CI]" when every row shares the
/// confidence level, else "Change [CI]".
std::string ChangeHeader(const std::vector<const MetricVerdict*>& rows);

/// " \u2014 evidence: E; hint: H" (parts present only when non-empty), with
/// `escape` applied to the evidence and hint texts.
template <class Escape>
std::string SuggestionDetail(const Suggestion& s, Escape escape) {
  std::string out;
  if (!s.evidence.empty()) out += "evidence: " + escape(s.evidence);
  if (!s.hint.empty()) out += (out.empty() ? "hint: " : "; hint: ") + escape(s.hint);
  return out.empty() ? out : " \u2014 " + out;
}

/// A table of plain-text cells.
struct ViewTable {
  std::vector<std::string> columns;
  std::vector<bool> right_aligned;  ///< per column (numbers)
  std::vector<std::vector<std::string>> rows;
};

/// One group of results.
struct ViewSection {
  std::string id;       ///< "regressions", "improvements", "inconclusive", "other", "unchanged"
  std::string title;    ///< "Regressions"
  bool folded = false;  ///< shown collapsed (unchanged results)
  ViewTable table;
};

struct ReportView {
  Outcome outcome = Outcome::kPass;
  std::string counts;    ///< CountsSentence
  std::string context;   ///< "baseline A vs current B; policy P (FDR q = 0.05); gpugate 1.0"
  std::vector<ViewSection> sections;  ///< only groups that have rows, in order
  bool environment_matches = true;
  ViewTable env_differences;          ///< Field | Baseline | Current
  std::vector<Suggestion> suggestions;  ///< by priority, then input order
  std::vector<std::string> warnings;
};

/// Builds the view. Pure.
ReportView BuildView(const Verdicts& verdicts);

}  // namespace gpugate
