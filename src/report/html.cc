// Self-contained HTML report (see html.h).
#include "report/html.h"

#include "util/text/escape.h"
#include "report/view.h"

namespace gpugate {
namespace {

constexpr const char* kStyle = R"css(
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:2em;color:#1f2328;background:#fff}
h1{font-size:1.4em;margin:0 0 .3em}
h2{font-size:1.15em;margin:1.6em 0 .5em}
p.context{color:#59636e;margin:0 0 1em}
table{border-collapse:collapse;margin:.3em 0 1em}
th,td{border:1px solid #d1d9e0;padding:.3em .6em;text-align:left;vertical-align:top}
th{background:#f6f8fa}
td.num{text-align:right;white-space:nowrap;font-variant-numeric:tabular-nums}
td{overflow-wrap:anywhere}
.outcome{display:inline-block;padding:.1em .6em;border-radius:1em;color:#fff;font-weight:600}
.pass{background:#1a7f37}.fail{background:#cf222e}.inconclusive{background:#9a6700}.error{background:#cf222e}
.not_judged{background:#59636e}
section.tone-fail h2{color:#cf222e}section.tone-warn h2{color:#9a6700}
section.tone-good h2{color:#1a7f37}section.tone-undecided h2{color:#59636e}
ul.warnings li{color:#9a6700}
summary{cursor:pointer;font-weight:600;margin:1em 0 .5em}
)css";

void AppendTable(std::string& out, const ViewTable& t) {
  out += "<table>\n<thead><tr>";
  for (const auto& c : t.columns) out += "<th scope=\"col\">" + EscapeHtml(c) + "</th>";
  out += "</tr></thead>\n<tbody>\n";
  for (const auto& row : t.rows) {
    out += "<tr>";
    for (size_t i = 0; i < row.size(); ++i) {
      const bool num = i < t.right_aligned.size() && t.right_aligned[i];
      out += (num ? "<td class=\"num\">" : "<td>") + EscapeHtml(row[i]) + "</td>";
    }
    out += "</tr>\n";
  }
  out += "</tbody>\n</table>\n";
}

}  // namespace

std::string RenderHtml(const Verdicts& verdicts, const ReportOptions& /*options*/) {
  const ReportView view = BuildView(verdicts);
  // The badge's class is the outcome's machine spelling; its text the label.
  const std::string outcome = ToString(view.outcome);

  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<title>gpugate: " + EscapeHtml(view.label + ", " + view.summary) + "</title>\n<style>";
  out += kStyle;
  out += "</style>\n</head>\n<body>\n";
  out += "<h1><span class=\"outcome " + outcome + "\">" + EscapeHtml(view.label) +
         "</span> gpugate: " + EscapeHtml(view.summary) + "</h1>\n";
  if (!view.outcome_note.empty()) {
    out += "<p class=\"context\">" + EscapeHtml(SentenceCase(view.outcome_note)) + ".</p>\n";
  }
  if (!view.detectable.empty()) {
    out += "<p class=\"context\">Could have seen: " + EscapeHtml(view.detectable) +
           " (the smallest slowdown each comparison catches with 90% power).</p>\n";
  }
  if (!view.requirement.empty() && view.summary.find(view.requirement) == std::string::npos) {
    out += "<p class=\"context\">" + EscapeHtml(SentenceCase(view.requirement)) + ".</p>\n";
  }
  out += "<p class=\"context\">" + EscapeHtml(SentenceCase(view.context)) + ".</p>\n";
  if (view.results == 0) out += "<p>No results were compared.</p>\n";

  for (const ViewSection& s : view.sections) {
    const std::string count = std::to_string(s.table.rows.size());
    out += "<section class=\"" + EscapeHtml(s.id) + " tone-" + ToneName(s.tone) + "\">\n";
    if (s.folded) {
      out += "<details>\n<summary>" + count + " " + EscapeHtml(s.id) + "</summary>\n";
      AppendTable(out, s.table);
      out += "</details>\n";
    } else {
      out += "<h2>" + EscapeHtml(s.title) + " (" + count + ")</h2>\n";
      AppendTable(out, s.table);
      for (const ViewSection::Explained& e : s.explained) {
        out += "<p class=\"explains\"><strong>" + EscapeHtml(e.workload) + "</strong> (" +
               EscapeHtml(e.metric) + "), what the rules say:</p>\n<ul class=\"explains\">\n";
        for (const Suggestion& x : e.suggestions) {
          out += "<li><strong>" + SuggestionLabel(x) + "</strong> " + EscapeHtml(x.rule);
          if (!x.kernel.empty()) out += " (" + EscapeHtml(x.kernel) + ")";
          out += ": " + EscapeHtml(x.message) +
                 SuggestionDetail(x, [](const std::string& t) { return EscapeHtml(t); }) + "</li>\n";
        }
        out += "</ul>\n";
      }
    }
    out += "</section>\n";
  }

  if (!view.env_differences.rows.empty() || !view.environment_matches) {
    out += "<section class=\"environment\">\n<h2>Environment differences</h2>\n";
    out += view.environment_matches
               ? "<p>The environments differ in these fields; the comparison allowed it.</p>\n"
               : "<p>The environments do not match: affected results are incomparable, not "
                 "regressions.</p>\n";
    if (!view.env_differences.rows.empty()) AppendTable(out, view.env_differences);
    out += "</section>\n";
  }

  if (!view.kernel_changes.rows.empty()) {
    out += "<section class=\"kernels\">\n<h2>New and vanished kernels (" +
           std::to_string(view.kernel_changes.rows.size()) + ")</h2>\n";
    AppendTable(out, view.kernel_changes);
    out += "</section>\n";
  }
  if (!view.roofline_title.empty()) {
    out += "<section class=\"roofline\">\n<h2>" + EscapeHtml(view.roofline_title) + "</h2>\n";
    if (view.roofline.rows.empty())
      out += "<p>No workload or kernel of the current run has work counts (bytes, FLOPs).</p>\n";
    else
      AppendTable(out, view.roofline);
    out += "</section>\n";
  }

  if (!view.suggestions.empty()) {
    out += "<section class=\"suggestions\">\n<h2>Suggestions</h2>\n<ul>\n";
    for (const Suggestion& s : view.suggestions) {
      out += "<li><strong>" + SuggestionLabel(s) + "</strong> " + EscapeHtml(s.rule);
      if (const std::string subject = SuggestionSubject(s, [](const std::string& t) { return EscapeHtml(t); });
          !subject.empty())
        out += " (" + subject + ")";
      out += ": " + EscapeHtml(s.message);
      out += SuggestionDetail(s, [](const std::string& t) { return EscapeHtml(t); });
      out += "</li>\n";
    }
    out += "</ul>\n</section>\n";
  }

  if (!view.warnings.empty()) {
    out += "<section class=\"warnings\">\n<h2>Warnings</h2>\n<ul class=\"warnings\">\n";
    for (const std::string& w : view.warnings) out += "<li>" + EscapeHtml(w) + "</li>\n";
    out += "</ul>\n</section>\n";
  }
  out += "</body>\n</html>\n";
  return out;
}

}  // namespace gpugate
