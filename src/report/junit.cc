// JUnit XML report (see junit.h for the mapping of verdicts onto testcases).
#include "report/junit.h"

#include <cstdio>
#include <optional>

#include "util/text/escape.h"
#include "util/text/format.h"
#include "report/view.h"

namespace gpugate {
namespace {

constexpr const char* kEpoch = "1970-01-01T00:00:00";

enum class CaseKind { kPass, kFailure, kError, kSkipped };

// What a result is in JUnit. Only a decided result passes: undecided,
// incomparable, skipped, new and removed results compared nothing, so they
// are skipped, or failures where the policy asked for the certainty they
// lack (the outcome `inconclusive`, exit 4).
CaseKind KindOf(const MetricVerdict& m, const Verdicts& v) {
  if (FailedToRun(m)) return CaseKind::kError;
  if (FailsGate(m)) return CaseKind::kFailure;
  if (UndecidedFailsGate(m, v)) return CaseKind::kFailure;
  // Severity off: reported, ignored by the outcome, so never a passed test
  // (under a not-judged outcome it would read as a green run).
  if (m.severity == Severity::kOff) return CaseKind::kSkipped;
  if (m.verdict == Verdict::kInconclusive || m.verdict == Verdict::kIncomparable ||
      m.verdict == Verdict::kSkipped || m.verdict == Verdict::kNew || m.verdict == Verdict::kRemoved) {
    return CaseKind::kSkipped;
  }
  return CaseKind::kPass;
}

std::string Num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

// The schema's ISO8601_DATETIME_PATTERN: exactly "YYYY-MM-DDTHH:MM:SS".
// Longer stamps ("...Z", fractional seconds) are cut to that form.
std::string SchemaTimestamp(const std::string& ts) {
  static constexpr char kShape[] = "dddd-dd-ddTdd:dd:dd";
  if (ts.size() < 19) return kEpoch;
  for (size_t i = 0; i < 19; ++i) {
    const char want = kShape[i];
    const char c = ts[i];
    if (want == 'd' ? (c < '0' || c > '9') : c != want) return kEpoch;
  }
  return ts.substr(0, 19);
}

std::string Hostname(const std::string& h) {
  for (char c : h) {
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return h;
  }
  return "localhost";
}

// "verdict=regression ratio=1.041 ci=[1.029, 1.053] ..." (canonical numbers).
std::string Statistics(const MetricVerdict& m) {
  std::string s = std::string("verdict=") + ToString(m.verdict);
  if (m.ratio) s += " ratio=" + Num(*m.ratio);
  if (m.ci_low && m.ci_high) {
    s += " ci=[" + Num(*m.ci_low) + ", " + Num(*m.ci_high) + "] confidence=" + Num(m.confidence);
  }
  if (m.p_value) s += " p=" + Num(*m.p_value);
  if (m.p_adjusted) s += " p_adjusted=" + Num(*m.p_adjusted);
  s += " threshold=" + Num(m.threshold);
  if (m.mde) s += " mde=" + Num(*m.mde);
  s += std::string(" severity=") + ToString(m.severity);
  if (m.waived) s += " waived=true";
  return s;
}

// Untrusted text on one line, so a name cannot forge lines in system-out.
std::string OneLine(std::string s) {
  for (char& c : s) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return s;
}

// "incomparable: <note>" (the verdict is not repeated when the note starts with it).
std::string SkipMessage(const MetricVerdict& m, const std::string& note) {
  const std::string verdict = ToString(m.verdict);
  const std::string text = note.empty()                                   ? verdict
                           : note.compare(0, verdict.size(), verdict) == 0 ? note
                                                                           : verdict + ": " + note;
  return m.severity == Severity::kOff ? "ignored (severity off): " + text : text;
}

// Human-readable detail of one result (failure and error bodies): the
// numbers, then the full sentence.
// The suggestions that explain a regression, one line each.
std::string Explains(const Verdicts& verdicts, const MetricVerdict& m) {
  std::string out;
  for (const Suggestion* s : SuggestionsExplaining(verdicts, m)) {
    out += "\n[" + SuggestionLabel(*s) + "] " + OneLine(s->rule);
    if (!s->kernel.empty()) out += " (" + OneLine(s->kernel) + ")";
    out += ": " + OneLine(s->message) + SuggestionDetail(*s, OneLine);
  }
  return out;
}

std::string Detail(const MetricVerdict& m, std::optional<double> require_detectable) {
  std::string s = "change: " + ChangeText(m);
  if (m.ci_low && m.ci_high) s += " (" + Num(m.confidence * 100) + "% CI)";
  s += "\np (adjusted): " + FormatPValues(m);
  s += "\nthreshold: " + FormatThreshold(m.threshold);
  if (m.mde) s += "\ncould see: " + DetectableText(m) + " (90% power)";
  const std::string values = FormatValues(m, " -> ");
  if (!values.empty()) s += "\nbaseline -> current: " + values;
  s += "\nsamples: " + std::to_string(m.baseline_n) + " vs " + std::to_string(m.current_n) +
       " over " + std::to_string(m.baseline_rounds) + " vs " + std::to_string(m.current_rounds) +
       " rounds";
  if (m.baseline_history_runs) {
    s += "; baseline history of " + std::to_string(*m.baseline_history_runs) + " runs";
  }
  if (m.reason != Reason::kNone) s += "\nreason: " + std::string(ToString(m.reason));
  const std::string note = FullNoteText(m, require_detectable);
  if (!note.empty()) s += "\n" + note;
  return s;
}

}  // namespace

std::string RenderJunit(const Verdicts& verdicts, const ReportOptions& options) {
  const ReportView view = BuildView(verdicts);
  const std::optional<double> need = verdicts.require_detectable;
  const std::vector<const MetricVerdict*> ordered = OrderedMetrics(verdicts);
  int failures = 0, errors = 0, skipped = 0;
  for (const MetricVerdict* m : ordered) {
    const CaseKind k = KindOf(*m, verdicts);
    failures += k == CaseKind::kFailure;
    errors += k == CaseKind::kError;
    skipped += k == CaseKind::kSkipped;
  }
  // A finding of a policy rule with `emit: fail` fails the gate as a
  // regression does: one failing test case each.
  std::vector<const Suggestion*> rule_failures;
  for (const Suggestion& s : view.suggestions)
    if (s.severity == "fail") rule_failures.push_back(&s);
  failures += static_cast<int>(rule_failures.size());

  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n";
  out += "  <testsuite name=\"gpugate\" package=\"gpugate\" id=\"0\" tests=\"" +
         std::to_string(ordered.size() + rule_failures.size()) + "\" failures=\"" + std::to_string(failures) +
         "\" errors=\"" + std::to_string(errors) + "\" skipped=\"" + std::to_string(skipped) +
         "\" time=\"0\" timestamp=\"" +
         SchemaTimestamp(options.timestamp) + "\" hostname=\"" +
         EscapeXml(Hostname(options.hostname)) + "\">\n";

  // Suite-level properties: the run, then one entry per testcase.
  // Reporters print properties as lines too: names and values stay on one.
  auto property = [&out](const std::string& name, const std::string& value) {
    out += "      <property name=\"" + EscapeXmlName(name) + "\" value=\"" + EscapeXmlName(value) +
           "\"/>\n";
  };
  out += "    <properties>\n";
  property("gpugate.outcome", ToString(verdicts.outcome));
  property("gpugate.headline", view.headline);
  if (!view.detectable.empty()) property("gpugate.could_see", view.detectable);
  if (need) property("gpugate.require_detectable", Num(*need));
  property("gpugate.schema", verdicts.schema);
  if (!verdicts.tool_version.empty()) property("gpugate.tool_version", verdicts.tool_version);
  property("gpugate.baseline", verdicts.baseline_label);
  property("gpugate.current", verdicts.current_label);
  property("gpugate.policy", verdicts.policy_name);
  property("gpugate.fdr_q", Num(verdicts.fdr_q));
  property("gpugate.environment_matches", verdicts.environment_matches ? "true" : "false");
  for (const auto& d : verdicts.env_differences) {
    property("gpugate.env." + (d.field.empty() ? std::string("?") : d.field),
             d.baseline + " -> " + d.current);
  }
  for (const MetricVerdict* m : ordered) {
    property(m->metric + " " + m->workload, Statistics(*m));
  }
  out += "    </properties>\n";

  std::string system_out;
  for (const MetricVerdict* m : ordered) {
    const std::string classname = "gpugate." + m->metric;
    out += "    <testcase classname=\"" + EscapeXmlName(classname) + "\" name=\"" +
           EscapeXmlName(m->workload) + "\" time=\"0\"";
    const std::string note = NoteText(*m, need);
    switch (KindOf(*m, verdicts)) {
      case CaseKind::kFailure:
        out += ">\n      <failure type=\"" + std::string(ToString(m->verdict)) + "\" message=\"" +
               EscapeXml(note) + "\">" + EscapeXmlText(Detail(*m, need) + Explains(verdicts, *m)) +
               "</failure>\n    </testcase>\n";
        break;
      case CaseKind::kError:
        out += ">\n      <error type=\"" + std::string(ToString(m->reason)) + "\" message=\"" +
               EscapeXml(note) + "\">" + EscapeXmlText(Detail(*m, need)) +
               "</error>\n    </testcase>\n";
        break;
      case CaseKind::kSkipped:
        out += ">\n      <skipped message=\"" + EscapeXml(SkipMessage(*m, note)) +
               "\"/>\n    </testcase>\n";
        break;
      case CaseKind::kPass:
        out += "/>\n";
        break;
    }
    system_out += "[" + OneLine(VerdictLabel(*m)) + "] " + OneLine(m->metric) + " " +
                  OneLine(m->workload) + ": " + ChangeText(*m) +
                  "; p " + FormatPValues(*m) + "; threshold " + FormatThreshold(m->threshold);
    if (m->mde) system_out += "; could see " + DetectableText(*m);
    if (!note.empty()) system_out += "; " + OneLine(note);
    system_out += "\n";
  }
  for (const Suggestion* s : rule_failures) {
    const std::string subject = SuggestionSubject(*s, [](const std::string& t) { return t; });
    out += "    <testcase classname=\"gpugate.rule\" name=\"" +
           EscapeXmlName(s->rule + (subject.empty() ? "" : ": " + subject)) +
           "\" time=\"0\">\n      <failure type=\"rule\" message=\"" + EscapeXml(s->message) + "\">" +
           EscapeXmlText(s->message + SuggestionDetail(*s, [](const std::string& t) { return t; })) +
           "</failure>\n    </testcase>\n";
  }
  for (const Suggestion& s : view.suggestions) {
    system_out += "[suggestion " + SuggestionLabel(s) + "] " + OneLine(s.rule);
    if (const std::string subject = SuggestionSubject(s, OneLine); !subject.empty())
      system_out += " (" + subject + ")";
    system_out += ": " + OneLine(s.message);
    system_out += SuggestionDetail(s, OneLine);
    system_out += "\n";
  }
  for (const auto& r : view.kernel_changes.rows)
    system_out += "[" + r[2] + " kernel] " + OneLine(r[1]) + " (" + OneLine(r[0]) + ")\n";
  for (const auto& r : view.roofline.rows)
    system_out += "[roofline] " + OneLine(r[0]) + (r[1] == "-" ? "" : " / " + OneLine(r[1])) + ": " +
                  r[2] + ", " + r[4] + " of roof, " + r[3] + " FLOP/B, " + r[5] + "\n";
  for (const std::string& w : verdicts.warnings) system_out += "[warning] " + OneLine(w) + "\n";
  if (!view.detectable.empty()) system_out += "could have seen: " + view.detectable + "\n";
  if (!view.requirement.empty()) system_out += view.requirement + "\n";
  system_out += ToString(verdicts.outcome) + std::string(": ") + view.summary + "\n";

  out += "    <system-out>" + EscapeXmlText(system_out) + "</system-out>\n";
  out += "    <system-err></system-err>\n";
  out += "  </testsuite>\n</testsuites>\n";
  return out;
}

}  // namespace gpugate
