// Console report (see console.h).
#include "report/console.h"

#include <algorithm>

#include "report/escape.h"
#include "report/format.h"
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
    case Outcome::kNotJudged: return kYellow;
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
};

/// Table cells wider than this are shortened in the middle (C++ kernel names
/// run to thousands of characters; the Markdown, JSON and HTML reports keep
/// them whole).
constexpr int kMaxCellWidth = 64;

/// Keeps the first and last code points of a long cell around an ellipsis.
std::string Ellipsize(const std::string& cell) {
  if (DisplayWidth(cell) <= kMaxCellWidth) return cell;
  std::vector<size_t> starts;  // byte offset of each code point
  for (size_t i = 0; i < cell.size(); ++i)
    if ((static_cast<unsigned char>(cell[i]) & 0xC0) != 0x80) starts.push_back(i);
  const size_t keep = (kMaxCellWidth - 1) / 2;
  if (starts.size() <= 2 * keep + 1) return cell;
  return cell.substr(0, starts[keep]) + "\u2026" + cell.substr(starts[starts.size() - keep]);
}

void AppendRows(std::string& out, std::vector<Row> rows, bool color) {
  if (rows.empty()) return;
  for (Row& r : rows)
    for (size_t i = 0; i + 1 < r.cells.size(); ++i) r.cells[i] = Ellipsize(r.cells[i]);
  std::vector<int> width(rows.front().cells.size(), 0);
  for (const Row& r : rows) {
    for (size_t i = 0; i < r.cells.size(); ++i) {
      width[i] = std::max(width[i], DisplayWidth(r.cells[i]));
    }
  }
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
  }
}

}  // namespace

std::string RenderConsole(const Verdicts& verdicts, const ReportOptions& options) {
  const ReportView view = BuildView(verdicts);
  const bool color = options.color;
  std::string out = "gpugate: " + EscapeTerminal(view.context) + "\n";

  const std::vector<const MetricVerdict*> ordered = OrderedMetrics(verdicts);
  std::vector<Row> rows;
  rows.push_back({{"VERDICT", "WORKLOAD", "METRIC", Upper(ChangeHeader(ordered)),
                   "P (ADJUSTED)", "NOTE"},
                  nullptr});
  int folded = 0;
  for (const MetricVerdict* m : ordered) {
    if (m->verdict == Verdict::kUnchanged && !options.verbose) {
      ++folded;
      continue;
    }
    std::string verdict = ToString(m->verdict);
    if (m->verdict == Verdict::kRegression && !FailsGate(*m)) {
      verdict += m->waived ? " (waived)" : m->severity == Severity::kWarn ? " (warn)" : " (off)";
    }
    rows.push_back({{verdict, EscapeTerminal(m->workload), EscapeTerminal(m->metric),
                     FormatRatioCi(m->ratio, m->ci_low, m->ci_high), FormatPValues(*m),
                     EscapeTerminal(NoteText(*m))},
                    VerdictColor(*m)});
  }
  out += "\n";
  if (rows.size() > 1) {
    AppendRows(out, rows, color);
  } else if (verdicts.metrics.empty()) {
    out += "No results were compared.\n";
  }
  if (folded > 0) {
    out += std::to_string(folded) + " unchanged result" + (folded == 1 ? "" : "s") +
           " not listed (verbose output lists them).\n";
  }

  if (!view.env_differences.rows.empty() || !view.environment_matches) {
    out += "\n";
    out += view.environment_matches ? "Environment differences (allowed):\n"
                                    : Paint("Environment mismatch:", kYellow, color) + "\n";
    for (const auto& r : view.env_differences.rows) {
      out += "  " + EscapeTerminal(r[0]) + ": " + EscapeTerminal(r[1]) + " -> " +
             EscapeTerminal(r[2]) + "\n";
    }
  }

  if (!view.suggestions.empty()) {
    out += "\nSuggestions:\n";
    for (const Suggestion& s : view.suggestions) {
      out += "  [" + std::string(PriorityName(s.priority)) + "] " + EscapeTerminal(s.rule);
      if (!s.workload.empty()) out += " (" + EscapeTerminal(s.workload) + ")";
      out += ": " + EscapeTerminal(s.message) + "\n";
      if (!s.evidence.empty()) out += "      evidence: " + EscapeTerminal(s.evidence) + "\n";
      if (!s.hint.empty()) out += "      hint: " + EscapeTerminal(s.hint) + "\n";
    }
  }

  if (!view.warnings.empty()) {
    out += "\nWarnings:\n";
    for (const std::string& w : view.warnings) {
      out += "  " + Paint("warning:", kYellow, color) + " " + EscapeTerminal(w) + "\n";
    }
  }

  out += "\n" + Paint(Upper(ToString(view.outcome)), OutcomeColor(view.outcome), color) + ": " +
         view.counts + "\n";
  return out;
}

}  // namespace gpugate
