// The report view shared by the Markdown, HTML and console reporters (see view.h).
#include "report/view.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <utility>

#include "model/verdicts.h"
#include "util/text/format.h"

namespace gpugate {
namespace {

// Regressions that fail the gate first, then warn-only, then waived or off.
int RegressionWeight(const MetricVerdict& m) {
  if (m.verdict != Verdict::kRegression) return 0;
  if (FailsGate(m)) return 0;
  if (!m.waived && m.severity == Severity::kWarn) return 1;
  return 2;
}

// What a common-shift row without a test lacked: one run per side (or one
// baseline run) cannot tell the suite's shift from the machine's speed; with
// a history, the speed factors of 2 history runs and of a current run that
// covers most of the workloads (compare.cc AddCommonShift).
std::string CommonShiftWithoutRuns(const MetricVerdict& m) {
  if (m.sentence.rfind("a shift common to all workloads needs run speed factors", 0) == 0)
    return m.baseline_history_runs ? "a current run covering too few of them"
                                   : "too few history runs with a speed factor";
  return m.current_rounds > 1 ? "one baseline run" : "one run per side";
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

bool Undecided(Verdict v) { return v == Verdict::kInconclusive || v == Verdict::kIncomparable; }

// The columns a result table can have, in the order they appear.
enum class Column {
  kWorkload, kMetric, kVerdict, kChange, kP, kThreshold, kCouldSee, kValues, kNote
};

struct ColumnSpec {
  const char* name;  // empty: ChangeHeader
  bool right_aligned;
};

ColumnSpec SpecOf(Column c) {
  switch (c) {
    case Column::kWorkload: return {"Workload", false};
    case Column::kMetric: return {"Metric", false};
    case Column::kVerdict: return {"Verdict", false};
    case Column::kChange: return {"", true};
    case Column::kP: return {"p (adjusted)", true};
    case Column::kThreshold: return {"Threshold", true};
    case Column::kCouldSee: return {"Could see", true};
    case Column::kValues: return {"Baseline \u2192 current", false};
    case Column::kNote: return {"Note", false};
  }
  return {"", false};
}

std::string Cell(Column c, const MetricVerdict& m, std::optional<double> require_detectable) {
  switch (c) {
    case Column::kWorkload: return m.workload;
    case Column::kMetric: return m.metric;
    case Column::kVerdict: return VerdictLabel(m);
    case Column::kChange: return ChangeText(m);
    case Column::kP: return FormatPValues(m);
    case Column::kThreshold: return FormatThreshold(m.threshold);
    case Column::kCouldSee: return DetectableText(m);
    case Column::kValues: return FormatValues(m);
    case Column::kNote: return NoteText(m, require_detectable);
  }
  return "";
}

ViewTable ResultTable(const std::vector<const MetricVerdict*>& rows,
                      const std::vector<Column>& columns,
                      std::optional<double> require_detectable) {
  ViewTable t;
  for (Column c : columns) {
    const ColumnSpec spec = SpecOf(c);
    t.columns.push_back(c == Column::kChange ? ChangeHeader(rows) : spec.name);
    t.right_aligned.push_back(spec.right_aligned);
  }
  for (const MetricVerdict* m : rows) {
    std::vector<std::string> cells;
    for (Column c : columns) cells.push_back(Cell(c, *m, require_detectable));
    t.rows.push_back(std::move(cells));
  }
  return t;
}

Tone RegressionTone(const std::vector<const MetricVerdict*>& rows) {
  Tone tone = Tone::kNeutral;
  for (const MetricVerdict* m : rows) {
    if (FailsGate(*m)) return Tone::kFail;
    if (!m->waived && m->severity == Severity::kWarn) tone = Tone::kWarn;
  }
  return tone;
}

// "3 inconclusive, 1 incomparable": what was left undecided.
std::string UndecidedCounts(const std::vector<const MetricVerdict*>& shown) {
  if (shown.empty()) return "no results were compared";
  int inconclusive = 0, incomparable = 0, fresh = 0, removed = 0, skipped = 0, off = 0;
  for (const MetricVerdict* m : shown) {
    if (m->severity == Severity::kOff) {
      ++off;  // decided or not, the outcome ignores it
      continue;
    }
    inconclusive += m->verdict == Verdict::kInconclusive;
    incomparable += m->verdict == Verdict::kIncomparable;
    fresh += m->verdict == Verdict::kNew;
    removed += m->verdict == Verdict::kRemoved;
    skipped += m->verdict == Verdict::kSkipped && !FailedToRun(*m) &&
               m->reason != Reason::kCodeUnchanged;
  }
  std::string out = std::to_string(inconclusive) + " inconclusive";
  if (incomparable > 0) out += ", " + std::to_string(incomparable) + " incomparable";
  // New and removed workloads had nothing to be compared with.
  if (fresh > 0) out += ", " + std::to_string(fresh) + " new (no baseline)";
  if (removed > 0) out += ", " + std::to_string(removed) + " removed";
  // Skipped or failed on either side: not compared (e.g. no device on this runner).
  if (skipped > 0) out += ", " + std::to_string(skipped) + " skipped (not compared)";
  if (off > 0) out += ", " + std::to_string(off) + " ignored (severity off)";
  return out;
}

int FailedWorkloads(const Verdicts& verdicts) {
  std::set<std::string> failed;
  for (const auto& m : verdicts.metrics)
    if (FailedToRun(m)) failed.insert(m.workload);
  return static_cast<int>(failed.size());
}

std::string RangeText(const Detectability& d) {
  if (!d.lowest || !d.highest) return "";
  const std::string lo = FormatDetectable(*d.lowest, d.lowest_lower_is_better);
  const std::string hi = FormatDetectable(*d.highest, d.highest_lower_is_better);
  return lo == hi ? lo : lo + " \u2026 " + hi;
}

// "could not see changes below +24%"; the smallest being a drop of a
// higher-is-better result, "could not see drops smaller than 72%" (a
// "-72%" there would read as the changes it could see).
std::string CouldNotSeeBelow(const Detectability& d) {
  if (d.lowest_lower_is_better) return "could not see changes below " + FormatDetectable(*d.lowest);
  std::string size = FormatDetectable(*d.lowest, false);
  if (!size.empty() && size.front() == '-') size.erase(0, 1);
  return "could not see drops smaller than " + size;
}

const char* OutcomeNote(Outcome o) {
  switch (o) {
    case Outcome::kPass:
    case Outcome::kFail: return "";
    case Outcome::kInconclusive: return "the policy asks for certainty that is missing";
    case Outcome::kError: return "a workload of this run failed, so its results are missing";
    case Outcome::kNotJudged:
      return "nothing was decided, so this is not a pass; the policy lets it through";
  }
  return "";
}

// CountsSentence, with or without the count of workloads that failed to run
// (the error headline names them already).
std::string CountsText(const Verdicts& verdicts, bool with_failed) {
  int regressions = 0, improvements = 0, unchanged = 0, inconclusive = 0;
  int waived = 0, warn_only = 0, off = 0, failed = 0;
  std::map<Verdict, int> others;  // new, removed, skipped, incomparable
  for (const MetricVerdict* m : ShownMetrics(verdicts)) {
    switch (m->verdict) {
      case Verdict::kRegression:
        ++regressions;
        if (m->waived) {
          ++waived;
        } else if (m->severity == Severity::kWarn) {
          ++warn_only;
        } else if (m->severity == Severity::kOff) {
          ++off;
        }
        break;
      case Verdict::kImprovement: ++improvements; break;
      case Verdict::kUnchanged: ++unchanged; break;
      case Verdict::kInconclusive: ++inconclusive; break;
      default:
        if (FailedToRun(*m)) {
          ++failed;
        } else {
          ++others[m->verdict];
        }
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
  out += ", " + Plural(improvements, "improvement", "improvements");
  out += ", " + std::to_string(unchanged) + " unchanged";
  out += ", " + std::to_string(inconclusive) + " inconclusive";
  for (Verdict v : {Verdict::kNew, Verdict::kRemoved, Verdict::kSkipped}) {
    if (others[v] > 0) out += ", " + std::to_string(others[v]) + " " + ToString(v);
  }
  if (with_failed && failed > 0) out += ", " + std::to_string(failed) + " failed";
  if (others[Verdict::kIncomparable] > 0) {
    out += ", " + std::to_string(others[Verdict::kIncomparable]) + " incomparable";
  }
  return out;
}

// The headline, summary, what could have been seen and the policy's
// requirement (see ReportView).
void AddHeadline(const Verdicts& verdicts, ReportView* view) {
  const Detectability all = DetectabilityOf(verdicts, /*undecided_only=*/false);
  view->detectable = RangeText(all);
  view->detectable_gloss = all.any_higher_is_better
                               ? "the smallest change each comparison catches with 90% power: a slowdown, or a drop "
                                 "of a higher-is-better result"
                               : "the smallest slowdown each comparison catches with 90% power";
  if (verdicts.require_detectable) {
    view->requirement = "policy requires " + FormatDetectable(*verdicts.require_detectable) + ": ";
    // The requirement holds undecided results to it (a decided one needs no
    // power): say which case this is, never "could see it" of results whose
    // minimum detectable effect is larger.
    // Undecided results the requirement holds (tested, either direction of
    // better, not ignored by the policy), and of them those that could not
    // see it (undetectable marks only those that count).
    int held = 0, blind = 0, ignored = 0;
    for (const MetricVerdict* m : ShownMetrics(verdicts)) {
      if (!m->mde || !Undecided(m->verdict)) continue;
      if (m->severity == Severity::kOff) {
        ++ignored;
        continue;
      }
      ++held;
      blind += std::fabs(*m->mde) > *verdicts.require_detectable;
    }
    if (all.undetectable > 0) {
      // Too noisy to guard, and measured no noise at all (one value per
      // side, no spread: more repetitions, not a quieter runner, would
      // help); the (suite) row is the whole suite's common shift, not a
      // workload.
      std::string noisy = all.noisy_workloads > 0 ? Plural(all.noisy_workloads, "workload", "workloads") : "";
      if (all.common_undetectable) noisy += (noisy.empty() ? "" : " and ") + std::string("the suite's common shift");
      if (!noisy.empty()) view->requirement += noisy + " too noisy to guard";
      if (all.blind_workloads > 0)
        view->requirement += (noisy.empty() ? "" : ", ") + Plural(all.blind_workloads, "workload", "workloads") +
                             " whose noise could not be measured";
    } else if (held > 0 && blind == 0)
      view->requirement += "every undecided result could see it";
    else if (held > 0)
      view->requirement += Plural(blind, "undecided result", "undecided results") + " could not see it";
    else
      view->requirement += "no tested result was left undecided";
    if (ignored > 0)
      view->requirement += " (" + Plural(ignored, "undecided result", "undecided results") +
                           " of severity off not held to it)";
  }
  // Policy rules that emit `fail` fail the gate like a regression: say which.
  int rule_failures = 0;
  std::set<std::string> failing_rules;
  for (const Suggestion& s : verdicts.suggestions)
    if (s.severity == "fail") {
      ++rule_failures;
      failing_rules.insert(s.rule);
    }
  std::string rule_text;
  if (rule_failures > 0) {
    // The first few rule ids: a headline is one line, whatever the policy.
    constexpr size_t kNamedRules = 5;
    std::string ids;
    size_t named = 0;
    for (const std::string& id : failing_rules) {
      if (named++ == kNamedRules) break;
      ids += (ids.empty() ? "" : ", ") + id;
    }
    if (failing_rules.size() > kNamedRules)
      ids += " and " + std::to_string(failing_rules.size() - kNamedRules) + " more";
    rule_text = "; " + Plural(rule_failures, "rule finding fails", "rule findings fail") +
                " the gate (" + ids + ")";
  }
  switch (verdicts.outcome) {
    case Outcome::kPass:
    case Outcome::kFail:
      view->summary = view->counts + rule_text;
      break;
    case Outcome::kInconclusive:
      view->summary = view->counts;
      if (all.undetectable > 0) view->summary += "; " + view->requirement;
      break;
    case Outcome::kNotJudged: {
      const Detectability undecided = DetectabilityOf(verdicts, /*undecided_only=*/true);
      const std::vector<const MetricVerdict*> shown = ShownMetrics(verdicts);
      view->summary = UndecidedCounts(shown);
      // Without any stated MDE: either nothing was tested (one value per
      // side, skipped), or tests ran but the noise between runs they need
      // could not be measured (too few workloads with one run per side).
      bool unmeasured = false, all_off = !shown.empty();
      for (const MetricVerdict* m : shown) {
        unmeasured = unmeasured || m->reason == Reason::kBetweenRunNoiseUnmeasured;
        all_off = all_off && m->severity == Severity::kOff;
      }
      if (all_off)
        view->summary = Plural(static_cast<int>(shown.size()), "result", "results") +
                        ", all ignored by the policy (severity off): none counts for the outcome";
      else if (!shown.empty())
        view->summary += "; " + (undecided.lowest ? CouldNotSeeBelow(undecided)
                                 : unmeasured ? std::string("noise between runs could not be measured")
                                              : std::string("nothing could be tested"));
      break;
    }
    case Outcome::kError: {
      const int failed = FailedWorkloads(verdicts);
      view->summary = (failed > 0 ? Plural(failed, "workload", "workloads") + " failed to run"
                                  : std::string("a workload failed to run")) +
                      "; " + CountsText(verdicts, /*with_failed=*/false) + rule_text;
      break;
    }
  }
  // A slowdown common to every workload that stayed undecided (one run per
  // side cannot judge it; a history may not have been sure): each workload
  // read "unchanged" against the others, so say it.
  for (const MetricVerdict* m : ShownMetrics(verdicts)) {
    if (!IsCommonWorkload(m->workload) || m->verdict != Verdict::kInconclusive || !m->ratio ||
        !m->lower_is_better || !(std::log(*m->ratio) > std::log1p(m->threshold)))
      continue;
    // By the row's name: in a suite of several clocks "(suite)" is the
    // host's workloads only (docs/reports.md).
    view->summary += "; " + m->workload + " ran " + FormatRatioCi(m->ratio, std::nullopt, std::nullopt) + " slower together, ";
    view->summary += m->reason == Reason::kNoReplication
                         ? std::string("which ") + CommonShiftWithoutRuns(*m) + " cannot judge"
                         : "undecided: " + ShortNote(*m, verdicts.require_detectable);
  }
  const bool named = verdicts.outcome == Outcome::kNotJudged || verdicts.outcome == Outcome::kError;
  view->headline = named ? view->label + ": " + view->summary : view->summary;
}

// The groups of results, each with the columns that say something about it.
void AddSections(const Verdicts& verdicts, ReportView* view) {
  const std::optional<double> need = verdicts.require_detectable;
  std::vector<const MetricVerdict*> failed, regressions, improvements, inconclusive, other,
      unchanged, skipped_in_both;
  for (const MetricVerdict* m : ShownMetrics(verdicts)) {
    if (FailedToRun(*m)) {
      failed.push_back(m);
      continue;
    }
    switch (m->verdict) {
      case Verdict::kRegression: regressions.push_back(m); break;
      case Verdict::kImprovement: improvements.push_back(m); break;
      case Verdict::kInconclusive: inconclusive.push_back(m); break;
      case Verdict::kUnchanged: unchanged.push_back(m); break;
      default:
        (m->reason == Reason::kSkippedInBoth ? skipped_in_both : other).push_back(m);
    }
  }
  using C = Column;
  const std::vector<Column> decided = {C::kWorkload, C::kMetric, C::kChange, C::kP, C::kValues,
                                       C::kNote};
  if (!failed.empty()) {
    view->sections.push_back({"failed", "Failed to run", false, Tone::kFail,
                              ResultTable(failed, {C::kWorkload, C::kMetric, C::kNote}, need), {}});
  }
  if (!regressions.empty()) {
    view->sections.push_back({"regressions", "Regressions", false, RegressionTone(regressions),
                              ResultTable(regressions, decided, need), {}});
    for (const MetricVerdict* m : regressions) {
      ViewSection::Explained e{m->workload, m->metric, {}};
      for (const Suggestion* s : SuggestionsExplaining(verdicts, *m)) e.suggestions.push_back(*s);
      if (!e.suggestions.empty()) view->sections.back().explained.push_back(std::move(e));
    }
  }
  if (!improvements.empty()) {
    view->sections.push_back({"improvements", "Improvements", false, Tone::kGood,
                              ResultTable(improvements, decided, need), {}});
  }
  if (!inconclusive.empty()) {
    // Amber where these results made the outcome inconclusive (exit 4),
    // not where incomparable ones did.
    const bool fail = std::any_of(inconclusive.begin(), inconclusive.end(),
                                  [&](const MetricVerdict* m) { return UndecidedFailsGate(*m, verdicts); });
    const Tone tone = fail ? Tone::kWarn : Tone::kUndecided;
    view->sections.push_back(
        {"inconclusive", "Inconclusive", false, tone,
         ResultTable(inconclusive,
                     {C::kWorkload, C::kMetric, C::kChange, C::kP, C::kCouldSee, C::kNote},
                     need),
         {}});
  }
  if (!other.empty()) {
    view->sections.push_back(
        {"other", "New, removed, skipped and incomparable", false, Tone::kNeutral,
         ResultTable(other, {C::kWorkload, C::kMetric, C::kVerdict, C::kNote}, need), {}});
  }
  if (!unchanged.empty()) {
    view->sections.push_back(
        {"unchanged", "Unchanged", true, Tone::kNeutral,
         ResultTable(unchanged,
                     {C::kWorkload, C::kMetric, C::kChange, C::kThreshold, C::kCouldSee,
                      C::kValues},
                     need),
         {}});
  }
  if (!skipped_in_both.empty()) {
    view->sections.push_back(
        {"skipped-in-both", "Skipped in both runs", true, Tone::kNeutral,
         ResultTable(skipped_in_both, {C::kWorkload, C::kMetric, C::kNote}, need), {}});
  }
}

}  // namespace

bool FailsGate(const MetricVerdict& m) {
  return m.verdict == Verdict::kRegression && m.severity == Severity::kFail && !m.waived;
}

bool FailedToRun(const MetricVerdict& m) { return m.reason == Reason::kCurrentFailed; }

bool CountedInconclusive(const MetricVerdict& m) {
  return m.verdict == Verdict::kInconclusive && m.severity != Severity::kOff && !UntestableCommonShift(m);
}

bool UndecidedFailsGate(const MetricVerdict& m, const Verdicts& v) {
  if (v.outcome != Outcome::kInconclusive || m.severity == Severity::kOff) return false;
  if (m.verdict == Verdict::kIncomparable) return v.incomparable_fails;
  if (!CountedInconclusive(m)) return false;
  // on_inconclusive: fail fails every counted one; require_detectable only
  // those too noisy to guard (an inconclusive result it can see passes).
  return v.inconclusive_fails || UnguardedByPolicy(m, v.require_detectable.has_value());
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
  // A workload that failed to run comes first: it makes the outcome an error.
  auto order = [](const MetricVerdict& m) {
    return FailedToRun(m) ? -1 : VerdictOrder(m.verdict);
  };
  std::stable_sort(out.begin(), out.end(), [&](const MetricVerdict* a, const MetricVerdict* b) {
    const int oa = order(*a), ob = order(*b);
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

std::vector<const MetricVerdict*> ShownMetrics(const Verdicts& verdicts) {
  std::map<std::string, const MetricVerdict*> time_verdict;  // first "time" result of each workload
  for (const auto& m : verdicts.metrics)
    if (m.metric == "time") time_verdict.emplace(m.workload, &m);
  std::vector<const MetricVerdict*> out;
  for (const MetricVerdict* m : OrderedMetrics(verdicts)) {
    if (m->metric == "throughput") {
      // Folded only where it says what its time says and does to the gate
      // what its time does: a throughput regression that fails while its
      // time's is waived (or only warns) is the row that fails the gate.
      const auto it = time_verdict.find(m->workload);
      if (it != time_verdict.end()) {
        const MetricVerdict& t = *it->second;
        const bool same_effect =
            t.verdict != Verdict::kRegression
                ? (t.severity == Severity::kOff) == (m->severity == Severity::kOff)
                : t.waived == m->waived && t.severity == m->severity && FailsGate(t) == FailsGate(*m);
        if (t.verdict == m->verdict && same_effect) continue;
      }
    }
    out.push_back(m);
  }
  return out;
}

std::string CountsSentence(const Verdicts& verdicts) { return CountsText(verdicts, true); }

const char* OutcomeLabel(Outcome o) {
  switch (o) {
    case Outcome::kPass: return "pass";
    case Outcome::kFail: return "fail";
    case Outcome::kInconclusive: return "inconclusive";
    case Outcome::kError: return "error";
    case Outcome::kNotJudged: return "not judged";
  }
  return "error";
}

std::vector<const Suggestion*> SuggestionsExplaining(const Verdicts& verdicts,
                                                     const MetricVerdict& m) {
  std::vector<const Suggestion*> out;
  if (m.verdict != Verdict::kRegression || m.workload.empty()) return out;
  const bool kernel = m.metric.rfind("kernel:", 0) == 0;
  for (const Suggestion& s : verdicts.suggestions) {
    if (s.workload != m.workload) continue;
    if (kernel && s.kernel != m.metric.substr(7)) continue;
    out.push_back(&s);
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const Suggestion* a, const Suggestion* b) { return SuggestionBefore(*a, *b); });
  return out;
}

const char* PriorityName(int priority) {
  if (priority <= 0) return "critical";
  if (priority == 1) return "high";
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
  // A metric with its own unit (a custom value, a count) says it; time,
  // throughput and memory are formatted by their name.
  auto format = [&m](double v, int digits) {
    return m.unit.empty() ? FormatMetricValue(m.metric, v, digits) : FormatValueInUnit(v, m.unit, digits);
  };
  // Two values that differ are never printed alike ("1.00 us → 1.00 us"
  // beside a 0.045% regression): more digits until they part. Values within
  // 1e-12 of each other are the same value written two ways (ns and us), as
  // for FormatPercent: three digits.
  const bool apart = m.baseline_value && m.current_value &&
                     std::fabs(*m.baseline_value - *m.current_value) >
                         1e-12 * std::max(std::fabs(*m.baseline_value), std::fabs(*m.current_value));
  std::string b, c;
  for (int digits = 3; digits <= 13; ++digits) {
    b = m.baseline_value ? format(*m.baseline_value, digits) : "n/a";
    c = m.current_value ? format(*m.current_value, digits) : "n/a";
    if (b != c || !apart) break;
  }
  return b + arrow + c;
}

std::string ChangeText(const MetricVerdict& m) {
  return FormatRatioCi(m.ratio, m.ci_low, m.ci_high, ChangeDecimals(m.threshold));
}

std::string DetectableText(const MetricVerdict& m) {
  return m.mde ? FormatDetectable(*m.mde, m.lower_is_better) : "n/a";
}

std::string VerdictLabel(const MetricVerdict& m) {
  if (FailedToRun(m)) return "failed";
  std::string label = ToString(m.verdict);
  if (m.verdict == Verdict::kRegression && !FailsGate(m)) {
    label += m.waived ? " (waived)" : m.severity == Severity::kWarn ? " (warn)" : " (off)";
  }
  return label;
}

std::string ShortNote(const MetricVerdict& m, std::optional<double> require_detectable) {
  const std::string threshold = FormatThreshold(m.threshold) + " threshold";
  auto sentence_or = [&m](const char* fallback) {
    return m.sentence.empty() ? std::string(fallback) : m.sentence;
  };
  switch (m.reason) {
    case Reason::kNone: return m.sentence;
    case Reason::kSignificantAboveThreshold: return "significant, above the " + threshold;
    case Reason::kSignificantImprovement: return "significant, beyond the " + threshold;
    case Reason::kWithinThreshold: return "within the " + threshold;
    case Reason::kStraddlesThreshold: return "interval straddles the " + threshold;
    case Reason::kNotSignificantAfterFdr:
      return "beyond the " + threshold + " but not significant after FDR control";
    case Reason::kBetweenRunNoise: return "noise between runs exceeds the effect";
    case Reason::kBetweenRunNoiseUnmeasured:
      return "noise between runs not measurable: too few comparisons";
    case Reason::kCommonShiftAmbiguous:
      return "machine or change? differs with the suite's common shift removed";
    case Reason::kTooFewSamples:
      // A kernel whose calls read 0 s on one side (compare.cc): no ratio.
      if (m.sentence.find("read 0 s per call") != std::string::npos)
        return std::string(m.sentence.rfind("the baseline's", 0) == 0 ? "baseline" : "current run") +
               " reads 0 s per call: no ratio";
      return m.sentence.find("paired rounds") != std::string::npos ? "too few paired rounds for an interval"
                                                                    : "too few samples for an interval";
    case Reason::kNoSpread: return "no spread measured: a coarse timer?";
    case Reason::kNoReplication:
      if (!IsCommonWorkload(m.workload))
        return m.current_rounds > 1    ? "one baseline value: nothing tested"
               : m.baseline_rounds > 1 ? "one current value: nothing tested"
                                       : "one value per side: nothing tested";
      // Across CPU models of a runner class only runs on the current CPU
      // model can judge the whole-suite shift (compare.cc AddCommonShift).
      {
        const std::string whose = m.workload != kCommonWorkload ? "shift common to the GPU-timed workloads"
                                                                   : "shift common to all workloads";
        return m.sentence.find("current run's CPU model") != std::string::npos
                   ? whose + ": too few history runs on this CPU model to judge it"
                   : whose + ": " + CommonShiftWithoutRuns(m) + " cannot judge it";
      }
    case Reason::kThresholdOnly:
      switch (m.verdict) {
        case Verdict::kRegression: return "above the " + threshold + " (ratio alone, no test)";
        case Verdict::kImprovement: return "beyond the " + threshold + " (ratio alone, no test)";
        case Verdict::kUnchanged: return "within the " + threshold + " (ratio alone, no test)";
        default: return "ratio alone, no test";
      }
    case Reason::kDeterministic:
      switch (m.verdict) {
        case Verdict::kRegression: return "deterministic count, above the " + threshold;
        case Verdict::kImprovement: return "deterministic count, beyond the " + threshold;
        case Verdict::kUnchanged: return "deterministic count, within the " + threshold;
        default: return "deterministic count";
      }
    case Reason::kUndetectable:  // what it could see is DetectableText's
      return require_detectable
                 ? "too noisy to guard: policy requires " + FormatDetectable(*require_detectable)
                 : "too noisy to guard";
    case Reason::kThrottled: return "a side throttled: the shift may be the clock's";
    case Reason::kClockShift: return "not seen in cycle space: the SM clock moved";
    case Reason::kEnvironmentMismatch: return "environments differ: not compared";
    case Reason::kMetricMismatch: return "the sides measured different metrics: not compared";
    case Reason::kNewWorkload: return "not in the baseline";
    case Reason::kRemovedWorkload: return "not in this run";
    case Reason::kNewKernel: return "kernel not in the baseline";
    // Neutral like kNewKernel's: a static kernel is in no run's binary, a
    // timed one was not launched; the full sentence says which.
    case Reason::kVanishedKernel: return "kernel not in this run";
    // The cause comes from the workload itself ("needs 2 GPUs"): keep it.
    case Reason::kCurrentFailed: return sentence_or("failed in this run");
    case Reason::kCurrentSkipped: return sentence_or("skipped in this run");
    case Reason::kBaselineFailed: return sentence_or("failed in the baseline");
    case Reason::kBaselineSkipped: return sentence_or("skipped in the baseline");
    case Reason::kSkippedInBoth: return sentence_or("skipped in the baseline and in this run");
    case Reason::kCodeUnchanged:
      return m.verdict == Verdict::kSkipped ? sentence_or("not run: its code is unchanged")
                                            : "code unchanged (same SASS)";
  }
  return m.sentence;
}

std::string WithPolicyPrefix(const MetricVerdict& m, const std::string& note) {
  if (m.verdict != Verdict::kRegression) return note;
  if (m.waived) {
    return "waived" + (m.waiver_reason.empty() ? std::string() : " (" + m.waiver_reason + ")") +
           ": " + note;
  }
  if (m.severity == Severity::kWarn) return "warn only: " + note;
  if (m.severity == Severity::kOff) return "severity off: " + note;
  return note;
}

std::string NoteText(const MetricVerdict& m, std::optional<double> require_detectable) {
  return WithPolicyPrefix(m, ShortNote(m, require_detectable));
}

std::string FullNoteText(const MetricVerdict& m, std::optional<double> require_detectable) {
  if (m.sentence.empty()) return NoteText(m, require_detectable);
  return WithPolicyPrefix(m, m.sentence);
}

std::string SentenceCase(std::string text) {
  if (!text.empty() && text[0] >= 'a' && text[0] <= 'z') {
    text[0] = static_cast<char>(text[0] - 'a' + 'A');
  }
  return text;
}

std::string LowerFirst(std::string text) {
  if (!text.empty() && text[0] >= 'A' && text[0] <= 'Z') {
    text[0] = static_cast<char>(text[0] - 'A' + 'a');
  }
  return text;
}

std::string EnvValueText(std::string_view field, const EnvValue& value) {
  if (const auto* text = std::get_if<std::string>(&value)) return *text;
  if (const auto* flag = std::get_if<bool>(&value)) return *flag ? "on" : "off";
  std::optional<double> number;
  if (const auto* n = std::get_if<int64_t>(&value)) number = static_cast<double>(*n);
  if (const auto* x = std::get_if<double>(&value)) number = *x;
  if (!number) return "";
  if (field.ends_with("_hz")) return FormatFrequency(*number);
  if (field.ends_with("_bytes")) {
    if (const auto* n = std::get_if<int64_t>(&value)) return FormatBytes(*n);
    return FormatValueInUnit(*number, "B");
  }
  if (field.ends_with("_w")) return FormatValueInUnit(*number, "W");
  return FormatValueInUnit(*number, "");
}

std::string ChangeHeader(const std::vector<const MetricVerdict*>& rows) {
  if (rows.empty()) return "Change [CI]";
  const double c = rows.front()->confidence;
  for (const MetricVerdict* m : rows) {
    if (m->confidence != c) return "Change [CI]";
  }
  return "Change [" + FormatThreshold(c) + " CI]";  // the confidence as set: 99.99%, not 100%
}

Detectability DetectabilityOf(const Verdicts& verdicts, bool undecided_only) {
  Detectability d;
  std::set<std::string> undetectable, noisy, blind;
  double lowest_size = 0, highest_size = 0;
  for (const MetricVerdict* m : ShownMetrics(verdicts)) {
    if (UnguardedByPolicy(*m, verdicts.require_detectable.has_value())) {
      undetectable.insert(m->workload);
      if (IsCommonWorkload(m->workload))
        d.common_undetectable = true;
      else  // every held result of the workload, whatever its row order
        (SeesNothing(*m) ? blind : noisy).insert(m->workload);
    }
    if (!m->mde || !(*m->mde >= 0)) continue;
    if (undecided_only && !Undecided(m->verdict)) continue;
    // A slowdown of x and a drop of x of a higher-is-better metric are
    // different sizes of change: rank both by their log ratio.
    const double size = m->lower_is_better ? std::log1p(*m->mde) : -std::log1p(-std::min(*m->mde, 1.0));
    ++d.tested;
    d.any_higher_is_better = d.any_higher_is_better || !m->lower_is_better;
    if (!d.lowest || size < lowest_size) {
      lowest_size = size;
      d.lowest = *m->mde;
      d.lowest_lower_is_better = m->lower_is_better;
    }
    if (!d.highest || size > highest_size) {
      highest_size = size;
      d.highest = *m->mde;
      d.highest_lower_is_better = m->lower_is_better;
    }
  }
  d.undetectable = static_cast<int>(undetectable.size());
  // A workload with one result of each kind counts as too noisy.
  for (const std::string& w : noisy) blind.erase(w);
  d.noisy_workloads = static_cast<int>(noisy.size());
  d.blind_workloads = static_cast<int>(blind.size());
  return d;
}

const char* ToneName(Tone tone) {
  switch (tone) {
    case Tone::kFail: return "fail";
    case Tone::kWarn: return "warn";
    case Tone::kGood: return "good";
    case Tone::kUndecided: return "undecided";
    case Tone::kNeutral: return "neutral";
  }
  return "neutral";
}

namespace {

// New and vanished kernels, and the roofline rows of a device profile.
void AddKernelsAndRoofline(const Verdicts& verdicts, ReportView* view) {
  view->kernel_changes.columns = {"Workload", "Kernel", "Change"};
  view->kernel_changes.right_aligned = {false, false, false};
  for (const auto& [workload, kernel] : verdicts.new_kernels)
    view->kernel_changes.rows.push_back({workload, kernel, "new"});
  for (const auto& [workload, kernel] : verdicts.vanished_kernels)
    view->kernel_changes.rows.push_back({workload, kernel, "vanished"});
  if (verdicts.device_profile.empty()) return;
  view->roofline_title = "Roofline on " + verdicts.device_profile + " (device profile)";
  view->roofline.columns = {"Workload", "Kernel", "Regime", "FLOP/B", "% of roof", "Time"};
  view->roofline.right_aligned = {false, false, false, true, true, true};
  for (const RooflineRow& r : verdicts.roofline) {
    char ai[32] = "n/a";
    if (r.arithmetic_intensity) std::snprintf(ai, sizeof ai, "%.3g", *r.arithmetic_intensity);
    view->roofline.rows.push_back({r.workload, r.kernel.empty() ? "-" : r.kernel, r.regime, ai,
                                   FormatShare(r.roof_fraction, 1), FormatDuration(r.duration_s)});
  }
}

}  // namespace

ReportView BuildView(const Verdicts& verdicts) {
  ReportView view;
  view.outcome = verdicts.outcome;
  view.label = OutcomeLabel(verdicts.outcome);
  view.counts = CountsSentence(verdicts);
  view.outcome_note = OutcomeNote(verdicts.outcome);
  view.results = static_cast<int>(verdicts.metrics.size());
  view.context = "baseline " + (verdicts.baseline_label.empty() ? "?" : verdicts.baseline_label) +
                 " vs current " + (verdicts.current_label.empty() ? "?" : verdicts.current_label);
  if (!verdicts.policy_name.empty()) view.context += "; policy " + verdicts.policy_name;
  view.context += " (FDR q = " + FormatFraction(verdicts.fdr_q) + ")";
  if (!verdicts.tool_version.empty()) view.context += "; gpugate " + verdicts.tool_version;
  AddHeadline(verdicts, &view);
  AddSections(verdicts, &view);

  view.environment_matches = verdicts.environment_matches;
  view.env_differences.columns = {"Field", "Baseline", "Current"};
  view.env_differences.right_aligned = {false, false, false};
  for (const auto& d : verdicts.env_differences) {
    view.env_differences.rows.push_back({d.field, d.baseline, d.current});
  }

  view.suggestions = verdicts.suggestions;
  std::stable_sort(view.suggestions.begin(), view.suggestions.end(), SuggestionBefore);
  AddKernelsAndRoofline(verdicts, &view);
  view.warnings = verdicts.warnings;
  return view;
}

}  // namespace gpugate
