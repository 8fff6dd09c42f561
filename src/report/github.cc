// GitHub Actions output (see github.h). Workflow command syntax and escaping
// follow GitHub's "Workflow commands for GitHub Actions" documentation and the
// runner's command parser: data escapes % CR LF; properties also : and ,.
#include "report/github.h"

#include <cstdio>
#include <optional>
#include <vector>

#include "util/text/escape.h"
#include "util/text/format.h"
#include "report/markdown.h"
#include "report/view.h"

namespace gpugate {
namespace {

// Inconclusive results named in the one annotation that lists them.
constexpr size_t kMaxNamedInconclusive = 10;

std::string Command(const char* kind, const std::string& title, const std::string& message,
                    const ReportOptions::Source* source = nullptr) {
  std::string properties;
  if (source && !source->file.empty()) {
    properties = " file=" + EscapeGithubAnnotationProperty(source->file);
    if (source->line > 0) properties += ",line=" + std::to_string(source->line);
    properties += ",";
  } else {
    properties = " ";
  }
  return std::string("::") + kind + properties + "title=" + EscapeGithubAnnotationProperty(title) +
         "::" + EscapeGithubAnnotationMessage(message) + "\n";
}

const ReportOptions::Source* SourceOf(const ReportOptions& options, const std::string& workload) {
  auto it = options.sources.find(workload);
  return it == options.sources.end() ? nullptr : &it->second;
}

std::string RegressionMessage(const MetricVerdict& m) {
  return FormatRatioCi(m.ratio, m.ci_low, m.ci_high) + " (p " + FormatPValues(m) + "): " +
         NoteText(m);
}

// "A (time); B (time); and 3 more".
std::string NameList(const std::vector<const MetricVerdict*>& rows) {
  std::string out;
  for (size_t i = 0; i < rows.size() && i < kMaxNamedInconclusive; ++i) {
    out += (i ? "; " : "") + rows[i]->workload + " (" + rows[i]->metric + ")";
  }
  if (rows.size() > kMaxNamedInconclusive) {
    out += "; and " + std::to_string(rows.size() - kMaxNamedInconclusive) + " more";
  }
  return out;
}

}  // namespace

std::string RenderGithubStepSummary(const Verdicts& verdicts, const ReportOptions& options) {
  std::string md = RenderMarkdown(verdicts, options);
  if (md.size() <= kGithubStepSummaryLimit) return md;

  // Drop the folded rows first (unchanged, skipped in both runs: they are
  // collapsed anyway); the headline and what could have been seen still
  // describe every result.
  ReportView view = BuildView(verdicts);
  std::string dropped;
  for (auto it = view.sections.begin(); it != view.sections.end();) {
    if (!it->folded) {
      ++it;
      continue;
    }
    const std::string n = std::to_string(it->table.rows.size());
    dropped += (dropped.empty() ? "" : " and ") +
               (it->id == "unchanged" ? n + " unchanged results" : n + " results " + LowerFirst(it->title));
    it = view.sections.erase(it);
  }
  md = RenderMarkdownView(view);
  if (!dropped.empty()) {
    md += "\n" + dropped +
          " are not listed to fit GitHub's step summary size limit; the JSON, "
          "JUnit and HTML reports have every row.\n";
  }
  if (md.size() <= kGithubStepSummaryLimit) return md;

  const std::string cut =
      "\n\n*(report cut to fit GitHub's step summary size limit; the JSON, JUnit and HTML "
      "reports are complete)*\n";
  size_t end = md.rfind('\n', kGithubStepSummaryLimit - cut.size());
  if (end == std::string::npos) end = 0;
  return md.substr(0, end) + cut;
}

std::string GithubOutputEntry(std::string_view name, std::string_view value) {
  if (value.find_first_of("\r\n") == std::string_view::npos) {
    return std::string(name) + "=" + std::string(value) + "\n";
  }
  std::string delimiter = "GPUGATE_EOF";
  for (int i = 1; value.find(delimiter) != std::string_view::npos; ++i) {
    delimiter = "GPUGATE_EOF_" + std::to_string(i);
  }
  return std::string(name) + "<<" + delimiter + "\n" + std::string(value) + "\n" + delimiter +
         "\n";
}

std::string RenderGithubOutput(const Verdicts& verdicts, const ReportOptions& /*options*/) {
  const ReportView view = BuildView(verdicts);
  const Detectability d = DetectabilityOf(verdicts, /*undecided_only=*/false);
  int failing = 0, errors = 0;
  for (const auto& m : verdicts.metrics) {
    failing += FailsGate(m);
    errors += FailedToRun(m);
  }
  auto fraction = [](std::optional<double> v) {
    if (!v) return std::string();
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4g", *v);
    return std::string(buf);
  };
  // `outcome` and `verdict` are the same value (`verdict` is the older name).
  std::string out = GithubOutputEntry("outcome", ToString(verdicts.outcome));
  out += GithubOutputEntry("verdict", ToString(verdicts.outcome));
  // `regressions` and `failing` count the regressions that fail the gate;
  // waived and warn-only ones are counted apart.
  int waived = 0, warn_only = 0;
  for (const auto& m : verdicts.metrics) {
    if (m.verdict != Verdict::kRegression || FailsGate(m)) continue;
    if (m.waived) ++waived;
    else if (m.severity == Severity::kWarn) ++warn_only;
  }
  // Policy rules that emit `fail` fail the gate as a regression does.
  int rule_failures = 0;
  for (const Suggestion& s : verdicts.suggestions) rule_failures += s.severity == "fail";
  out += GithubOutputEntry("regressions", std::to_string(failing));
  out += GithubOutputEntry("rule_failures", std::to_string(rule_failures));
  out += GithubOutputEntry("failing", std::to_string(failing + rule_failures));
  out += GithubOutputEntry("waived", std::to_string(waived));
  out += GithubOutputEntry("warn_only", std::to_string(warn_only));
  out += GithubOutputEntry("errors", std::to_string(errors));
  out += GithubOutputEntry("improvements", std::to_string(verdicts.Count(Verdict::kImprovement)));
  // The common shift of one run per side decides nothing and fails nothing
  // (UntestableCommonShift): fail-on: inconclusive must not fail on it.
  int inconclusive = 0;
  for (const MetricVerdict& m : verdicts.metrics)
    inconclusive += m.verdict == Verdict::kInconclusive && !UntestableCommonShift(m);
  out += GithubOutputEntry("inconclusive", std::to_string(inconclusive));
  out += GithubOutputEntry("unchanged", std::to_string(verdicts.Count(Verdict::kUnchanged)));
  out += GithubOutputEntry("new", std::to_string(verdicts.Count(Verdict::kNew)));
  out += GithubOutputEntry("removed", std::to_string(verdicts.Count(Verdict::kRemoved)));
  out += GithubOutputEntry("skipped", std::to_string(verdicts.Count(Verdict::kSkipped)));
  out += GithubOutputEntry("incomparable", std::to_string(verdicts.Count(Verdict::kIncomparable)));
  out += GithubOutputEntry("undetectable", std::to_string(d.undetectable));
  out += GithubOutputEntry("mde_min", fraction(d.lowest));
  out += GithubOutputEntry("mde_max", fraction(d.highest));
  out += GithubOutputEntry("summary", view.headline);
  return out;
}

std::string RenderGithubAnnotations(const Verdicts& verdicts, const ReportOptions& options) {
  const ReportView view = BuildView(verdicts);
  std::string out;
  // Undecided results; and of them those that could have been decided (the
  // common shift of one run per side never could: UntestableCommonShift).
  std::vector<const MetricVerdict*> undecided, inconclusive;
  for (const MetricVerdict* m : ShownMetrics(verdicts)) {
    if (FailedToRun(*m)) {
      out += Command("error", "gpugate workload failed: " + m->workload + " (" + m->metric + ")",
                     FullNoteText(*m), SourceOf(options, m->workload));
      continue;
    }
    if (m->verdict == Verdict::kInconclusive) {
      undecided.push_back(m);
      if (!UntestableCommonShift(*m)) inconclusive.push_back(m);
    }
    if (m->verdict != Verdict::kRegression) continue;
    const std::string title = "gpugate regression: " + m->workload + " (" + m->metric + ")";
    if (FailsGate(*m)) {
      out += Command("error", title, RegressionMessage(*m), SourceOf(options, m->workload));
    } else if (m->waived || m->severity == Severity::kWarn) {
      out += Command("warning", title, RegressionMessage(*m), SourceOf(options, m->workload));
    }
  }
  for (const Suggestion& s : view.suggestions) {
    if (s.severity != "fail") continue;
    const std::string subject = SuggestionSubject(s, [](const std::string& t) { return t; });
    out += Command("error", "gpugate rule " + s.rule + (subject.empty() ? "" : ": " + subject),
                   s.message + SuggestionDetail(s, [](const std::string& t) { return t; }),
                   s.workload.empty() ? nullptr : SourceOf(options, s.workload));
  }
  std::vector<const MetricVerdict*> incomparable;
  for (const MetricVerdict* m : ShownMetrics(verdicts))
    if (m->verdict == Verdict::kIncomparable) incomparable.push_back(m);
  if (verdicts.outcome == Outcome::kNotJudged) {
    // Exit code 0, but the check must not read as a pass.
    out += Command("warning", "gpugate not judged",
                   view.headline + " (nothing was decided; not a pass)" +
                       (undecided.empty() ? std::string() : ": " + NameList(undecided)));
  } else if (!inconclusive.empty()) {
    std::string message = std::to_string(inconclusive.size()) + " result" +
                          (inconclusive.size() == 1 ? " was" : "s were") +
                          " inconclusive (noise larger than the effect or too few samples)";
    if (!view.requirement.empty()) message += "; " + view.requirement;
    message += ": " + NameList(inconclusive);
    const char* kind = verdicts.outcome == Outcome::kInconclusive ? "error" : "notice";
    out += Command(kind, "gpugate inconclusive", message);
  }
  if (verdicts.outcome == Outcome::kInconclusive && verdicts.incomparable_fails && !incomparable.empty()) {
    // on_incomparable: fail made the outcome inconclusive (exit 4).
    out += Command("error", "gpugate incomparable",
                   std::to_string(incomparable.size()) + " result" + (incomparable.size() == 1 ? " was" : "s were") +
                       " not compared (another environment, unit or direction) and the policy fails on that: " +
                       NameList(incomparable));
  }
  if (!verdicts.environment_matches) {
    std::string message = "the baseline was measured in a different environment";
    for (size_t i = 0; i < verdicts.env_differences.size(); ++i) {
      const auto& d = verdicts.env_differences[i];
      message += (i ? "; " : ": ") + d.field + " " + d.baseline + " -> " + d.current;
    }
    out += Command("warning", "gpugate environment mismatch", message);
  }
  for (const std::string& w : verdicts.warnings) {
    out += Command("warning", "gpugate warning", w);
  }
  return out;
}

}  // namespace gpugate
