// GitHub-flavoured Markdown report (see markdown.h).
#include "report/markdown.h"

#include <vector>

#include "util/text/escape.h"
#include "report/view.h"

namespace gpugate {
namespace {

// A pass mark only for a pass: not_judged gets a neutral mark.
const char* OutcomeEmoji(Outcome o) {
  switch (o) {
    case Outcome::kPass: return ":white_check_mark:";
    case Outcome::kFail: return ":x:";
    case Outcome::kInconclusive: return ":grey_question:";
    case Outcome::kError: return ":no_entry:";
    case Outcome::kNotJudged: return ":white_circle:";
  }
  return ":grey_question:";
}

const char* SectionEmoji(const ViewSection& s) {
  if (s.id == "failed") return ":no_entry:";
  if (s.id == "regressions") {
    if (s.tone == Tone::kFail) return ":x:";
    return s.tone == Tone::kWarn ? ":warning:" : ":heavy_minus_sign:";
  }
  if (s.id == "improvements") return ":rocket:";
  if (s.id == "inconclusive") return ":grey_question:";
  return ":heavy_minus_sign:";
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
  return RenderMarkdownView(BuildView(verdicts));
}

std::string RenderMarkdownView(const ReportView& view) {
  std::string out;
  out += "## " + std::string(OutcomeEmoji(view.outcome)) + " gpugate: " +
         EscapeMarkdown(view.headline) + "\n\n";
  // One paragraph of short lines (backslash line breaks).
  std::vector<std::string> lines;
  std::string outcome = "Outcome: **" + EscapeMarkdown(view.label) + "**";
  if (!view.outcome_note.empty()) outcome += " (" + EscapeMarkdown(view.outcome_note) + ")";
  lines.push_back(outcome + "; " + EscapeMarkdown(view.context) + ".");
  if (!view.detectable.empty()) {
    lines.push_back("Could have seen: " + EscapeMarkdown(view.detectable) +
                    " (the smallest slowdown each comparison catches with 90% power).");
  }
  if (!view.requirement.empty() && view.headline.find(view.requirement) == std::string::npos) {
    lines.push_back(EscapeMarkdown(SentenceCase(view.requirement)) + ".");
  }
  for (size_t i = 0; i < lines.size(); ++i) {
    out += lines[i] + (i + 1 < lines.size() ? "\\\n" : "\n");
  }
  if (view.results == 0) out += "\nNo results were compared.\n";

  for (const ViewSection& s : view.sections) {
    const std::string count = std::to_string(s.table.rows.size());
    if (s.folded) {
      out += "\n<details>\n<summary>" + count + " " + EscapeMarkdown(LowerFirst(s.title)) +
             "</summary>\n\n";
      AppendTable(out, s.table);
      out += "\n</details>\n";
    } else {
      out += "\n### " + std::string(SectionEmoji(s)) + " " + EscapeMarkdown(s.title) + " (" +
             count + ")\n\n";
      AppendTable(out, s.table);
      for (const ViewSection::Explained& e : s.explained) {
        out += "\n**" + EscapeMarkdown(e.workload) + "** (" + EscapeMarkdown(e.metric) + "), what the rules say:\n\n";
        for (const Suggestion& x : e.suggestions) {
          out += "- **" + SuggestionLabel(x) + "** " + EscapeMarkdown(x.rule);
          if (!x.kernel.empty()) out += " (" + EscapeMarkdown(x.kernel) + ")";
          out += ": " + EscapeMarkdown(x.message) +
                 SuggestionDetail(x, [](const std::string& t) { return EscapeMarkdown(t); }) + "\n";
        }
      }
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

  if (!view.kernel_changes.rows.empty()) {
    out += "\n### :new: New and vanished kernels (" + std::to_string(view.kernel_changes.rows.size()) +
           ")\n\n";
    AppendTable(out, view.kernel_changes);
  }
  if (!view.roofline_title.empty()) {
    out += "\n### :triangular_ruler: " + EscapeMarkdown(view.roofline_title) + "\n\n";
    if (view.roofline.rows.empty())
      out += "No workload or kernel of the current run has work counts (bytes, FLOPs).\n";
    else
      AppendTable(out, view.roofline);
  }

  if (!view.suggestions.empty()) {
    out += "\n### :bulb: Suggestions\n\n";
    for (const Suggestion& s : view.suggestions) {
      out += "- **" + SuggestionLabel(s) + "** " + EscapeMarkdown(s.rule);
      if (const std::string subject = SuggestionSubject(s, [](const std::string& t) { return EscapeMarkdown(t); });
          !subject.empty())
        out += " (" + subject + ")";
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
