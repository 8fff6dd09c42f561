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

// Where a fitted Markdown report says the rows it left out are: the other
// reports (the step summary may itself be fitted, and may not exist).
constexpr const char* kEveryRow = "the --markdown and --json reports list every row";

// Inconclusive results named in the one annotation that lists them.
constexpr size_t kMaxNamedInconclusive = 10;
// GitHub shows at most this many annotations of one kind per step.
constexpr size_t kMaxAnnotationsPerKind = 10;

// What the runner keeps of an annotation: a message of at most 4096
// characters (it cuts the rest) and a title of at most 255 (the checks API's
// limit). Counted in bytes of the escaped text, never fewer than the
// characters the runner decodes from it, and cut after escaping (an escape
// such as a bidi control's visible "\u202E" takes 6 for 1) where a character
// starts, never inside a %XX sequence or a visible escape, ending in "…".
constexpr size_t kMaxAnnotationMessageBytes = 4096;
constexpr size_t kMaxAnnotationTitleBytes = 255;

std::string Bounded(const std::string& escaped, size_t max_bytes) {
  if (escaped.size() <= max_bytes) return escaped;
  // Where a character starts (not inside a flag or an emoji sequence) ...
  std::string kept = ShortenToBytes(escaped, max_bytes);
  kept.resize(kept.size() - 3);  // without its "…"
  // ... and not inside a %XX escape (every '%' starts one: '%' itself is
  // written %25) nor inside the visible "\u202E" of a bidi control.
  const size_t n = kept.size();
  if (n >= 1 && kept[n - 1] == '%') {
    kept.resize(n - 1);
  } else if (n >= 2 && kept[n - 2] == '%') {
    kept.resize(n - 2);
  }
  if (const size_t slash = kept.rfind('\\');
      slash != std::string::npos && kept.size() - slash < 6 && (slash + 1 == kept.size() || kept[slash + 1] == 'u'))
    kept.resize(slash);
  return kept + "\u2026";
}

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
  return std::string("::") + kind + properties + "title=" +
         Bounded(EscapeGithubAnnotationProperty(title), kMaxAnnotationTitleBytes) + "::" +
         Bounded(EscapeGithubAnnotationMessage(message), kMaxAnnotationMessageBytes) + "\n";
}

const ReportOptions::Source* SourceOf(const ReportOptions& options, const std::string& workload) {
  auto it = options.sources.find(workload);
  return it == options.sources.end() ? nullptr : &it->second;
}

std::string RegressionMessage(const MetricVerdict& m) {
  return ChangeText(m) + " (p " + FormatPValues(m) + "): " +
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
  const size_t held = options.step_summary_held;
  const size_t room = held >= kGithubStepSummaryLimit ? 0 : kGithubStepSummaryLimit - held;
  if (room < kMinFittedMarkdownBytes) {
    // Too little room to fit a report into: the whole report if it fits.
    std::string md = RenderMarkdown(verdicts);
    return md.size() <= room ? md : std::string();
  }
  return RenderMarkdownFitted(verdicts, room, "GitHub's step summary size limit", kEveryRow);
}

std::string RenderGithubComment(const Verdicts& verdicts, const ReportOptions& /*options*/) {
  return RenderMarkdownFitted(verdicts, kGithubCommentLimit, "a pull-request comment", kEveryRow);
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
  // Nor on results the policy ignores (severity off).
  int inconclusive = 0;
  for (const MetricVerdict& m : verdicts.metrics) inconclusive += CountedInconclusive(m);
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
  // GitHub shows at most 10 annotations of each kind per step: each kind is
  // collected in the order that matters (what decided the outcome and the
  // run-wide warnings first, then one per result), and past the limit one
  // last annotation says how many more there are and where they are.
  struct Note {
    std::string title, message;
    const ReportOptions::Source* source = nullptr;
  };
  std::vector<Note> errors, warnings, notices;
  // Undecided results; and of them those that count for the outcome (not
  // severity off, not the common shift of one run per side that never
  // could be decided: UntestableCommonShift).
  std::vector<const MetricVerdict*> undecided, inconclusive, incomparable;
  bool inconclusive_fail = false;
  for (const MetricVerdict* m : ShownMetrics(verdicts)) {
    if (m->verdict == Verdict::kInconclusive) {
      if (m->severity != Severity::kOff) undecided.push_back(m);
      if (CountedInconclusive(*m)) inconclusive.push_back(m);
      inconclusive_fail = inconclusive_fail || UndecidedFailsGate(*m, verdicts);
    }
    if (m->verdict == Verdict::kIncomparable && m->severity != Severity::kOff) incomparable.push_back(m);
  }
  if (verdicts.outcome == Outcome::kNotJudged) {
    // Exit code 0, but the check must not read as a pass.
    warnings.push_back({"gpugate not judged", view.headline + " (nothing was decided; not a pass)" +
                                                   (undecided.empty() ? std::string() : ": " + NameList(undecided))});
  } else if (!inconclusive.empty()) {
    // Why, where they share one short note ("one value per side: no
    // noise measurable"); else what undecided means in general.
    std::string why = ShortNote(*inconclusive.front(), verdicts.require_detectable);
    for (const MetricVerdict* m : inconclusive)
      if (ShortNote(*m, verdicts.require_detectable) != why) {
        why = "noise larger than the effect, too few samples, or noise that could not be measured";
        break;
      }
    std::string message = std::to_string(inconclusive.size()) + " result" +
                          (inconclusive.size() == 1 ? " was" : "s were") + " inconclusive (" + why + ")";
    if (!view.requirement.empty()) message += "; " + view.requirement;
    if (inconclusive_fail) {
      // Name those that failed the gate; the others the policy passes.
      std::vector<const MetricVerdict*> failing;
      for (const MetricVerdict* m : inconclusive)
        if (UndecidedFailsGate(*m, verdicts)) failing.push_back(m);
      message += ": " + NameList(failing);
      if (failing.size() < inconclusive.size())
        message += "; " + std::to_string(inconclusive.size() - failing.size()) + " more the policy passes";
    } else {
      message += ": " + NameList(inconclusive);
    }
    // An error only where they made the outcome inconclusive (exit 4), as
    // JUnit fails them; else a notice.
    (inconclusive_fail ? errors : notices).push_back({"gpugate inconclusive", message});
  }
  if (verdicts.outcome == Outcome::kInconclusive && verdicts.incomparable_fails && !incomparable.empty()) {
    // on_incomparable: fail made the outcome inconclusive (exit 4).
    errors.push_back({"gpugate incomparable",
                      std::to_string(incomparable.size()) + " result" + (incomparable.size() == 1 ? " was" : "s were") +
                          " not compared (another environment, unit or direction) and the policy fails on that: " +
                          NameList(incomparable)});
  }
  if (!verdicts.environment_matches) {
    std::string message = "the baseline was measured in a different environment";
    for (size_t i = 0; i < verdicts.env_differences.size(); ++i) {
      const auto& d = verdicts.env_differences[i];
      message += (i ? "; " : ": ") + d.field + " " + d.baseline + " -> " + d.current;
    }
    warnings.push_back({"gpugate environment mismatch", message});
  }
  for (const std::string& w : verdicts.warnings) warnings.push_back({"gpugate warning", w});
  for (const MetricVerdict* m : ShownMetrics(verdicts)) {
    if (FailedToRun(*m)) {
      errors.push_back({"gpugate workload failed: " + m->workload + " (" + m->metric + ")", FullNoteText(*m),
                        SourceOf(options, m->workload)});
      continue;
    }
    if (m->verdict != Verdict::kRegression) continue;
    const std::string title = "gpugate regression: " + m->workload + " (" + m->metric + ")";
    if (FailsGate(*m)) {
      errors.push_back({title, RegressionMessage(*m), SourceOf(options, m->workload)});
    } else if (m->waived || m->severity == Severity::kWarn) {
      warnings.push_back({title, RegressionMessage(*m), SourceOf(options, m->workload)});
    }
  }
  for (const Suggestion& s : view.suggestions) {
    if (s.severity != "fail") continue;
    const std::string subject = SuggestionSubject(s, [](const std::string& t) { return t; });
    errors.push_back({"gpugate rule " + s.rule + (subject.empty() ? "" : ": " + subject),
                      s.message + SuggestionDetail(s, [](const std::string& t) { return t; }),
                      s.workload.empty() ? nullptr : SourceOf(options, s.workload)});
  }
  std::string out;
  // Where every one of them is: the step summary only when it holds the
  // whole report (a fitted one can leave rows out).
  const std::string where = options.step_summary_whole.value_or(false)
                                ? "the job summary and the reports hold all "
                            : options.step_summary_whole
                                ? "the job summary had to be shortened to fit GitHub's limit; the --markdown and --json reports list all "
                                : "the --markdown and --json reports list all ";
  auto emit = [&out, &where](const char* kind, const char* noun, const std::vector<Note>& notes) {
    const size_t shown = notes.size() <= kMaxAnnotationsPerKind ? notes.size() : kMaxAnnotationsPerKind - 1;
    for (size_t i = 0; i < shown; ++i) out += Command(kind, notes[i].title, notes[i].message, notes[i].source);
    if (shown == notes.size()) return;
    std::string titles;
    for (size_t i = shown; i < notes.size() && i < shown + kMaxNamedInconclusive; ++i)
      titles += (i > shown ? "; " : "") + notes[i].title;
    if (notes.size() > shown + kMaxNamedInconclusive) titles += "; ...";
    out += Command(kind, "gpugate: " + std::to_string(notes.size() - shown) + " more " + noun,
                   "GitHub shows " + std::to_string(kMaxAnnotationsPerKind) + " " + noun +
                       " per step; " + where + std::to_string(notes.size()) +
                       ": " + titles);
  };
  emit("error", "errors", errors);
  emit("warning", "warnings", warnings);
  emit("notice", "notices", notices);
  return out;
}

}  // namespace gpugate
