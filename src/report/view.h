// What every human-readable report shows, computed once from the verdicts:
// the headline (never a pass unless something was decided and nothing
// failed), what the comparison could have seen, the rows in reporting order
// (regressions first, derived throughput folded under its time row), short
// notes derived from reason codes, the cells of each section as plain text,
// environment differences, suggestions and warnings. Markdown, HTML and the
// console render this view, escaping each cell for their format; nothing
// here is escaped.
#pragma once

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "model/verdicts.h"

namespace gpugate {

/// True when a result makes the gate fail: a regression whose severity is
/// `fail` and that no waiver covers.
bool FailsGate(const MetricVerdict& m);

/// True when the workload of this result failed to run in the current run
/// (what makes the outcome `error`).
bool FailedToRun(const MetricVerdict& m);

/// True when this undecided result is what made the outcome `inconclusive`
/// (exit 4): an inconclusive result under `on_inconclusive: fail` or
/// `require_detectable`, or an incomparable one under `on_incomparable:
/// fail`. Never for severity `off` (reported, ignored by the outcome) or the
/// untestable common shift.
bool UndecidedFailsGate(const MetricVerdict& m, const Verdicts& verdicts);

/// True when an inconclusive result counts for the outcome: not severity
/// `off` and not the untestable common shift (what `fail-on: inconclusive`
/// and the `inconclusive` output count).
bool CountedInconclusive(const MetricVerdict& m);

/// Position of a verdict in reports: regression, improvement, inconclusive,
/// incomparable, skipped, new, removed, unchanged.
int VerdictOrder(Verdict v);

/// Metrics in reporting order: workloads that failed to run, then by
/// VerdictOrder; regressions that fail the gate before warn-only and waived
/// ones; within a group larger effects first; otherwise input order.
std::vector<const MetricVerdict*> OrderedMetrics(const Verdicts& verdicts);

/// OrderedMetrics without the throughput results that are folded under their
/// time result: a "throughput" metric whose workload has a "time" result
/// with the same verdict, waiver and severity is derived from it (same test,
/// same interval mirrored), so the human-readable reports show one row. A
/// throughput row that does something else to the gate (it fails where its
/// time's regression is waived or only warns) keeps its row. JSON and JUnit
/// keep every metric.
std::vector<const MetricVerdict*> ShownMetrics(const Verdicts& verdicts);

/// "2 regressions (1 waived), 1 improvement, 40 unchanged, 3 inconclusive";
/// new, removed, skipped (other than failed), failed and incomparable are
/// appended when present. Counts the rows of ShownMetrics.
std::string CountsSentence(const Verdicts& verdicts);

/// How reports name an outcome: "pass", "fail", "inconclusive", "error",
/// "not judged" (ToString gives the machine spelling).
const char* OutcomeLabel(Outcome o);

/// The suggestions that explain a regression: those about its workload (for
/// a `kernel:<name>` result, about that kernel), in SuggestionBefore order.
/// Empty for anything but a regression. Every report lists them under it.
std::vector<const Suggestion*> SuggestionsExplaining(const Verdicts& verdicts,
                                                     const MetricVerdict& m);

/// "critical", "high", "medium", "low" for priorities 0, 1, 2, 3 (others are clamped).
const char* PriorityName(int priority);

/// "0.0012 (0.0040)": p-value and BH-adjusted p-value; "n/a" parts when absent.
std::string FormatPValues(const MetricVerdict& m);

/// "1.00 ms → 1.04 ms" (with `arrow`), or "" when neither value is known.
std::string FormatValues(const MetricVerdict& m, const char* arrow = " \u2192 ");

/// The change and its interval ("+4.1% [+2.9%, +5.3%]"), with the decimals
/// the result's threshold is written with (ChangeDecimals).
std::string ChangeText(const MetricVerdict& m);

/// The minimum detectable effect of a result ("+11%"), or "n/a" when
/// nothing could be tested.
std::string DetectableText(const MetricVerdict& m);

/// The verdict as a row shows it: "regression (warn)", "regression
/// (waived)", "regression (off)", "failed" for a workload that failed to
/// run, else the verdict's name.
std::string VerdictLabel(const MetricVerdict& m);

/// A short note derived from the reason code (and the minimum detectable
/// effect where it is the point): "noise between runs exceeds the effect",
/// "within the 2% threshold", "too noisy to guard: could see +14%, policy
/// requires +10%". Never repeats the interval, which has its own column. A
/// workload that failed or was skipped keeps its sentence (the cause).
/// `require_detectable` is the policy's (Verdicts::require_detectable).
std::string ShortNote(const MetricVerdict& m, std::optional<double> require_detectable = {});

/// `note` with what the policy did to the result: "waived (reason): ...",
/// "warn only: ...", "severity off: ..." for regressions; else `note`.
std::string WithPolicyPrefix(const MetricVerdict& m, const std::string& note);

/// The short note with its policy prefix (what tables show).
std::string NoteText(const MetricVerdict& m, std::optional<double> require_detectable = {});

/// The full sentence with its policy prefix (verbose console, JUnit bodies);
/// falls back to the short note when the result has no sentence.
std::string FullNoteText(const MetricVerdict& m, std::optional<double> require_detectable = {});

/// `text` with its first letter upper-cased (ASCII), to start a sentence
/// with a view text ("policy requires ..." -> "Policy requires ...").
std::string SentenceCase(std::string text);

/// `text` with its first letter lower-cased (ASCII): a section title inside a
/// sentence ("Skipped in both runs" -> "38 skipped in both runs").
std::string LowerFirst(std::string text);

/// One side's value of an environment field as text, in the unit its name
/// implies: "gpu.sm_clock_hz" 1.41e9 -> "1410 MHz", "gpu.memory_bytes" ->
/// "80.0 GiB", "gpu.power_limit_w" 300 -> "300 W", flags "on"/"off",
/// unknown "" (callers show a dash). Untrusted text: callers escape it.
std::string EnvValueText(std::string_view field, const EnvValue& value);

/// Column label of the interval: "Change [95% CI]" when every row shares the
/// confidence level, else "Change [CI]".
std::string ChangeHeader(const std::vector<const MetricVerdict*>& rows);

/// " \u2014 evidence: E; hint: H" (parts present only when non-empty), with
/// `escape` applied to the evidence and hint texts.
/// "25%": an estimated speedup (a fraction of the time saved), unsigned.
/// "25%", "1.5%"; under 0.1% "<0.1%" (never "0%" for a finding that fired).
inline std::string SpeedupText(double fraction) {
  char buf[32];
  const double pct = fraction * 100.0;
  if (pct < 0.1) return "<0.1%";
  std::snprintf(buf, sizeof buf, pct < 10 ? "%.1f%%" : "%.0f%%", pct);
  return buf;
}

template <class Escape>
std::string SuggestionDetail(const Suggestion& s, Escape escape) {
  std::string out;
  if (!s.evidence.empty()) out += "evidence: " + escape(s.evidence);
  if (s.estimated_speedup) {
    out += (out.empty() ? "" : "; ") + std::string("estimated speedup up to ") + SpeedupText(*s.estimated_speedup);
  }
  if (!s.hint.empty()) out += (out.empty() ? "hint: " : "; hint: ") + escape(s.hint);
  return out.empty() ? out : " \u2014 " + out;
}

/// "workload / kernel" a suggestion is about, escaped; empty for the suite.
template <class Escape>
std::string SuggestionSubject(const Suggestion& s, Escape escape) {
  if (s.workload.empty() && s.kernel.empty()) return "";
  std::string out = escape(s.workload);
  if (!s.kernel.empty()) out += (out.empty() ? "" : " / ") + escape(s.kernel);
  return out;
}

/// "high" or "high fail" / "high warning": the priority, and what a policy
/// rule emitted when it is more than a suggestion.
inline std::string SuggestionLabel(const Suggestion& s) {
  std::string out = PriorityName(s.priority);
  if (s.severity == "fail" || s.severity == "warning") out += " " + s.severity;
  return out;
}

/// What the minimum detectable effects of a set of results say.
struct Detectability {
  int tested = 0;                ///< shown results with a minimum detectable effect
  /// Smallest and largest of them (fractions: a slowdown, or for a
  /// higher-is-better result a drop), ranked by the size of the change in log
  /// space, so a drop of 20% (×0.8) ranks as a rise of 25% (×1.25).
  std::optional<double> lowest;
  std::optional<double> highest;
  bool lowest_lower_is_better = true;  ///< the direction `lowest` is a change in
  bool highest_lower_is_better = true;
  bool any_higher_is_better = false;   ///< a higher-is-better result is among them
  int undetectable = 0;          ///< workloads too noisy for require_detectable (the common shift counted once)
  bool common_undetectable = false;  ///< ... of which the suite's common shift, `(suite)`, is one
  int noisy_workloads = 0;  ///< ... workloads of reason `undetectable` (too noisy to guard)
  int blind_workloads = 0;  ///< ... and the others, which measured no noise at all (SeesNothing)
};

/// Over the shown results of either direction of better (and, for
/// `undecided_only`, only inconclusive and incomparable ones).
Detectability DetectabilityOf(const Verdicts& verdicts, bool undecided_only);

/// A table of plain-text cells.
struct ViewTable {
  std::vector<std::string> columns;
  std::vector<bool> right_aligned;  ///< per column (numbers)
  std::vector<std::vector<std::string>> rows;
};

/// How a section is coloured: a section's colour follows what its results
/// do to the gate.
enum class Tone {
  kFail,       ///< failed workloads; regressions when one of them fails the gate
  kWarn,       ///< warn-only regressions; inconclusive results the policy fails
  kGood,       ///< improvements
  kUndecided,  ///< inconclusive results that do not decide the outcome
  kNeutral,    ///< everything else (unchanged; new, removed, skipped; waived regressions)
};

/// "fail", "warn", "good", "undecided", "neutral" (HTML class suffixes).
const char* ToneName(Tone tone);

/// One group of results.
struct ViewSection {
  /// "failed", "regressions", "improvements", "inconclusive", "other",
  /// "unchanged", "skipped-in-both"
  std::string id;
  std::string title;    ///< "Regressions"
  /// Shown collapsed (unchanged results; results skipped in both runs), under
  /// "<count> <title in lower case>".
  bool folded = false;
  Tone tone = Tone::kNeutral;
  ViewTable table;
  /// Regressions: what the rules say about each (SuggestionsExplaining), as
  /// (workload, metric, suggestions); unescaped.
  struct Explained {
    std::string workload, metric;
    std::vector<Suggestion> suggestions;
    size_t left_out = 0;  ///< suggestions left out to fit a size limit (RenderMarkdownFitted)
  };
  std::vector<Explained> explained;
  /// Rows left out of the table to fit a size limit (RenderMarkdownFitted);
  /// the heading still counts them. 0 in a whole report.
  size_t left_out = 0;
};

struct ReportView {
  Outcome outcome = Outcome::kPass;
  std::string label;      ///< OutcomeLabel: "not judged"
  /// Heading text after "gpugate: ": the counts for pass, fail and
  /// inconclusive; "not judged: 16 inconclusive; could not see changes below
  /// +11%"; "error: 1 workload failed to run; <counts>". Always names the
  /// outcome for not_judged and error, whose mark alone would not.
  std::string headline;
  /// The closing console line after "LABEL: " (the headline without the
  /// "not judged: " / "error: " prefix).
  std::string summary;
  std::string counts;        ///< CountsSentence
  std::string outcome_note;  ///< why the outcome is what it is; empty for pass and fail
  std::string detectable;    ///< "+1.4% … +12%" over tested results; empty when none
  /// What `detectable` is: "the smallest slowdown each comparison catches
  /// with 90% power", or, with a higher-is-better result among them, "...
  /// change ...: a slowdown, or a drop of a higher-is-better result".
  std::string detectable_gloss;
  std::string requirement;   ///< "policy requires +10%: 3 workloads too noisy to guard"; or empty
  std::string context;       ///< "baseline A vs current B; policy P (FDR q = 0.05); gpugate 1.0"
  int results = 0;           ///< number of results compared
  std::vector<ViewSection> sections;  ///< only groups that have rows, in order
  bool environment_matches = true;
  ViewTable env_differences;          ///< Field | Baseline | Current
  std::vector<Suggestion> suggestions;  ///< by priority, then input order
  /// What RenderMarkdownFitted left out to fit a size limit, and where it
  /// all is ("a pull-request comment; the --markdown, ... list every row");
  /// empty in a whole report. Each list says how many of its items are gone.
  struct LeftOut {
    std::string where;
    size_t kernel_changes = 0, roofline = 0, env_differences = 0, suggestions = 0, warnings = 0;
    /// Texts longer than this many bytes were shortened (ending in "…"); 0
    /// when none was.
    size_t shortened_to = 0;
  };
  LeftOut left_out = {};
  /// Workload | Kernel | Change ("new" / "vanished"): kernels launched in only
  /// one of the two runs; no rows when there are none.
  ViewTable kernel_changes;
  /// "Roofline on <device> (device profile)" and Workload | Kernel | Regime |
  /// FLOP/B | % of roof | Time; no rows without `--device-profile`.
  std::string roofline_title;
  ViewTable roofline;
  std::vector<std::string> warnings;
};

/// Builds the view. Pure.
ReportView BuildView(const Verdicts& verdicts);

}  // namespace gpugate
