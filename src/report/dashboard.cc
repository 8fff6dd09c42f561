// The history dashboard (see dashboard.h).
#include "report/dashboard.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "model/history_series.h"
#include "report/html_page.h"
#include "util/random.h"
#include "util/strings.h"
#include "util/text/escape.h"
#include "util/text/format.h"

namespace gpugate {

namespace {

constexpr const char* kStyle = R"css(
.step-up{color:#cf222e}.step-down{color:#1a7f37}
nav.crumbs{margin-bottom:1em;color:#59636e}
)css";

// A path part for an untrusted name: its slug and 8 hex digits of its hash.
std::string PathPart(const std::string& name) {
  char hash[16];
  std::snprintf(hash, sizeof hash, "%08llx",
                static_cast<unsigned long long>(Fnv1a64(name) & 0xffffffffULL));
  std::string slug = Slug(name);
  return (slug.empty() ? std::string("x") : slug) + "-" + hash;
}


std::string Commit(const RunInfo& r) {
  if (!r.git_sha) return "unknown";
  // Twelve bytes of a hex sha; a hand-written one is cut at a code point.
  return std::string(CutAtCodePoint(*r.git_sha, 12));
}

// The metric's values as people read them: time as durations, others with
// the workload's unit.
std::string ValueText(const std::string& metric, const std::string& unit, double v) {
  if (metric == "time" || metric == "peak_memory" || metric == "throughput") return FormatMetricValue(metric, v);
  return FormatValueInUnit(v, unit);
}

// The unit of the newest run that measured the workload: its series is in
// that unit (BuildHistories).
std::string UnitOf(const Baseline& b, const std::string& name, const std::string& metric) {
  for (auto r = b.runs.rbegin(); r != b.runs.rend(); ++r)
    if (const WorkloadResult* w = r->Find(name); w && w->metric == metric && w->status == WorkloadStatus::kOk)
      return w->unit;
  return "";
}

// The change from a series' first run to its last, as a step reads.
std::string ChangeOverTheHistory(const WorkloadHistory& h) {
  if (h.values.size() < 2) return "n/a";
  HistoryStep whole;
  const double first = h.Level(0), last = h.Level(h.values.size() - 1);
  if (h.log_scale) {
    whole.log_ratio = h.values.back() - h.values.front();
    whole.ratio = std::exp(whole.log_ratio);
  } else {
    whole.ratio = first != 0 ? last / first : last > 0 ? std::numeric_limits<double>::infinity() : 1.0;
  }
  return StepText(whole);
}

struct Page {
  std::string path;
  std::string html;
};

std::string Crumbs(const std::vector<std::pair<std::string, std::string>>& parts) {
  std::string out = "<nav class=\"crumbs\">";
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i) out += " / ";
    out += parts[i].second.empty() ? EscapeHtml(parts[i].first)
                                   : "<a href=\"" + EscapeHtml(parts[i].second) + "\">" + EscapeHtml(parts[i].first) + "</a>";
  }
  return out + "</nav>\n";
}

// The history cut to its newest kDashboardRuns runs, and how many older
// runs were left out: run i of the cut is run i + 1 + left_out of the
// history, as `gpugate history` and `baseline show` number it.
struct BoundedHistory {
  Baseline baseline;
  size_t left_out = 0;
  std::string RunNumber(size_t i) const { return std::to_string(i + 1 + left_out); }
};

BoundedHistory Bounded(const Baseline& b) {
  if (b.runs.size() <= kDashboardRuns) return {b, 0};
  BoundedHistory cut{b, b.runs.size() - kDashboardRuns};
  cut.baseline.runs.erase(cut.baseline.runs.begin(),
                          cut.baseline.runs.begin() + static_cast<std::ptrdiff_t>(cut.left_out));
  return cut;
}

// "time in 480 of the newest 500 runs of h.json (the 20 older runs are left
// out)", or "time in 10 of 12 runs of h.json".
std::string RunsShown(const BoundedHistory& bh, size_t with_value) {
  const size_t shown = bh.baseline.runs.size();
  if (bh.left_out == 0) return std::to_string(with_value) + " of " + std::to_string(shown) + " run" + (shown == 1 ? "" : "s");
  return std::to_string(with_value) + " of the newest " + std::to_string(shown) + " runs (runs " + bh.RunNumber(0) +
         "–" + bh.RunNumber(shown - 1) + "; the " + std::to_string(bh.left_out) + " older run" +
         (bh.left_out == 1 ? " is" : "s are") + " left out)";
}

// Why a history without a step may have had no chance to show one: fewer
// runs than the test takes (2·min_segment), or than a step needs to reach
// alpha at all (MinValuesForAStep); empty when it had.
std::string TooFewRunsText(size_t runs, const ChangePointOptions& cp) {
  const size_t tested = static_cast<size_t>(2 * cp.min_segment);
  const int needed = MinValuesForAStep(cp);
  if (runs < tested) return "Too few runs to test (" + std::to_string(tested) + " or more are needed).";
  if (needed == 0) return "No step can reach p ≤ " + FormatPValue(cp.alpha) + " with these permutations.";
  if (runs < static_cast<size_t>(needed))
    return "Too few runs to find a step reliably at p ≤ " + FormatPValue(cp.alpha) + " (" + std::to_string(needed) +
           " or more are needed).";
  return "";
}

std::string WorkloadPage(const DashboardInput& in, const BoundedHistory& bh, const WorkloadHistory& h,
                         const std::string& metric, const std::string& suite_title, const ChangePointOptions& cp) {
  const Baseline& b = bh.baseline;
  const std::string unit = UnitOf(b, h.name, metric);
  auto fmt = [&](double v) { return ValueText(metric, unit, v); };
  std::string out = HtmlPageHead(h.name + " — " + suite_title, kStyle, PageScript::kNone);
  out += Crumbs({{"all histories", "../../index.html"}, {suite_title, "index.html"}, {h.name, ""}});
  out += "<h1>" + EscapeHtml(h.name) + "</h1>\n<p class=\"context\">" + EscapeHtml(metric) + " in " +
         EscapeHtml(RunsShown(bh, h.values.size())) + " of " + EscapeHtml(in.source) + "</p>\n";
  std::vector<TrendPoint> points;
  std::vector<int64_t> cps;
  for (size_t i = 0; i < h.values.size(); ++i)
    points.push_back({RunLabel(b.runs[h.runs[i]].run), h.Level(i), i + 1 == h.values.size()});
  for (const HistoryStep& s : h.steps)
    for (size_t i = 0; i < h.runs.size(); ++i)
      if (h.runs[i] == s.run) cps.push_back(static_cast<int64_t>(i));
  const std::string svg = TrendSvg(points, cps, fmt, 900, 260, "Median of each run, oldest first");
  if (!svg.empty())
    out += "<figure>" + svg + "<figcaption>Median of each run; dashed: change points (E-divisive means)</figcaption></figure>\n";
  else
    out += "<p>Fewer than 2 runs with a value: nothing to draw.</p>\n";
  out += "<h2>Change points (" + std::to_string(h.steps.size()) + ")</h2>\n";
  if (h.steps.empty()) {
    const std::string too_few = TooFewRunsText(h.values.size(), cp);
    out += "<p>" + EscapeHtml(too_few.empty() ? "No step change." : too_few) + "</p>\n";
  } else {
    out += "<table><thead><tr><th>Step</th><th>First run at the new level</th><th>Commit</th><th>Runs before / after</th><th>p</th></tr></thead><tbody>\n";
    for (const HistoryStep& s : h.steps) {
      const RunInfo& r = b.runs[s.run].run;
      out += "<tr><td class=\"num " + std::string(s.ratio > 1 ? "step-up" : "step-down") + "\">" + EscapeHtml(StepText(s)) +
             "</td><td>" + EscapeHtml(r.time_utc) + " (run " + bh.RunNumber(s.run) + ")</td><td>" +
             EscapeHtml(Commit(r)) + (r.git_branch ? " on " + EscapeHtml(*r.git_branch) : "") + "</td><td class=\"num\">" +
             std::to_string(s.n_before) + " / " + std::to_string(s.n_after) + "</td><td class=\"num\">" +
             EscapeHtml(FormatPValue(s.p_value)) + "</td></tr>\n";
    }
    out += "</tbody></table>\n";
  }
  if (h.search_capped)
    out += "<p>The search takes at most " + std::to_string(cp.max_change_points) +
           " change points and found as many: more may be missing, and the ratios beside them span merged "
           "levels.</p>\n";
  out += "<h2>Runs</h2>\n<table><thead><tr><th>Run</th><th>Time</th><th>Commit</th><th>Median</th></tr></thead><tbody>\n";
  for (size_t i = h.values.size(); i-- > 0;) {
    const RunInfo& r = b.runs[h.runs[i]].run;
    out += "<tr><td class=\"num\">" + bh.RunNumber(h.runs[i]) + "</td><td>" + EscapeHtml(r.time_utc) + "</td><td>" +
           EscapeHtml(Commit(r)) + "</td><td class=\"num\">" + EscapeHtml(fmt(h.levels[i])) + "</td></tr>\n";
  }
  out += "</tbody></table>\n</body>\n</html>\n";
  return out;
}

}  // namespace

std::map<std::string, std::string> RenderDashboard(const std::vector<DashboardInput>& inputs,
                                                   const DashboardOptions& options) {
  std::map<std::string, std::string> files;
  std::string index = HtmlPageHead(options.title, kStyle, PageScript::kNone);
  index += "<h1>" + EscapeHtml(options.title) + "</h1>\n<p class=\"context\">" + std::to_string(inputs.size()) +
           " baseline histor" + (inputs.size() == 1 ? "y" : "ies") + ", metric " + EscapeHtml(options.metric) +
           "; change points by E-divisive means (alpha " + FormatPValue(options.change_points.alpha) + ").</p>\n";
  index += "<table><thead><tr><th>Suite</th><th>Runner class</th><th>Runs</th><th>Latest run</th><th>Workloads</th>"
           "<th>With a step</th><th>File</th></tr></thead><tbody>\n";
  // One suite and runner class from two folders (two branches' baselines):
  // each gets pages of its own, told apart by its file.
  std::map<std::pair<std::string, std::string>, int> pairs;
  for (const DashboardInput& in : inputs) ++pairs[{in.baseline.suite, in.runner_class}];
  // Every page path belongs to one name: a slug and hash another name took
  // first (8 hex digits collide by chance among some 10^5 names, and can be
  // made to) gets a counter, so no page overwrites another's.
  std::map<std::string, std::string> owners;
  auto unique = [&owners](const std::string& stem, const std::string& ext, const std::string& owner) {
    std::string path = stem + ext;
    for (int n = 2;; ++n) {
      auto [it, fresh] = owners.emplace(path, owner);
      if (fresh || it->second == owner) return path;
      path = stem + "-" + std::to_string(n) + ext;
    }
  };
  for (const DashboardInput& in : inputs) {
    const BoundedHistory bh = Bounded(in.baseline);
    const Baseline& b = bh.baseline;
    const bool shared = pairs[{in.baseline.suite, in.runner_class}] > 1;
    const std::string class_part = shared ? in.runner_class + " " + in.source : in.runner_class;
    const std::string dir = unique(PathPart(b.suite) + "/" + PathPart(class_part), "/",
                                   b.suite + '\n' + class_part);
    const std::string suite_title = b.suite + " on " + in.runner_class;
    std::vector<CpuSpeed> cpus;
    std::vector<WorkloadHistory> hs = BuildHistories(b, options.metric, {}, options.change_points, 0, &cpus);
    const size_t all = hs.size();
    if (hs.size() > kDashboardWorkloads) hs.resize(kDashboardWorkloads);
    int stepped = 0;
    std::string page = HtmlPageHead(suite_title, kStyle, PageScript::kNone);
    page += Crumbs({{"all histories", "../../index.html"}, {suite_title, ""}});
    page += "<h1>" + EscapeHtml(suite_title) + "</h1>\n<p class=\"context\">" + std::to_string(b.runs.size()) +
            " run" + (b.runs.size() == 1 ? "" : "s") +
            (bh.left_out > 0 ? " (the newest " + std::to_string(b.runs.size()) + " of " +
                                   std::to_string(in.baseline.runs.size()) + ", runs " + bh.RunNumber(0) + "–" +
                                   bh.RunNumber(b.runs.size() - 1) + ")"
                             : std::string()) +
            " from " + EscapeHtml(in.source) + "; metric " + EscapeHtml(options.metric) + "." +
            (all > hs.size() ? " The first " + std::to_string(hs.size()) + " of " + std::to_string(all) + " workloads." : "") +
            "</p>\n";
    if (!b.runs.empty())
      for (const std::string& line : CpuSpeedLines(cpus, b.runs.back().run.env.cpu_model))
        page += "<p class=\"context\">" + EscapeHtml(line) + ".</p>\n";
    page += "<table><thead><tr><th>Workload</th><th>Trend</th><th>Latest</th><th>Change over the history</th>"
            "<th>Steps</th><th>Latest step</th></tr></thead><tbody>\n";
    for (const WorkloadHistory& h : hs) {
      const std::string file = unique(dir + PathPart(h.name), ".html", dir + '\n' + h.name).substr(dir.size());
      files[dir + file] = WorkloadPage(in, bh, h, options.metric, suite_title, options.change_points);
      const std::string unit = UnitOf(b, h.name, options.metric);
      stepped += !h.steps.empty();
      std::vector<TrendPoint> points;
      for (size_t i = 0; i < h.values.size(); ++i)
        points.push_back({RunLabel(b.runs[h.runs[i]].run), h.Level(i), i + 1 == h.values.size()});
      std::vector<int64_t> cps;
      for (const HistoryStep& s : h.steps)
        for (size_t i = 0; i < h.runs.size(); ++i)
          if (h.runs[i] == s.run) cps.push_back(static_cast<int64_t>(i));
      page += "<tr><td><a href=\"" + EscapeHtml(file) + "\">" + EscapeHtml(h.name) + "</a></td><td>";
      page += h.values.size() >= 2 ? TrendSvg(points, cps, [&](double v) { return ValueText(options.metric, unit, v); }, 200, 40,
                                                 "trend of " + h.name) : "";
      page += "</td><td class=\"num\">" +
              (h.levels.empty() ? std::string("n/a") : EscapeHtml(ValueText(options.metric, unit, h.levels.back()))) +
              "</td><td class=\"num\">" +
              EscapeHtml(ChangeOverTheHistory(h)) +
              "</td><td class=\"num\">" + std::to_string(h.steps.size()) + (h.search_capped ? "+" : "") + "</td><td>";
      if (!h.steps.empty()) {
        const HistoryStep& s = h.steps.back();
        page += "<span class=\"" + std::string(s.ratio > 1 ? "step-up" : "step-down") + "\">" + EscapeHtml(StepText(s)) +
                "</span> at " + EscapeHtml(Commit(b.runs[s.run].run)) + " (" + EscapeHtml(std::string(CutAtCodePoint(b.runs[s.run].run.time_utc, 10))) + ")";
      }
      page += "</td></tr>\n";
    }
    page += "</tbody></table>\n</body>\n</html>\n";
    files[dir + "index.html"] = std::move(page);
    const std::string latest = b.runs.empty() ? "n/a" : b.runs.back().run.time_utc;
    index += "<tr><td>" + EscapeHtml(b.suite) + "</td><td><a href=\"" + EscapeHtml(dir + "index.html") + "\">" +
             EscapeHtml(in.runner_class) + "</a></td><td class=\"num\">" + std::to_string(in.baseline.runs.size()) +
             "</td><td>" + EscapeHtml(latest) + "</td><td class=\"num\">" + std::to_string(all) + "</td><td class=\"num\">" +
             std::to_string(stepped) + "</td><td>" + EscapeHtml(in.source) + "</td></tr>\n";
  }
  index += "</tbody></table>\n</body>\n</html>\n";
  files["index.html"] = std::move(index);
  return files;
}

}  // namespace gpugate
