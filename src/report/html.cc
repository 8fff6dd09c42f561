// Self-contained HTML report (see html.h): the view's sections, then
// pictures drawn as inline SVG from the verdicts file alone — a forest plot
// of every tested comparison against its threshold band, each workload's
// samples by round on both sides, its history across baseline runs with the
// change points, and the kernels that moved — and one table of every result
// that a small inline script sorts, filters by verdict and searches. No
// network access (a Content-Security-Policy forbids it), readable without
// the script and printable.
#include "report/html.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "report/html_page.h"
#include "report/view.h"
#include "util/strings.h"
#include "util/text/escape.h"
#include "util/text/format.h"

namespace gpugate {
namespace {

// What the report adds to the shared style (report/html_page.h).
constexpr const char* kStyle = R"css(
.outcome{display:inline-block;padding:.1em .6em;border-radius:1em;color:#fff;font-weight:600}
.outcome.pass{background:#1a7f37}.outcome.fail,.outcome.error{background:#cf222e}
.outcome.inconclusive{background:#9a6700}.outcome.not_judged{background:#59636e}
section.tone-fail h2{color:#cf222e}section.tone-warn h2{color:#9a6700}
section.tone-good h2{color:#1a7f37}section.tone-undecided h2{color:#59636e}
ul.warnings li{color:#9a6700}
summary{cursor:pointer;font-weight:600;margin:1em 0 .5em}
nav.controls{position:sticky;top:0;background:#fff;padding:.5em 0;border-bottom:1px solid #d1d9e0;z-index:1}
nav.controls button{font:inherit;margin:0 .2em .2em 0;padding:.15em .7em;border:1px solid #d1d9e0;border-radius:1em;background:#f6f8fa;cursor:pointer}
nav.controls button[aria-pressed=true]{background:#0969da;color:#fff;border-color:#0969da}
nav.controls input{font:inherit;padding:.15em .5em;margin-left:.5em;width:16em}
th button{font:inherit;font-weight:600;border:0;background:none;padding:0;cursor:pointer}
.v-regression{color:#cf222e}.v-improvement{color:#1a7f37}.v-inconclusive{color:#9a6700}
.charts{display:flex;flex-wrap:wrap;gap:1em}
.charts figure{margin:0}
svg .band{fill:#dafbe1;stroke:none}
.c-regression{stroke:#cf222e;fill:#cf222e}.c-improvement{stroke:#1a7f37;fill:#1a7f37}
.c-unchanged{stroke:#57606a;fill:#57606a}.c-inconclusive{stroke:#9a6700;fill:#9a6700}
.c-other{stroke:#8c959f;fill:#8c959f}
.mde{stroke:#59636e;stroke-width:2}
tr.differs td{background:#fff8c5}
@media print{nav.controls{display:none}}
)css";

// Filters the rows, the forest plot's rows and the per-workload details by
// verdict and name; sorts the results table by a column. Never writes markup:
// names reach the page only as escaped text.
constexpr const char* kScript = R"js(
(function () {
  var root = document.documentElement;
  window.addEventListener('error', function (e) {
    root.setAttribute('data-js-errors', String(e.message || e));
  });
  var items = Array.prototype.slice.call(document.querySelectorAll('[data-verdict]'));
  var filter = 'all', query = '';
  var shown = document.getElementById('shown');
  var other = { 'new': 1, 'removed': 1, 'skipped': 1, 'incomparable': 1 };
  function matches(el) {
    var v = el.getAttribute('data-verdict');
    var okVerdict = filter === 'all' || v === filter || (filter === 'other' && other[v] === 1);
    return okVerdict && (query === '' || el.getAttribute('data-name').toLowerCase().indexOf(query) >= 0);
  }
  function apply() {
    var rows = 0;
    items.forEach(function (el) {
      var ok = matches(el);
      el.style.display = ok ? '' : 'none';
      if (ok && el.tagName === 'TR') rows++;
    });
    if (shown) shown.textContent = rows + ' of ' + document.querySelectorAll('#results tbody tr').length + ' results shown';
  }
  Array.prototype.forEach.call(document.querySelectorAll('button[data-filter]'), function (b) {
    b.addEventListener('click', function () {
      filter = b.getAttribute('data-filter');
      Array.prototype.forEach.call(document.querySelectorAll('button[data-filter]'), function (o) {
        o.setAttribute('aria-pressed', o === b ? 'true' : 'false');
      });
      apply();
    });
  });
  var search = document.getElementById('search');
  if (search) search.addEventListener('input', function () { query = search.value.toLowerCase(); apply(); });
  var table = document.getElementById('results');
  if (table) {
    Array.prototype.forEach.call(table.querySelectorAll('th button'), function (b) {
      b.addEventListener('click', function () {
        var col = Number(b.getAttribute('data-col'));
        var asc = b.getAttribute('data-dir') !== 'asc';
        b.setAttribute('data-dir', asc ? 'asc' : 'desc');
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        function key(r) { var c = r.cells[col]; return c.hasAttribute('data-sort') ? c.getAttribute('data-sort') : c.textContent; }
        rows.sort(function (x, y) {
          var a = key(x), b2 = key(y), na = parseFloat(a), nb = parseFloat(b2);
          var d = (!isNaN(na) && !isNaN(nb)) ? na - nb : (a < b2 ? -1 : a > b2 ? 1 : 0);
          return asc ? d : -d;
        });
        rows.forEach(function (r) { body.appendChild(r); });
      });
    });
  }
  // A link can carry the view: report.html#verdict=regression&q=decode.
  location.hash.replace(/^#/, '').split('&').forEach(function (part) {
    var kv = part.split('=');
    var value = decodeURIComponent(kv.slice(1).join('='));
    if (kv[0] === 'verdict') {
      var b = document.querySelector('button[data-filter="' + value.replace(/[^a-z_]/g, '') + '"]');
      if (b) b.click();
    } else if (kv[0] === 'q' && search) {
      search.value = value;
      query = value.toLowerCase();
    }
  });
  // Printing shows every workload's pictures.
  window.addEventListener('beforeprint', function () {
    Array.prototype.forEach.call(document.querySelectorAll('details'), function (d) { d.open = true; });
  });
  var nav = document.getElementById('controls');
  if (nav) nav.hidden = false;
  apply();
  root.setAttribute('data-js', 'ready');
})();
)js";

std::string Num(double x) { return SvgNum(x); }

// The verdict's colour class in the pictures.
std::string ColourOf(Verdict v) {
  switch (v) {
    case Verdict::kRegression: return "c-regression";
    case Verdict::kImprovement: return "c-improvement";
    case Verdict::kUnchanged: return "c-unchanged";
    case Verdict::kInconclusive: return "c-inconclusive";
    default: return "c-other";
  }
}

// What the search matches: workload and metric, lower-case (ASCII).
std::string SearchKey(const MetricVerdict& m) {
  std::string key = m.workload + " " + m.metric;
  for (char& c : key) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return key;
}


bool IsPrimary(const MetricVerdict& m) {
  return m.metric != "throughput" && m.metric != "peak_memory" && !StartsWith(m.metric, "kernel:");
}

std::string ValueText(const MetricVerdict& m, double v) {
  return m.unit.empty() ? FormatMetricValue(m.metric, v) : FormatValueInUnit(v, m.unit);
}

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

// --- forest plot -------------------------------------------------------------

constexpr size_t kForestRows = 300;

// Every tested primary comparison as its ratio and interval on a log axis,
// with the threshold band (green: within it is "unchanged") and the minimum
// detectable effect (grey tick).
void AppendForest(std::string& out, const std::vector<const MetricVerdict*>& shown) {
  std::vector<const MetricVerdict*> rows;
  for (const MetricVerdict* m : shown)
    if (IsPrimary(*m) && m->ratio && *m->ratio > 0 && std::isfinite(*m->ratio)) rows.push_back(m);
  if (rows.empty()) return;
  const size_t total = rows.size();
  if (rows.size() > kForestRows) rows.resize(kForestRows);
  double lo = 1, hi = 1;
  for (const MetricVerdict* m : rows) {
    for (std::optional<double> x : {m->ratio, m->ci_low, m->ci_high})
      if (x && *x > 0 && std::isfinite(*x)) lo = std::min(lo, *x), hi = std::max(hi, *x);
    lo = std::min(lo, 1 / (1 + m->threshold));
    hi = std::max(hi, 1 + m->threshold);
    if (m->mde) hi = std::max(hi, 1 + *m->mde);
  }
  lo = std::max(lo / 1.05, 1.0 / 16);
  hi = std::min(hi * 1.05, 16.0);
  const double left = 260, width = 520, row_h = 18, top = 24;
  auto x = [&](double r) {
    r = std::clamp(r, lo, hi);
    return left + width * (std::log(r) - std::log(lo)) / (std::log(hi) - std::log(lo));
  };
  const double height = top + row_h * static_cast<double>(rows.size()) + 10;
  out += "<section id=\"forest\">\n<h2>Every comparison at a glance</h2>\n";
  out += "<figure><svg role=\"img\" aria-labelledby=\"forest-title\" width=\"" + Num(left + width + 20) +
         "\" height=\"" + Num(height) + "\" viewBox=\"0 0 " + Num(left + width + 20) + " " + Num(height) +
         "\" xmlns=\"http://www.w3.org/2000/svg\">\n<title id=\"forest-title\">Change of each result with its "
         "confidence interval, against its threshold band</title>\n";
  // Axis ticks at round changes.
  for (double t : {-0.5, -0.25, -0.1, -0.05, 0.0, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0}) {
    const double r = 1 + t;
    if (r < lo || r > hi) continue;
    out += "<line class=\"" + std::string(t == 0 ? "axis" : "grid") + "\" x1=\"" + Num(x(r)) + "\" x2=\"" +
           Num(x(r)) + "\" y1=\"" + Num(top - 6) + "\" y2=\"" + Num(height - 6) + "\"/>";
    out += "<text x=\"" + Num(x(r)) + "\" y=\"" + Num(top - 10) + "\" text-anchor=\"middle\">" +
           EscapeHtml(t == 0 ? std::string("0%") : FormatThreshold(std::fabs(t)).insert(0, t > 0 ? "+" : "-")) +
           "</text>\n";
  }
  for (size_t i = 0; i < rows.size(); ++i) {
    const MetricVerdict& m = *rows[i];
    const double y = top + row_h * static_cast<double>(i) + row_h / 2;
    const std::string label = m.workload + (m.metric == "time" ? "" : " (" + m.metric + ")");
    out += "<g data-verdict=\"" + std::string(ToString(m.verdict)) + "\" data-name=\"" + EscapeHtml(SearchKey(m)) +
           "\" class=\"" + ColourOf(m.verdict) + "\"><title>" +
           EscapeHtml(label + ": " + VerdictLabel(m) + ", " + ChangeText(m)) +
           "</title>";
    out += "<rect class=\"band\" x=\"" + Num(x(1 / (1 + m.threshold))) + "\" y=\"" + Num(y - 7) + "\" width=\"" +
           Num(x(1 + m.threshold) - x(1 / (1 + m.threshold))) + "\" height=\"14\"/>";
    out += "<text x=\"" + Num(left - 8) + "\" y=\"" + Num(y + 4) + "\" text-anchor=\"end\" style=\"stroke:none\">" +
           EscapeHtml(ShortenText(label, 40)) + "</text>";
    if (m.ci_low && m.ci_high && *m.ci_low > 0 && std::isfinite(*m.ci_high))
      out += "<line x1=\"" + Num(x(*m.ci_low)) + "\" x2=\"" + Num(x(*m.ci_high)) + "\" y1=\"" + Num(y) +
             "\" y2=\"" + Num(y) + "\" stroke-width=\"2\"/>";
    out += "<circle cx=\"" + Num(x(*m.ratio)) + "\" cy=\"" + Num(y) + "\" r=\"4\"/>";
    if (m.mde && m.lower_is_better)
      out += "<line class=\"mde\" x1=\"" + Num(x(1 + *m.mde)) + "\" x2=\"" + Num(x(1 + *m.mde)) + "\" y1=\"" +
             Num(y - 6) + "\" y2=\"" + Num(y + 6) + "\"/>";
    out += "</g>\n";
  }
  out += "</svg>\n<figcaption>Dot: change (current / baseline); line: its confidence interval; green band: "
         "within the threshold; grey tick: the smallest slowdown the comparison could have seen (90% power)." +
         std::string(total > rows.size() ? " The first " + std::to_string(rows.size()) + " of " +
                                               std::to_string(total) + " results, in report order."
                                         : "") +
         "</figcaption></figure>\n</section>\n";
}

// --- one workload's pictures -----------------------------------------------

struct Scale {
  double lo, hi, px_lo, px_hi;
  double operator()(double v) const {
    if (hi <= lo) return (px_lo + px_hi) / 2;
    return px_lo + (px_hi - px_lo) * (v - lo) / (hi - lo);
  }
};

Scale Padded(double lo, double hi, double px_lo, double px_hi) {
  const double pad = hi > lo ? (hi - lo) * 0.08 : std::max(std::fabs(lo) * 0.05, 1e-12);
  return Scale{lo - pad, hi + pad, px_lo, px_hi};
}

// Samples of both sides by round: each round a column of dots (alternating
// shades tell rounds apart), its median a bar.
void AppendDistribution(std::string& out, const MetricVerdict& m, const MetricPlot& p) {
  double lo = INFINITY, hi = -INFINITY;
  size_t columns = 0;
  for (const auto* side : {&p.baseline_rounds, &p.current_rounds})
    for (const auto& round : *side) {
      ++columns;
      for (double v : round) lo = std::min(lo, v), hi = std::max(hi, v);
    }
  if (columns == 0 || !std::isfinite(lo)) return;
  const double w = 520, h = 200, left = 70, gap = 24;
  const double col_w = std::min(24.0, (w - left - gap - 10) / static_cast<double>(columns));
  const Scale y = Padded(lo, hi, h - 24, 12);
  out += "<figure><svg role=\"img\" width=\"" + Num(w) + "\" height=\"" + Num(h) + "\" viewBox=\"0 0 " + Num(w) +
         " " + Num(h) + "\" xmlns=\"http://www.w3.org/2000/svg\"><title>Samples by round, baseline then current</title>";
  out += "<line class=\"axis\" x1=\"" + Num(left - 4) + "\" x2=\"" + Num(left - 4) + "\" y1=\"8\" y2=\"" + Num(h - 20) + "\"/>";
  for (double v : {lo, hi})
    out += "<text x=\"" + Num(left - 8) + "\" y=\"" + Num(y(v) + 4) + "\" text-anchor=\"end\">" +
           EscapeHtml(ValueText(m, v)) + "</text>";
  double x0 = left;
  int side_index = 0;
  for (const auto* side : {&p.baseline_rounds, &p.current_rounds}) {
    const std::string cls = side_index == 0 ? "base" : "cur";
    const double start = x0;
    for (size_t r = 0; r < side->size(); ++r) {
      const auto& round = (*side)[r];
      const double cx = x0 + col_w / 2;
      const std::string shade = cls + std::to_string(r % 2);
      for (size_t i = 0; i < round.size(); ++i) {
        const double jitter = (static_cast<double>(i % 5) - 2) * col_w / 12;
        out += "<circle class=\"" + shade + "\" cx=\"" + Num(cx + jitter) + "\" cy=\"" + Num(y(round[i])) +
               "\" r=\"2\" fill-opacity=\"0.7\"/>";
      }
      if (!round.empty()) {
        std::vector<double> sorted = round;
        std::sort(sorted.begin(), sorted.end());
        const double med = sorted[sorted.size() / 2];
        out += "<line x1=\"" + Num(cx - col_w / 2.5) + "\" x2=\"" + Num(cx + col_w / 2.5) + "\" y1=\"" + Num(y(med)) +
               "\" y2=\"" + Num(y(med)) + "\" stroke=\"#1f2328\" stroke-width=\"1.5\"/>";
      }
      x0 += col_w;
    }
    if (!side->empty())
      out += "<text x=\"" + Num((start + x0) / 2) + "\" y=\"" + Num(h - 6) + "\" text-anchor=\"middle\">" +
             std::string(side_index == 0 ? "baseline" : "current") + " (" + FormatCount(side->size(), "round") +
             ")</text>";
    x0 += gap;
    ++side_index;
  }
  out += "</svg><figcaption>Samples by round (shades alternate per round; bar: the round's median)</figcaption></figure>\n";
}

// Each baseline run's level and the current run's, with the change points.
void AppendHistory(std::string& out, const MetricVerdict& m, const MetricPlot& p) {
  std::vector<TrendPoint> points;
  for (const MetricPlot::RunLevel& r : p.history) points.push_back({r.label, r.level, r.current});
  const std::string svg = TrendSvg(points, p.change_points, [&m](double v) { return ValueText(m, v); }, 520, 170,
                                   "Median of each run, oldest first");
  if (svg.empty()) return;
  out += "<figure>" + svg + "<figcaption>Median of each run" +
         std::string(p.change_points.empty() ? "" : "; dashed: change points (E-divisive means)") +
         "; large dot: this run</figcaption></figure>\n";
}

// The workload's kernels with a change, largest first.
void AppendKernels(std::string& out, const std::vector<const MetricVerdict*>& kernels) {
  if (kernels.empty()) return;
  const size_t n = std::min<size_t>(kernels.size(), 12);
  double extent = 0.05;
  for (size_t i = 0; i < n; ++i) extent = std::max(extent, std::fabs(std::log(*kernels[i]->ratio)));
  const double w = 520, row_h = 18, label_w = 220, mid = label_w + (w - label_w) / 2, half = (w - label_w) / 2 - 50;
  const double h = row_h * static_cast<double>(n) + 10;
  out += "<figure><svg role=\"img\" width=\"" + Num(w) + "\" height=\"" + Num(h) + "\" viewBox=\"0 0 " + Num(w) + " " +
         Num(h) + "\" xmlns=\"http://www.w3.org/2000/svg\"><title>Kernels that moved</title>";
  out += "<line class=\"axis\" x1=\"" + Num(mid) + "\" x2=\"" + Num(mid) + "\" y1=\"0\" y2=\"" + Num(h) + "\"/>";
  for (size_t i = 0; i < n; ++i) {
    const MetricVerdict& k = *kernels[i];
    const double y = row_h * static_cast<double>(i) + 4;
    const double len = half * std::log(*k.ratio) / extent;
    const std::string name = k.metric.substr(7);
    out += "<g class=\"" + ColourOf(k.verdict) + "\"><title>" +
           EscapeHtml(name + ": " + VerdictLabel(k) + ", " + ChangeText(k)) + "</title>";
    out += "<text x=\"" + Num(label_w - 6) + "\" y=\"" + Num(y + 11) + "\" text-anchor=\"end\" style=\"stroke:none;fill:#1f2328\">" +
           EscapeHtml(ShortenText(name, 34)) + "</text>";
    out += "<rect x=\"" + Num(std::min(mid, mid + len)) + "\" y=\"" + Num(y) + "\" width=\"" + Num(std::fabs(len)) +
           "\" height=\"12\"/>";
    out += "<text x=\"" + Num(mid + len + (len >= 0 ? 4 : -4)) + "\" y=\"" + Num(y + 11) + "\" text-anchor=\"" +
           (len >= 0 ? "start" : "end") + "\" style=\"stroke:none;fill:#1f2328\">" +
           EscapeHtml(FormatRatio(*k.ratio)) + "</text></g>";
  }
  out += "</svg><figcaption>Kernels by change (largest first" +
         std::string(kernels.size() > n ? ", " + std::to_string(n) + " of " + std::to_string(kernels.size()) : "") +
         ")</figcaption></figure>\n";
}

constexpr size_t kWorkloadCharts = 300;

void AppendWorkloads(std::string& out, const std::vector<const MetricVerdict*>& shown, const Verdicts& v) {
  std::map<std::string, std::vector<const MetricVerdict*>> kernels;  // by workload, moved kernels
  for (const MetricVerdict& m : v.metrics)
    if (StartsWith(m.metric, "kernel:") && m.ratio && *m.ratio > 0 && std::isfinite(*m.ratio))
      kernels[m.workload].push_back(&m);
  for (auto& [w, list] : kernels)
    std::stable_sort(list.begin(), list.end(), [](const MetricVerdict* a, const MetricVerdict* b) {
      return std::fabs(std::log(*a->ratio)) > std::fabs(std::log(*b->ratio));
    });
  // At most kWorkloadCharts sections, the ones a reader opens first:
  // regressions, then improvements and undecided results, then the rest
  // (a suite of 10,000 workloads drew 90 MB of charts). The table lists all.
  std::vector<const MetricVerdict*> charted;
  for (const MetricVerdict* m : shown)
    if (IsPrimary(*m) && m->plot) charted.push_back(m);
  const size_t total = charted.size();
  if (charted.size() > kWorkloadCharts) {
    auto rank = [](const MetricVerdict* m) {
      switch (m->verdict) {
        case Verdict::kRegression: return 0;
        case Verdict::kImprovement: return 1;
        case Verdict::kInconclusive: return 2;
        default: return 3;
      }
    };
    std::vector<const MetricVerdict*> ranked = charted;
    std::stable_sort(ranked.begin(), ranked.end(),
                     [&](const MetricVerdict* a, const MetricVerdict* b) { return rank(a) < rank(b); });
    ranked.resize(kWorkloadCharts);
    const std::set<const MetricVerdict*> keep(ranked.begin(), ranked.end());
    std::erase_if(charted, [&](const MetricVerdict* m) { return !keep.count(m); });
  }
  std::string body;
  int count = 0;
  for (const MetricVerdict* m : charted) {
    ++count;
    const bool open = m->verdict == Verdict::kRegression && count <= 10;
    body += "<details class=\"workload\" data-verdict=\"" + std::string(ToString(m->verdict)) + "\" data-name=\"" +
            EscapeHtml(SearchKey(*m)) + "\"" + (open ? " open" : "") + "><summary><span class=\"v-" +
            ToString(m->verdict) + "\">" + EscapeHtml(VerdictLabel(*m)) + "</span> " + EscapeHtml(m->workload) +
            (m->metric == "time" ? "" : " (" + EscapeHtml(m->metric) + ")") + ": " +
            EscapeHtml(ChangeText(*m)) + "</summary>\n";
    body += "<p class=\"context\">" + EscapeHtml(FullNoteText(*m, v.require_detectable)) + "</p>\n<div class=\"charts\">\n";
    AppendDistribution(body, *m, *m->plot);
    AppendHistory(body, *m, *m->plot);
    if (auto it = kernels.find(m->workload); it != kernels.end()) AppendKernels(body, it->second);
    body += "</div>\n</details>\n";
  }
  if (count == 0) return;
  out += "<section id=\"workloads\">\n<h2>Per workload (" + std::to_string(count) +
         (total > charted.size() ? " of " + std::to_string(total) +
                                       ": regressions, improvements and undecided results first; the table lists all"
                                 : std::string()) +
         ")</h2>\n" + body + "</section>\n";
}

// --- the interactive table ---------------------------------------------------

std::string SortKey(std::optional<double> x) {
  if (!x || !std::isfinite(*x)) return "";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", *x);
  return buf;
}

void AppendResults(std::string& out, const std::vector<const MetricVerdict*>& shown, const Verdicts& v) {
  if (shown.empty()) return;
  out += "<section id=\"all\">\n<h2>All results (" + std::to_string(shown.size()) + ")</h2>\n";
  out += "<table id=\"results\">\n<thead><tr>";
  const char* columns[] = {"Workload", "Metric", "Verdict", "Change", "Interval", "p (adjusted)", "Could see", "Note"};
  for (size_t i = 0; i < std::size(columns); ++i)
    out += "<th scope=\"col\"><button type=\"button\" data-col=\"" + std::to_string(i) + "\">" + columns[i] +
           "</button></th>";
  out += "</tr></thead>\n<tbody>\n";
  for (const MetricVerdict* m : shown) {
    std::string interval = "n/a";
    if (m->ratio && m->ci_low && m->ci_high) {
      // The interval part of the one formatter, so both columns share its notation.
      const std::string both = ChangeText(*m);
      if (const size_t open = both.find(" ["); open != std::string::npos) interval = both.substr(open + 1);
    }
    auto ChangeCell = [](const MetricVerdict& x) {
      const std::string both = ChangeText(x);
      return both.substr(0, both.find(" ["));
    };
    out += "<tr data-verdict=\"" + std::string(ToString(m->verdict)) + "\" data-name=\"" + EscapeHtml(SearchKey(*m)) + "\">";
    out += "<td>" + EscapeHtml(m->workload) + "</td><td>" + EscapeHtml(m->metric) + "</td>";
    out += "<td data-sort=\"" + std::to_string(VerdictOrder(m->verdict)) + "\" class=\"v-" + ToString(m->verdict) +
           "\">" + EscapeHtml(VerdictLabel(*m)) + "</td>";
    out += "<td class=\"num\" data-sort=\"" + SortKey(m->ratio ? std::optional<double>(*m->ratio - 1) : std::nullopt) +
           "\">" + EscapeHtml(m->ratio ? ChangeCell(*m) : "n/a") + "</td>";
    out += "<td class=\"num\">" + EscapeHtml(interval) + "</td>";
    out += "<td class=\"num\" data-sort=\"" + SortKey(m->p_adjusted) + "\">" + EscapeHtml(FormatPValues(*m)) + "</td>";
    out += "<td class=\"num\" data-sort=\"" + SortKey(m->mde) + "\">" + EscapeHtml(DetectableText(*m)) + "</td>";
    out += "<td>" + EscapeHtml(NoteText(*m, v.require_detectable)) + "</td></tr>\n";
  }
  out += "</tbody>\n</table>\n</section>\n";
}

void AppendControls(std::string& out) {
  out += "<nav class=\"controls\" id=\"controls\" hidden>";
  const std::pair<const char*, const char*> filters[] = {{"all", "All"},
                                                         {"regression", "Regressions"},
                                                         {"improvement", "Improvements"},
                                                         {"inconclusive", "Inconclusive"},
                                                         {"unchanged", "Unchanged"},
                                                         {"other", "New, removed, skipped"}};
  for (const auto& [id, label] : filters)
    out += std::string("<button type=\"button\" data-filter=\"") + id + "\" aria-pressed=\"" +
           (std::string(id) == "all" ? "true" : "false") + "\">" + label + "</button>";
  out += "<input id=\"search\" type=\"search\" placeholder=\"Search workloads and metrics\" "
         "aria-label=\"Search workloads and metrics\"> <span id=\"shown\"></span></nav>\n";
}

}  // namespace

std::string RenderHtml(const Verdicts& verdicts, const ReportOptions& /*options*/) {
  const ReportView view = BuildView(verdicts);
  const std::vector<const MetricVerdict*> shown = ShownMetrics(verdicts);
  // The badge's class is the outcome's machine spelling; its text the label.
  const std::string outcome = ToString(view.outcome);

  std::string out = HtmlPageHead("gpugate: " + view.label + ", " + view.summary, kStyle);
  out += "<h1><span class=\"outcome " + outcome + "\">" + EscapeHtml(view.label) +
         "</span> gpugate: " + EscapeHtml(view.summary) + "</h1>\n";
  if (!view.outcome_note.empty()) {
    out += "<p class=\"context\">" + EscapeHtml(SentenceCase(view.outcome_note)) + ".</p>\n";
  }
  if (!view.detectable.empty()) {
    out += "<p class=\"context\">Could have seen: " + EscapeHtml(view.detectable) + " (" +
           EscapeHtml(view.detectable_gloss) + ").</p>\n";
  }
  if (!view.requirement.empty() && view.summary.find(view.requirement) == std::string::npos) {
    out += "<p class=\"context\">" + EscapeHtml(SentenceCase(view.requirement)) + ".</p>\n";
  }
  out += "<p class=\"context\">" + EscapeHtml(SentenceCase(view.context)) + ".</p>\n";
  if (view.results == 0) out += "<p>No results were compared.</p>\n";
  if (!shown.empty()) AppendControls(out);
  AppendForest(out, shown);

  for (const ViewSection& s : view.sections) {
    const std::string count = std::to_string(s.table.rows.size());
    out += "<section class=\"" + EscapeHtml(s.id) + " tone-" + ToneName(s.tone) + "\">\n";
    if (s.folded) {
      out += "<details>\n<summary>" + count + " " + EscapeHtml(LowerFirst(s.title)) + "</summary>\n";
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

  AppendWorkloads(out, shown, verdicts);
  AppendResults(out, shown, verdicts);

  if (!verdicts.environments.empty()) {
    // Both environments whole, what differs marked.
    int differ = 0;
    for (const EnvField& e : verdicts.environments) differ += e.baseline != e.current;
    out += "<section class=\"environment\">\n<h2>Environments" +
           std::string(differ ? " (" + std::to_string(differ) + " differ)" : "") + "</h2>\n";
    if (!view.environment_matches)
      out += "<p>The environments do not match: affected results are incomparable, not regressions.</p>\n";
    else if (!view.env_differences.rows.empty())
      out += "<p>The environments differ in some fields; the comparison allowed it.</p>\n";
    out += "<table>\n<thead><tr><th scope=\"col\">Field</th><th scope=\"col\">Baseline</th><th scope=\"col\">"
           "Current</th></tr></thead>\n<tbody>\n";
    for (const EnvField& e : verdicts.environments) {
      const bool diff = e.baseline != e.current;
      const std::string baseline = EnvValueText(e.field, e.baseline), current = EnvValueText(e.field, e.current);
      out += std::string(diff ? "<tr class=\"differs\">" : "<tr>") + "<td>" + EscapeHtml(e.field) +
             (diff ? " <strong>(differs)</strong>" : "") + "</td><td>" + EscapeHtml(baseline.empty() ? "—" : baseline) +
             "</td><td>" + EscapeHtml(current.empty() ? "—" : current) + "</td></tr>\n";
    }
    out += "</tbody>\n</table>\n</section>\n";
  } else if (!view.env_differences.rows.empty() || !view.environment_matches) {
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

  if (!view.warnings.empty()) {
    out += "<section class=\"warnings\">\n<h2>Warnings</h2>\n<ul class=\"warnings\">\n";
    for (const std::string& w : view.warnings) out += "<li>" + EscapeHtml(w) + "</li>\n";
    out += "</ul>\n</section>\n";
  }
  if (!shown.empty()) {
    out += "<script>";
    out += kScript;
    out += "</script>\n";
  }
  out += "</body>\n</html>\n";
  return out;
}

}  // namespace gpugate
