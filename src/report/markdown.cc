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

// "\n1200 more rows not listed to fit a pull-request comment; ...\n", or
// nothing when none were left out.
std::string LeftOutNote(size_t n, const char* noun, const std::string& where) {
  if (n == 0) return "";
  return "\n" + EscapeMarkdown(FormatCount(n, noun) + " not listed to fit " + where) + "\n";
}

// Every text of `v` longer than `cap` bytes (the headings' four times that)
// shortened by ShortenToBytes; names (a workload, a metric, a kernel) keep a
// hash of the whole name, so that two long names with one beginning stay
// two. Sets v.left_out.shortened_to when it shortened anything.
void ShortenLongTexts(ReportView& v, size_t cap) {
  auto shorten = [&](std::string& text, size_t bytes, bool name = false) {
    if (text.size() <= bytes) return;
    text = ShortenToBytes(text, bytes, name);
    v.left_out.shortened_to = cap;
  };
  auto shorten_table = [&](ViewTable& t) {
    std::vector<bool> names(t.columns.size());
    for (size_t i = 0; i < t.columns.size(); ++i)
      names[i] = t.columns[i] == "Workload" || t.columns[i] == "Metric" || t.columns[i] == "Kernel";
    for (auto& row : t.rows)
      for (size_t i = 0; i < row.size(); ++i) shorten(row[i], cap, i < names.size() && names[i]);
  };
  auto shorten_suggestion = [&](Suggestion& x) {
    shorten(x.workload, cap, true);
    shorten(x.kernel, cap, true);
    for (std::string* text : {&x.rule, &x.message, &x.evidence, &x.hint, &x.source}) shorten(*text, cap);
  };
  for (ViewSection& s : v.sections) {
    shorten_table(s.table);
    for (ViewSection::Explained& e : s.explained) {
      shorten(e.workload, cap, true);
      shorten(e.metric, cap, true);
      for (Suggestion& x : e.suggestions) shorten_suggestion(x);
    }
  }
  for (ViewTable* t : {&v.env_differences, &v.kernel_changes, &v.roofline}) shorten_table(*t);
  for (Suggestion& x : v.suggestions) shorten_suggestion(x);
  for (std::string& w : v.warnings) shorten(w, cap);
  for (std::string* text : {&v.headline, &v.context, &v.outcome_note, &v.requirement, &v.roofline_title})
    shorten(*text, 4 * cap);
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
    lines.push_back("Could have seen: " + EscapeMarkdown(view.detectable) + " (" +
                    EscapeMarkdown(view.detectable_gloss) + ").");
  }
  if (!view.requirement.empty() && view.headline.find(view.requirement) == std::string::npos) {
    lines.push_back(EscapeMarkdown(SentenceCase(view.requirement)) + ".");
  }
  for (size_t i = 0; i < lines.size(); ++i) {
    out += lines[i] + (i + 1 < lines.size() ? "\\\n" : "\n");
  }
  if (view.left_out.shortened_to > 0) {
    out += "\n" + EscapeMarkdown("Texts longer than " + std::to_string(view.left_out.shortened_to) +
                                 " bytes are shortened (…) to fit " + view.left_out.where + ".") + "\n";
  }
  if (view.results == 0) out += "\nNo results were compared.\n";

  for (const ViewSection& s : view.sections) {
    const std::string count = std::to_string(s.table.rows.size() + s.left_out);
    if (s.folded) {
      out += "\n<details>\n<summary>" + count + " " + EscapeMarkdown(LowerFirst(s.title)) +
             "</summary>\n\n";
      AppendTable(out, s.table);
      out += "\n</details>\n";
    } else {
      out += "\n### " + std::string(SectionEmoji(s)) + " " + EscapeMarkdown(s.title) + " (" +
             count + ")\n";
      if (!s.table.rows.empty()) {
        out += "\n";
        AppendTable(out, s.table);
      }
      out += LeftOutNote(s.left_out, "more row", view.left_out.where);
      for (const ViewSection::Explained& e : s.explained) {
        out += "\n**" + EscapeMarkdown(e.workload) + "** (" + EscapeMarkdown(e.metric) + "), what the rules say:\n\n";
        for (const Suggestion& x : e.suggestions) {
          out += "- **" + SuggestionLabel(x) + "** " + EscapeMarkdown(x.rule);
          if (!x.kernel.empty()) out += " (" + EscapeMarkdown(x.kernel) + ")";
          out += ": " + EscapeMarkdown(x.message) +
                 SuggestionDetail(x, [](const std::string& t) { return EscapeMarkdown(t); }) + "\n";
        }
        out += LeftOutNote(e.left_out, "more suggestion", view.left_out.where);
      }
    }
  }

  if (!view.env_differences.rows.empty() || !view.environment_matches || view.left_out.env_differences > 0) {
    out += "\n### :globe_with_meridians: Environment differences\n\n";
    out += view.environment_matches
               ? "The environments differ in these fields; the comparison allowed it.\n"
               : ":warning: The environments do not match: affected results are "
                 "incomparable, not regressions.\n";
    if (!view.env_differences.rows.empty()) {
      out += "\n";
      AppendTable(out, view.env_differences);
    }
    out += LeftOutNote(view.left_out.env_differences, "more field", view.left_out.where);
  }

  if (!view.kernel_changes.rows.empty() || view.left_out.kernel_changes > 0) {
    out += "\n### :new: New and vanished kernels (" +
           std::to_string(view.kernel_changes.rows.size() + view.left_out.kernel_changes) + ")\n";
    if (!view.kernel_changes.rows.empty()) {
      out += "\n";
      AppendTable(out, view.kernel_changes);
    }
    out += LeftOutNote(view.left_out.kernel_changes, "more row", view.left_out.where);
  }
  if (!view.roofline_title.empty()) {
    out += "\n### :triangular_ruler: " + EscapeMarkdown(view.roofline_title) + "\n";
    if (view.roofline.rows.empty() && view.left_out.roofline == 0) {
      out += "\nNo workload or kernel of the current run has work counts (bytes, FLOPs).\n";
    } else if (!view.roofline.rows.empty()) {
      out += "\n";
      AppendTable(out, view.roofline);
    }
    out += LeftOutNote(view.left_out.roofline, "more row", view.left_out.where);
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
  if (view.suggestions.empty() && view.left_out.suggestions > 0) out += "\n### :bulb: Suggestions\n";
  out += LeftOutNote(view.left_out.suggestions, "more suggestion", view.left_out.where);

  if (!view.warnings.empty() || view.left_out.warnings > 0) {
    out += "\n### :warning: Warnings\n";
    if (!view.warnings.empty()) out += "\n";
    for (const std::string& w : view.warnings) out += "- " + EscapeMarkdown(w) + "\n";
    out += LeftOutNote(view.left_out.warnings, "more warning", view.left_out.where);
  }
  return out;
}

std::string RenderMarkdownFitted(const Verdicts& verdicts, size_t limit, std::string_view place,
                                 std::string_view complete) {
  std::string md = RenderMarkdown(verdicts);
  if (md.size() <= limit) return md;
  // Below this, the notes and the headline alone would not fit.
  GPUGATE_CHECK(limit >= kMinFittedMarkdownBytes);
  const std::string where = std::string(place) + "; " + std::string(complete);

  // 1. The folded sections (unchanged, skipped in both runs) are collapsed
  // anyway: they go first. The headline and what could have been seen still
  // describe every result.
  ReportView view = BuildView(verdicts);
  view.left_out.where = where;
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

  // 1b. No one text may take the room of many rows: a failure reason, a
  // unit or an environment field of tens of kilobytes (all untrusted) is
  // shortened, before escaping, to 1/128 of the room. Shortening is the last
  // step before rendering: rows are matched with the rules' words and the
  // suggestions by their whole names first.
  const size_t cap = std::max<size_t>(limit / 128, 64);
  auto render = [&](ReportView v) {
    ShortenLongTexts(v, cap);
    return RenderMarkdownView(v) + dropped_note;
  };
  md = render(view);
  if (md.size() <= limit) return md;

  // 2. The rows past the first `rows` that fit, in the report's order
  // (failed, regressions failing first, improvements, inconclusive, other;
  // then the kernel, roofline and environment tables), each table counting what it left
  // out; with them the rules' words about rows not listed. Findings that
  // fail the gate stay whatever their row. When the lists after the tables
  // (suggestions, warnings, what the rules say under a row) would not leave
  // room for the first rows, each list keeps only its first `items` (failing
  // findings before the others), and says how many it left out.
  size_t total_rows = view.kernel_changes.rows.size() + view.roofline.rows.size() + view.env_differences.rows.size();
  for (const ViewSection& s : view.sections) total_rows += s.table.rows.size();
  size_t total_items = std::max(view.suggestions.size(), view.warnings.size());
  for (const ViewSection& s : view.sections)
    for (const ViewSection::Explained& e : s.explained) total_items = std::max(total_items, e.suggestions.size());
  auto keeping = [&](size_t rows, size_t items) {
    ReportView v = view;
    std::set<std::string> workloads;  // of the rows listed
    bool all_listed = true;
    auto trim = [&](ViewTable& t, size_t* left_out) {
      const size_t kept = std::min(rows, t.rows.size());
      rows -= kept;
      const bool named = t.columns.size() >= 2 && t.columns[0] == "Workload";
      if (named) {
        for (size_t i = 0; i < kept; ++i) workloads.insert(t.rows[i][0]);
      }
      *left_out = t.rows.size() - kept;
      all_listed &= *left_out == 0;
      t.rows.resize(kept);
    };
    for (ViewSection& s : v.sections) {
      trim(s.table, &s.left_out);
      // What the rules say about a row that is not listed goes with it.
      const bool named = s.table.columns.size() >= 2 && s.table.columns[0] == "Workload" &&
                         s.table.columns[1] == "Metric";
      std::set<std::pair<std::string, std::string>> listed;
      if (named) {
        for (const auto& row : s.table.rows) listed.emplace(row[0], row[1]);
      }
      if (s.left_out > 0) {
        std::erase_if(s.explained, [&](const ViewSection::Explained& e) {
          return !named || !listed.count({e.workload, e.metric});
        });
      }
      for (ViewSection::Explained& e : s.explained) {
        if (e.suggestions.size() <= items) continue;
        // Failing findings first, then the others in their order.
        std::stable_partition(e.suggestions.begin(), e.suggestions.end(),
                              [](const Suggestion& x) { return x.severity == "fail"; });
        e.left_out = e.suggestions.size() - items;
        e.suggestions.resize(items);
      }
      // With no item left, no "what the rules say" line under a row: the
      // same findings are in the suggestions list, which counts them.
      if (items == 0) s.explained.clear();
    }
    trim(v.kernel_changes, &v.left_out.kernel_changes);
    trim(v.roofline, &v.left_out.roofline);
    trim(v.env_differences, &v.left_out.env_differences);
    // So do the suggestions about a workload none of whose rows is listed
    // (those about the suite or a run stay), but never a failing finding;
    // then each kind keeps its first `items`.
    const size_t suggestions = v.suggestions.size();
    size_t failing = 0, others = 0;
    std::erase_if(v.suggestions, [&](const Suggestion& s) {
      if (s.severity == "fail") return failing++ >= items;
      if (!all_listed && !s.workload.empty() && !workloads.count(s.workload)) return true;
      return others++ >= items;
    });
    v.left_out.suggestions = suggestions - v.suggestions.size();
    if (v.warnings.size() > items) {
      v.left_out.warnings = v.warnings.size() - items;
      v.warnings.resize(items);
    }
    return render(std::move(v));
  };
  // The largest n in [lo, hi] with fits(n), given fits(lo).
  auto largest = [](size_t lo, size_t hi, auto fits) {
    while (lo < hi) {
      const size_t mid = lo + (hi - lo + 1) / 2;
      if (fits(mid))
        lo = mid;
      else
        hi = mid - 1;
    }
    return lo;
  };
  auto fits = [&](size_t rows, size_t items) { return keeping(rows, items).size() <= limit; };
  // The first rows are listed, whatever the lists after them: the lists give
  // way first, down to none; then the rows themselves.
  constexpr size_t kFirstRows = 10;
  size_t first = std::min(total_rows, kFirstRows);
  size_t items = total_items;
  if (!fits(first, items)) {
    if (fits(first, 0)) {
      items = largest(0, total_items, [&](size_t n) { return fits(first, n); });
    } else {
      items = 0;
      first = fits(0, 0) ? largest(0, first, [&](size_t n) { return fits(n, 0); }) : 0;
    }
  }
  if (fits(first, items)) {
    const size_t rows = largest(first, total_rows, [&](size_t n) { return fits(n, items); });
    return keeping(rows, items);
  }

  // 3. Still too large with no row and no list item (rule ids or names of
  // thousands of bytes in the headline and the notes): cut at the end of a
  // line, with a note; a first line longer than the room is cut at a
  // character.
  md = keeping(0, 0);
  const std::string cut = "\n" + EscapeMarkdown("(report cut to fit " + where + ")") + "\n";
  const size_t room = limit - cut.size();
  size_t end = md.rfind('\n', room - 1);
  if (end != std::string::npos) return md.substr(0, end + 1) + cut;
  end = room - 4;  // "…\n"
  while (end > 0 && (static_cast<unsigned char>(md[end]) & 0xC0) == 0x80) --end;  // not inside a character
  return md.substr(0, end) + "\u2026\n" + cut;
}

}  // namespace gpugate
