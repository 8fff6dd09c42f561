// GitHub-flavoured Markdown report (see markdown.h).
#include "report/markdown.h"

#include "report/escape.h"
#include "report/view.h"

namespace gpugate {
namespace {

const char* OutcomeEmoji(Outcome o) {
  switch (o) {
    case Outcome::kPass: return ":white_check_mark:";
    case Outcome::kFail: return ":x:";
    case Outcome::kInconclusive: return ":grey_question:";
    case Outcome::kError: return ":warning:";
    case Outcome::kNotJudged: return ":grey_question:";
  }
  return ":grey_question:";
}

std::string SectionEmoji(const ViewSection& s, bool any_failing) {
  if (s.id == "regressions") return any_failing ? ":x:" : ":warning:";
  if (s.id == "improvements") return ":rocket:";
  if (s.id == "inconclusive") return ":grey_question:";
  if (s.id == "other") return ":heavy_minus_sign:";
  return ":white_check_mark:";
}

void AppendTable(std::string& out, const ViewTable& t) {
  out += "|";
  for (const auto& c : t.columns) out += " " + c + " |";  // gpugate's own labels
  out += "\n|";
  for (size_t i = 0; i < t.columns.size(); ++i) {
    out += i < t.right_aligned.size() && t.right_aligned[i] ? " ---: |" : " :--- |";
  }
  out += "\n";
  for (const auto& row : t.rows) {
    out += "|";
    for (const auto& cell : row) {
      const std::string text = EscapeMarkdown(cell);
      out += text.empty() ? " |" : " " + text + " |";
    }
    out += "\n";
  }
}

}  // namespace

std::string RenderMarkdown(const Verdicts& verdicts, const ReportOptions& /*options*/) {
  const ReportView view = BuildView(verdicts);
  bool any_failing = false;
  for (const auto& m : verdicts.metrics) any_failing = any_failing || FailsGate(m);

  std::string out;
  out += "## " + std::string(OutcomeEmoji(view.outcome)) + " gpugate: " +
         EscapeMarkdown(view.counts) + "\n\n";
  out += "Outcome: **" + std::string(ToString(view.outcome)) + "**; " +
         EscapeMarkdown(view.context) + ".\n";
  if (verdicts.metrics.empty()) out += "\nNo results were compared.\n";

  for (const ViewSection& s : view.sections) {
    const std::string count = std::to_string(s.table.rows.size());
    if (s.folded) {
      out += "\n<details>\n<summary>" + count + " " + s.id +
             "</summary>\n\n";
      AppendTable(out, s.table);
      out += "\n</details>\n";
    } else {
      out += "\n### " + SectionEmoji(s, any_failing) + " " + EscapeMarkdown(s.title) + " (" +
             count + ")\n\n";
      AppendTable(out, s.table);
    }
  }

  if (!view.env_differences.rows.empty() || !view.environment_matches) {
    out += "\n### :globe_with_meridians: Environment differences\n\n";
    out += view.environment_matches
               ? "The environments differ in these fields; the comparison allowed it.\n"
               : ":warning: The environments do not match: affected results are "
                 "incomparable, not regressions.\n";
    if (!view.env_differences.rows.empty()) {
      out += "\n";
      AppendTable(out, view.env_differences);
    }
  }

  if (!view.suggestions.empty()) {
    out += "\n### :bulb: Suggestions\n\n";
    for (const Suggestion& s : view.suggestions) {
      out += "- **" + std::string(PriorityName(s.priority)) + "** " + EscapeMarkdown(s.rule);
      if (!s.workload.empty()) out += " (" + EscapeMarkdown(s.workload) + ")";
      out += ": " + EscapeMarkdown(s.message);
      out += SuggestionDetail(s, [](const std::string& t) { return EscapeMarkdown(t); });
      out += "\n";
    }
  }

  if (!view.warnings.empty()) {
    out += "\n### :warning: Warnings\n\n";
    for (const std::string& w : view.warnings) out += "- " + EscapeMarkdown(w) + "\n";
  }
  return out;
}

}  // namespace gpugate
