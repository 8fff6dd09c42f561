// Console report (see console.h).
#include "report/console.h"

#include <algorithm>
#include <cstddef>
#include <string>

#include "util/text/escape.h"
#include "util/text/format.h"
#include "report/view.h"

namespace gpugate {
namespace {

constexpr const char* kReset = "\x1b[0m";
constexpr const char* kRed = "\x1b[1;31m";
constexpr const char* kGreen = "\x1b[32m";
constexpr const char* kYellow = "\x1b[33m";
constexpr const char* kMagenta = "\x1b[35m";
constexpr const char* kCyan = "\x1b[36m";
constexpr const char* kDim = "\x1b[2m";
constexpr const char* kBold = "\x1b[1m";

const char* VerdictColor(const MetricVerdict& m) {
  if (FailedToRun(m)) return kRed;
  switch (m.verdict) {
    case Verdict::kRegression: return FailsGate(m) ? kRed : kYellow;
    case Verdict::kImprovement: return kGreen;
    case Verdict::kInconclusive: return kYellow;
    case Verdict::kIncomparable:
    case Verdict::kSkipped: return kMagenta;
    case Verdict::kNew:
    case Verdict::kRemoved: return kCyan;
    case Verdict::kUnchanged: return kDim;
  }
  return kReset;
}

const char* OutcomeColor(Outcome o) {
  switch (o) {
    case Outcome::kPass: return kGreen;
    case Outcome::kFail: return kRed;
    case Outcome::kInconclusive: return kYellow;
    case Outcome::kError: return kRed;
    case Outcome::kNotJudged: return kBold;  // neutral: neither a pass nor a failure
  }
  return kBold;
}

std::string Upper(std::string s) {
  for (char& c : s) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  return s;
}

std::string Paint(const std::string& text, const char* color, bool enabled) {
  return enabled ? std::string(color) + text + kReset : text;
}

struct Row {
  std::vector<std::string> cells;  // escaped, uncoloured
  const char* color = nullptr;     // colour of the verdict cell
  std::string detail;              // escaped; a line of its own under the row (verbose)
  std::vector<std::string> explains;  // escaped; the suggestions that explain a regression
};

/// Table cells wider than this are shortened in the middle (C++ kernel names
/// run to thousands of characters; the Markdown, JSON and HTML reports keep
/// them whole).
constexpr int kMaxCellWidth = 64;

void AppendRows(std::string& out, std::vector<Row> rows, bool color) {
  if (rows.empty()) return;
  // Long cells are shortened in the middle, told apart where alike (the last
  // column, free text, is left whole).
  const size_t columns = rows.front().cells.size();
  for (size_t i = 0; i + 1 < columns; ++i) {
    std::vector<std::string> column;
    for (const Row& r : rows) column.push_back(i < r.cells.size() ? r.cells[i] : std::string());
    column = ShortenColumn(column, kMaxCellWidth);
    for (size_t j = 0; j < rows.size(); ++j)
      if (i + 1 < rows[j].cells.size()) rows[j].cells[i] = column[j];
  }
  std::vector<std::vector<std::string>> cells;
  for (const Row& r : rows) cells.push_back(r.cells);
  std::vector<int> width = ColumnWidths(cells);
  width.resize(std::max(width.size(), rows.front().cells.size()), 0);
  for (const Row& r : rows) {
    std::string line;
    for (size_t i = 0; i < r.cells.size(); ++i) {
      const bool last = i + 1 == r.cells.size();
      const std::string& cell = r.cells[i];
      line += i == 0 && r.color ? Paint(cell, r.color, color) : cell;
      if (!last) line += std::string(width[i] - DisplayWidth(cell) + 2, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
    if (!r.detail.empty()) {
      out += std::string(width[0] + 2, ' ') + Paint(r.detail, kDim, color) + "\n";
    }
    for (const std::string& e : r.explains) out += std::string(width[0] + 2, ' ') + e + "\n";
  }
}

// Removes a column whose cells below the header are all empty.
void DropEmptyColumn(std::vector<Row>& rows, size_t column) {
  for (size_t i = 1; i < rows.size(); ++i)
    if (!rows[i].cells[column].empty()) return;
  for (Row& r : rows) r.cells.erase(r.cells.begin() + static_cast<std::ptrdiff_t>(column));
}

// One row per shown result (derived throughput folded under its time row);
// unchanged results are one count line unless verbose, which also puts each
// result's full sentence under its row.
void AppendResults(std::string& out, const Verdicts& verdicts, const ReportOptions& options) {
  const std::vector<const MetricVerdict*> shown = ShownMetrics(verdicts);
  constexpr size_t kCouldSeeColumn = 5;
  std::vector<Row> rows;
  rows.push_back({{"VERDICT", "WORKLOAD", "METRIC", Upper(ChangeHeader(shown)), "P (ADJUSTED)",
                   "COULD SEE", "NOTE"},
                  nullptr,
                  "",
                  {}});
  int folded = 0, skipped_in_both = 0;
  for (const MetricVerdict* m : shown) {
    if (m->verdict == Verdict::kUnchanged && !options.verbose) {
      ++folded;
      continue;
    }
    if (m->reason == Reason::kSkippedInBoth && !options.verbose) {
      ++skipped_in_both;
      continue;
    }
    // What could have been seen tells something where nothing moved.
    const bool could_see = m->verdict == Verdict::kInconclusive ||
                           m->verdict == Verdict::kUnchanged;
    const std::string note = NoteText(*m, verdicts.require_detectable);
    const std::string full = FullNoteText(*m, verdicts.require_detectable);
    std::vector<std::string> explains;
    for (const Suggestion* s : SuggestionsExplaining(verdicts, *m)) {
      std::string line = "\u21b3 [" + SuggestionLabel(*s) + "] " + EscapeTerminal(s->rule);
      if (!s->kernel.empty()) line += " (" + EscapeTerminal(s->kernel) + ")";
      line += ": " + EscapeTerminal(s->message);
      if (s->estimated_speedup) line += " (estimated speedup up to " + SpeedupText(*s->estimated_speedup) + ")";
      explains.push_back(std::move(line));
    }
    rows.push_back({{VerdictLabel(*m), EscapeTerminal(m->workload), EscapeTerminal(m->metric),
                     ChangeText(*m), FormatPValues(*m),
                     could_see && m->mde ? DetectableText(*m) : "", EscapeTerminal(note)},
                    VerdictColor(*m),
                    options.verbose && full != note ? EscapeTerminal(full) : "",
                    std::move(explains)});
  }
  DropEmptyColumn(rows, kCouldSeeColumn);
  out += "\n";
  if (rows.size() > 1) {
    AppendRows(out, rows, options.color);
  } else if (verdicts.metrics.empty()) {
    out += "No results were compared.\n";
  }
  if (folded > 0 || skipped_in_both > 0) {
    std::string what;
    if (folded > 0) what = std::to_string(folded) + " unchanged result" + (folded == 1 ? "" : "s");
    if (skipped_in_both > 0)
      what += (what.empty() ? "" : " and ") + std::to_string(skipped_in_both) + " result" +
              (skipped_in_both == 1 ? "" : "s") + " skipped in both runs";
    out += what + " not listed (verbose output lists them).\n";
  }
}

}  // namespace

std::string RenderConsole(const Verdicts& verdicts, const ReportOptions& options) {
  const ReportView view = BuildView(verdicts);
  const bool color = options.color;
  std::string out = "gpugate: " + EscapeTerminal(view.context) + "\n";

  AppendResults(out, verdicts, options);

  if (!view.env_differences.rows.empty() || !view.environment_matches) {
    out += "\n";
    out += view.environment_matches ? "Environment differences (allowed):\n"
                                    : Paint("Environment mismatch:", kYellow, color) + "\n";
    for (const auto& r : view.env_differences.rows) {
      out += "  " + EscapeTerminal(r[0]) + ": " + EscapeTerminal(r[1]) + " -> " +
             EscapeTerminal(r[2]) + "\n";
    }
  }

  if (!view.kernel_changes.rows.empty()) {
    out += "\nNew and vanished kernels:\n";
    for (const auto& r : view.kernel_changes.rows)
      out += "  " + EscapeTerminal(r[2]) + ": " + EscapeTerminal(r[1]) + " (" + EscapeTerminal(r[0]) +
             ")\n";
  }
  if (!view.roofline_title.empty()) {
    out += "\n" + EscapeTerminal(view.roofline_title) + ":\n";
    if (view.roofline.rows.empty())
      out += "  no workload or kernel of the current run has work counts (bytes, FLOPs)\n";
    for (const auto& r : view.roofline.rows)
      out += "  " + EscapeTerminal(r[0]) + (r[1] == "-" ? "" : " / " + EscapeTerminal(r[1])) + ": " +
             EscapeTerminal(r[2]) + ", " + r[4] + " of roof, " + r[3] + " FLOP/B, " + r[5] + "\n";
  }

  if (!view.suggestions.empty()) {
    out += "\nSuggestions:\n";
    for (const Suggestion& s : view.suggestions) {
      out += "  [" + SuggestionLabel(s) + "] " + EscapeTerminal(s.rule);
      if (const std::string subject = SuggestionSubject(s, [](const std::string& t) { return EscapeTerminal(t); });
          !subject.empty())
        out += " (" + subject + ")";
      out += ": " + EscapeTerminal(s.message) + "\n";
      if (!s.evidence.empty()) out += "      evidence: " + EscapeTerminal(s.evidence) + "\n";
      if (s.estimated_speedup)
        out += "      estimated speedup: up to " + SpeedupText(*s.estimated_speedup) + "\n";
      if (!s.hint.empty()) out += "      hint: " + EscapeTerminal(s.hint) + "\n";
    }
  }

  if (!view.warnings.empty()) {
    out += "\nWarnings:\n";
    for (const std::string& w : view.warnings) {
      out += "  " + Paint("warning:", kYellow, color) + " " + EscapeTerminal(w) + "\n";
    }
  }

  // What could have been seen, the policy's requirement (unless the summary
  // says it) and why the outcome is what it is, then the one summary line.
  out += "\n";
  if (!view.detectable.empty()) out += "could have seen: " + view.detectable + " (90% power)\n";
  if (!view.requirement.empty() && view.summary.find(view.requirement) == std::string::npos) {
    out += view.requirement + "\n";
  }
  if (!view.outcome_note.empty()) out += view.outcome_note + "\n";
  out += Paint(Upper(view.label), OutcomeColor(view.outcome), color) + ": " +
         EscapeTerminal(view.summary) + "\n";
  return out;
}

}  // namespace gpugate
