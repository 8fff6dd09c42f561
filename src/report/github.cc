// GitHub Actions output (see github.h). Workflow command syntax and escaping
// follow GitHub's "Workflow commands for GitHub Actions" documentation and the
// runner's command parser: data escapes % CR LF; properties also : and ,.
#include "report/github.h"

#include "report/escape.h"
#include "report/format.h"
#include "report/markdown.h"
#include "report/view.h"

namespace gpugate {
namespace {

// Inconclusive results named in the one annotation that lists them.
constexpr size_t kMaxNamedInconclusive = 10;

std::string Command(const char* kind, const std::string& title, const std::string& message) {
  return std::string("::") + kind + " title=" + EscapeGithubAnnotationProperty(title) +
         "::" + EscapeGithubAnnotationMessage(message) + "\n";
}

std::string RegressionMessage(const MetricVerdict& m) {
  return FormatRatioCi(m.ratio, m.ci_low, m.ci_high) + " (p " + FormatPValues(m) +
         ", threshold " + FormatThreshold(m.threshold) + "): " + FullNoteText(m);
}

}  // namespace

std::string RenderGithubStepSummary(const Verdicts& verdicts, const ReportOptions& options) {
  std::string md = RenderMarkdown(verdicts, options);
  if (md.size() <= kGithubStepSummaryLimit) return md;

  // Drop the unchanged rows first (they are folded away anyway), but keep the
  // summary line of the full report, which counts them.
  const std::string headline = md.substr(0, md.find('\n'));
  Verdicts slim = verdicts;
  slim.metrics.clear();
  for (const auto& m : verdicts.metrics) {
    if (m.verdict != Verdict::kUnchanged) slim.metrics.push_back(m);
  }
  md = RenderMarkdown(slim, options);
  md.replace(0, md.find('\n'), headline);
  md += "\n" + std::to_string(verdicts.Count(Verdict::kUnchanged)) +
        " unchanged results are not listed to fit GitHub's step summary size limit; the JSON, "
        "JUnit and HTML reports have every row.\n";
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
  int failing = 0;
  for (const auto& m : verdicts.metrics) failing += FailsGate(m);
  std::string out = GithubOutputEntry("verdict", ToString(verdicts.outcome));
  out += GithubOutputEntry("regressions", std::to_string(verdicts.Count(Verdict::kRegression)));
  out += GithubOutputEntry("failing", std::to_string(failing));
  out += GithubOutputEntry("improvements", std::to_string(verdicts.Count(Verdict::kImprovement)));
  out += GithubOutputEntry("inconclusive", std::to_string(verdicts.Count(Verdict::kInconclusive)));
  out += GithubOutputEntry("unchanged", std::to_string(verdicts.Count(Verdict::kUnchanged)));
  out += GithubOutputEntry("new", std::to_string(verdicts.Count(Verdict::kNew)));
  out += GithubOutputEntry("removed", std::to_string(verdicts.Count(Verdict::kRemoved)));
  out += GithubOutputEntry("skipped", std::to_string(verdicts.Count(Verdict::kSkipped)));
  out += GithubOutputEntry("incomparable", std::to_string(verdicts.Count(Verdict::kIncomparable)));
  out += GithubOutputEntry("summary", CountsSentence(verdicts));
  return out;
}

std::string RenderGithubAnnotations(const Verdicts& verdicts, const ReportOptions& /*options*/) {
  std::string out;
  std::vector<const MetricVerdict*> inconclusive;
  for (const MetricVerdict* m : OrderedMetrics(verdicts)) {
    if (m->verdict == Verdict::kInconclusive) inconclusive.push_back(m);
    if (m->verdict != Verdict::kRegression) continue;
    const std::string title = "gpugate regression: " + m->workload + " (" + m->metric + ")";
    if (FailsGate(*m)) {
      out += Command("error", title, RegressionMessage(*m));
    } else if (m->waived || m->severity == Severity::kWarn) {
      out += Command("warning", title, RegressionMessage(*m));
    }
  }
  if (!inconclusive.empty()) {
    std::string message = std::to_string(inconclusive.size()) + " result" +
                          (inconclusive.size() == 1 ? " was" : "s were") +
                          " inconclusive (noise larger than the effect or too few samples): ";
    for (size_t i = 0; i < inconclusive.size() && i < kMaxNamedInconclusive; ++i) {
      message += (i ? "; " : "") + inconclusive[i]->workload + " (" + inconclusive[i]->metric + ")";
    }
    if (inconclusive.size() > kMaxNamedInconclusive) {
      message += "; and " + std::to_string(inconclusive.size() - kMaxNamedInconclusive) + " more";
    }
    const char* kind = verdicts.outcome == Outcome::kInconclusive ? "error" : "notice";
    out += Command(kind, "gpugate inconclusive", message);
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
