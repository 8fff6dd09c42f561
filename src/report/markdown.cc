// GitHub-flavoured Markdown report (see markdown.h).
#include "report/markdown.h"

#include <algorithm>
#include <set>
#include <utility>
#include <vector>

#include "util/result.h"
#include "util/text/escape.h"
#include "util/text/format.h"
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
      if (s.left_out > 0) {
        out += "\n" + EscapeMarkdown(FormatCount(s.left_out, "more row") + " of " + LowerFirst(s.title) +
                                      " not listed to fit " + s.left_out_where) +
               "\n";
      }
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
  if (view.suggestions_left_out > 0) {
    out += (view.suggestions.empty() ? "\n### :bulb: Suggestions\n\n" : "\n") +
           EscapeMarkdown(FormatCount(view.suggestions_left_out, "suggestion") +
                          " about results not listed, left out to fit " + view.suggestions_left_out_where) +
           "\n";
  }

  if (!view.warnings.empty()) {
    out += "\n### :warning: Warnings\n\n";
    for (const std::string& w : view.warnings) out += "- " + EscapeMarkdown(w) + "\n";
  }
  return out;
}

std::string RenderMarkdownFitted(const Verdicts& verdicts, size_t limit, std::string_view place,
                                 std::string_view complete) {
  std::string md = RenderMarkdown(verdicts);
  if (md.size() <= limit) return md;
  // Below this, the notes and the headline alone would not fit.
  GPUGATE_CHECK(limit >= 4096);
  const std::string where = std::string(place) + "; " + std::string(complete);

  // 1. The folded sections (unchanged, skipped in both runs) are collapsed
  // anyway: they go first. The headline and what could have been seen still
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
  const std::string dropped_note =
      dropped.empty() ? "" : "\n" + EscapeMarkdown(dropped + " are not listed to fit " + where + ".") + "\n";
  md = RenderMarkdownView(view) + dropped_note;
  if (md.size() <= limit) return md;

  // 2. The rows of the open sections past the first `keep`, in the report's
  // order (failed, regressions failing first, improvements, inconclusive):
  // each table says how many of its rows it left out, and the sections after
  // the tables (environment, suggestions, warnings) stay.
  size_t total = 0;
  for (const ViewSection& s : view.sections) total += s.table.rows.size();
  auto keeping = [&](size_t keep) {
    ReportView v = view;
    std::set<std::string> workloads;  // of the rows listed
    bool all_listed = true;
    for (ViewSection& s : v.sections) {
      const size_t kept = std::min(keep, s.table.rows.size());
      keep -= kept;
      const bool named = s.table.columns.size() >= 2 && s.table.columns[0] == "Workload" &&
                         s.table.columns[1] == "Metric";
      if (named) {
        for (size_t i = 0; i < kept; ++i) workloads.insert(s.table.rows[i][0]);
      }
      if (kept == s.table.rows.size()) continue;
      all_listed = false;
      s.left_out = s.table.rows.size() - kept;
      s.left_out_where = where;
      s.table.rows.resize(kept);
      // What the rules say about a row that is not listed goes with it.
      std::set<std::pair<std::string, std::string>> listed;
      if (named) {
        for (const auto& row : s.table.rows) listed.emplace(row[0], row[1]);
      }
      std::erase_if(s.explained, [&](const ViewSection::Explained& e) {
        return !named || !listed.count({e.workload, e.metric});
      });
    }
    // So do the suggestions about a workload none of whose rows is listed
    // (those about the suite or a run stay).
    if (!all_listed) {
      const size_t before = v.suggestions.size();
      std::erase_if(v.suggestions, [&](const Suggestion& s) {
        return !s.workload.empty() && !workloads.count(s.workload);
      });
      v.suggestions_left_out = before - v.suggestions.size();
      v.suggestions_left_out_where = where;
    }
    return RenderMarkdownView(v) + dropped_note;
  };
  if (std::string fewest = keeping(0); fewest.size() <= limit) {
    size_t lo = 0, hi = total;  // keeping(lo) fits, keeping(total) does not
    md = std::move(fewest);
    while (hi - lo > 1) {
      const size_t mid = lo + (hi - lo) / 2;
      if (std::string m = keeping(mid); m.size() <= limit) {
        lo = mid;
        md = std::move(m);
      } else {
        hi = mid;
      }
    }
    return md;
  }

  // 3. Still too large (warnings or suggestions by the thousand): cut at the
  // end of a line, with a note.
  md = keeping(0);
  const std::string cut = "\n" + EscapeMarkdown("(report cut to fit " + where + ")") + "\n";
  size_t end = md.rfind('\n', limit - cut.size() - 1);
  end = end == std::string::npos ? 0 : end + 1;
  return md.substr(0, end) + cut;
}

}  // namespace gpugate
