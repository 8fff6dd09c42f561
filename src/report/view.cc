// The report view shared by the Markdown, HTML and console reporters (see view.h).
#include "report/view.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "report/format.h"

namespace gpugate {
namespace {

// Regressions that fail the gate first, then warn-only, then waived or off.
int RegressionWeight(const MetricVerdict& m) {
  if (m.verdict != Verdict::kRegression) return 0;
  if (FailsGate(m)) return 0;
  if (!m.waived && m.severity == Severity::kWarn) return 1;
  return 2;
}

double EffectSize(const MetricVerdict& m) {
  if (!m.ratio || !(*m.ratio > 0) || !std::isfinite(*m.ratio)) return 0;
  return std::fabs(std::log(*m.ratio));
}

std::string Plural(int n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string FormatFraction(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

std::vector<std::string> ResultCells(const MetricVerdict& m, bool with_p, bool with_values,
                                     bool with_reason) {
  std::vector<std::string> row = {m.workload, m.metric,
                                  FormatRatioCi(m.ratio, m.ci_low, m.ci_high)};
  if (with_p) row.push_back(FormatPValues(m));
  row.push_back(FormatThreshold(m.threshold));
  if (with_values) row.push_back(FormatValues(m));
  if (with_reason) row.push_back(NoteText(m));
  return row;
}

ViewTable ResultTable(const std::vector<const MetricVerdict*>& rows, bool with_p,
                      bool with_values, bool with_reason) {
  ViewTable t;
  t.columns = {"Workload", "Metric", ChangeHeader(rows)};
  t.right_aligned = {false, false, true};
  if (with_p) {
    t.columns.push_back("p (adjusted)");
    t.right_aligned.push_back(true);
  }
  t.columns.push_back("Threshold");
  t.right_aligned.push_back(true);
  if (with_values) {
    t.columns.push_back("Baseline \u2192 current");
    t.right_aligned.push_back(false);
  }
  if (with_reason) {
    t.columns.push_back("Reason");
    t.right_aligned.push_back(false);
  }
  for (const MetricVerdict* m : rows) t.rows.push_back(ResultCells(*m, with_p, with_values, with_reason));
  return t;
}

ViewTable OtherTable(const std::vector<const MetricVerdict*>& rows) {
  ViewTable t;
  t.columns = {"Workload", "Metric", "Verdict", "Reason"};
  t.right_aligned = {false, false, false, false};
  for (const MetricVerdict* m : rows) {
    t.rows.push_back({m->workload, m->metric, ToString(m->verdict), NoteText(*m)});
  }
  return t;
}

}  // namespace

bool FailsGate(const MetricVerdict& m) {
  return m.verdict == Verdict::kRegression && m.severity == Severity::kFail && !m.waived;
}

int VerdictOrder(Verdict v) {
  switch (v) {
    case Verdict::kRegression: return 0;
    case Verdict::kImprovement: return 1;
    case Verdict::kInconclusive: return 2;
    case Verdict::kIncomparable: return 3;
    case Verdict::kSkipped: return 4;
    case Verdict::kNew: return 5;
    case Verdict::kRemoved: return 6;
    case Verdict::kUnchanged: return 7;
  }
  return 8;
}

std::vector<const MetricVerdict*> OrderedMetrics(const Verdicts& verdicts) {
  std::vector<const MetricVerdict*> out;
  out.reserve(verdicts.metrics.size());
  for (const auto& m : verdicts.metrics) out.push_back(&m);
  std::stable_sort(out.begin(), out.end(), [](const MetricVerdict* a, const MetricVerdict* b) {
    const int oa = VerdictOrder(a->verdict), ob = VerdictOrder(b->verdict);
    if (oa != ob) return oa < ob;
    const int wa = RegressionWeight(*a), wb = RegressionWeight(*b);
    if (wa != wb) return wa < wb;
    if (a->verdict == Verdict::kRegression || a->verdict == Verdict::kImprovement) {
      return EffectSize(*a) > EffectSize(*b);
    }
    return false;
  });
  return out;
}

std::string CountsSentence(const Verdicts& verdicts) {
  const int regressions = verdicts.Count(Verdict::kRegression);
  int waived = 0, warn_only = 0, off = 0;
  for (const auto& m : verdicts.metrics) {
    if (m.verdict != Verdict::kRegression) continue;
    if (m.waived) {
      ++waived;
    } else if (m.severity == Severity::kWarn) {
      ++warn_only;
    } else if (m.severity == Severity::kOff) {
      ++off;
    }
  }
  std::string out = Plural(regressions, "regression", "regressions");
  std::vector<std::string> notes;
  if (waived > 0) notes.push_back(std::to_string(waived) + " waived");
  if (warn_only > 0) notes.push_back(std::to_string(warn_only) + " warn only");
  if (off > 0) notes.push_back(std::to_string(off) + " severity off");
  if (!notes.empty()) {
    out += " (";
    for (size_t i = 0; i < notes.size(); ++i) out += (i ? ", " : "") + notes[i];
    out += ")";
  }
  out += ", " + Plural(verdicts.Count(Verdict::kImprovement), "improvement", "improvements");
  out += ", " + std::to_string(verdicts.Count(Verdict::kUnchanged)) + " unchanged";
  out += ", " + std::to_string(verdicts.Count(Verdict::kInconclusive)) + " inconclusive";
  for (Verdict v : {Verdict::kNew, Verdict::kRemoved, Verdict::kSkipped, Verdict::kIncomparable}) {
    const int n = verdicts.Count(v);
    if (n > 0) out += ", " + std::to_string(n) + " " + ToString(v);
  }
  return out;
}

const char* PriorityName(int priority) {
  if (priority <= 1) return "high";
  if (priority == 2) return "medium";
  return "low";
}

std::string FormatPValues(const MetricVerdict& m) {
  if (!m.p_value && !m.p_adjusted) return "n/a";
  std::string out = m.p_value ? FormatPValue(*m.p_value) : "n/a";
  if (m.p_adjusted) out += " (" + FormatPValue(*m.p_adjusted) + ")";
  return out;
}

std::string FormatValues(const MetricVerdict& m, const char* arrow) {
  if (!m.baseline_value && !m.current_value) return "";
  const std::string b = m.baseline_value ? FormatMetricValue(m.metric, *m.baseline_value) : "n/a";
  const std::string c = m.current_value ? FormatMetricValue(m.metric, *m.current_value) : "n/a";
  return b + arrow + c;
}

std::string NoteText(const MetricVerdict& m) {
  std::string text = m.sentence.empty() ? std::string(ToString(m.reason)) : m.sentence;
  if (m.verdict != Verdict::kRegression) return text;
  if (m.waived) {
    return "waived" + (m.waiver_reason.empty() ? std::string() : " (" + m.waiver_reason + ")") +
           ": " + text;
  }
  if (m.severity == Severity::kWarn) return "warn only: " + text;
  if (m.severity == Severity::kOff) return "severity off: " + text;
  return text;
}

std::string ChangeHeader(const std::vector<const MetricVerdict*>& rows) {
  if (rows.empty()) return "Change [CI]";
  const double c = rows.front()->confidence;
  for (const MetricVerdict* m : rows) {
    if (m->confidence != c) return "Change [CI]";
  }
  char buf[48];
  std::snprintf(buf, sizeof buf, "Change [%g%% CI]", std::round(c * 1000.0) / 10.0);
  return buf;
}

ReportView BuildView(const Verdicts& verdicts) {
  ReportView view;
  view.outcome = verdicts.outcome;
  view.counts = CountsSentence(verdicts);
  view.context = "baseline " + (verdicts.baseline_label.empty() ? "?" : verdicts.baseline_label) +
                 " vs current " + (verdicts.current_label.empty() ? "?" : verdicts.current_label);
  if (!verdicts.policy_name.empty()) view.context += "; policy " + verdicts.policy_name;
  view.context += " (FDR q = " + FormatFraction(verdicts.fdr_q) + ")";
  if (!verdicts.tool_version.empty()) view.context += "; gpugate " + verdicts.tool_version;

  std::vector<const MetricVerdict*> regressions, improvements, inconclusive, other, unchanged;
  for (const MetricVerdict* m : OrderedMetrics(verdicts)) {
    switch (m->verdict) {
      case Verdict::kRegression: regressions.push_back(m); break;
      case Verdict::kImprovement: improvements.push_back(m); break;
      case Verdict::kInconclusive: inconclusive.push_back(m); break;
      case Verdict::kUnchanged: unchanged.push_back(m); break;
      default: other.push_back(m);
    }
  }
  if (!regressions.empty()) {
    view.sections.push_back({"regressions", "Regressions", false,
                             ResultTable(regressions, true, true, true)});
  }
  if (!improvements.empty()) {
    view.sections.push_back({"improvements", "Improvements", false,
                             ResultTable(improvements, true, true, true)});
  }
  if (!inconclusive.empty()) {
    view.sections.push_back({"inconclusive", "Inconclusive", false,
                             ResultTable(inconclusive, true, false, true)});
  }
  if (!other.empty()) {
    view.sections.push_back({"other", "New, removed, skipped and incomparable", false,
                             OtherTable(other)});
  }
  if (!unchanged.empty()) {
    view.sections.push_back({"unchanged", "Unchanged", true,
                             ResultTable(unchanged, false, true, false)});
  }

  view.environment_matches = verdicts.environment_matches;
  view.env_differences.columns = {"Field", "Baseline", "Current"};
  view.env_differences.right_aligned = {false, false, false};
  for (const auto& d : verdicts.env_differences) {
    view.env_differences.rows.push_back({d.field, d.baseline, d.current});
  }

  view.suggestions = verdicts.suggestions;
  std::stable_sort(view.suggestions.begin(), view.suggestions.end(),
                   [](const Suggestion& a, const Suggestion& b) {
                     return std::clamp(a.priority, 1, 3) < std::clamp(b.priority, 1, 3);
                   });
  view.warnings = verdicts.warnings;
  return view;
}

}  // namespace gpugate
