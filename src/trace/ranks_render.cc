// RanksReport renderers. The text formats (console, Markdown, HTML) share one
// description of the report -- sections of paragraphs and tables of plain
// text -- and differ only in layout and escaping: every cell and line goes
// through the format's escaper, so a hostile path or kernel name is inert
// everywhere. JSON is written field by field.
#include "trace/ranks_render.h"

#include <algorithm>
#include <cstdio>
#include <set>
#include <vector>

#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

#include "report/html_page.h"
#include "util/json_writer.h"
#include "util/text/escape.h"
#include "util/text/format.h"

namespace gpugate {
namespace {

std::string Dur(int64_t ns) { return FormatDuration(static_cast<double>(ns) * 1e-9); }

std::string Num(double v, const char* fmt) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

/// "12.3 ms (45.0%)": a time and its share of `whole`.
std::string DurPct(int64_t ns, int64_t whole) {
  if (whole <= 0) return Dur(ns);
  return Dur(ns) + " (" + FormatShare(static_cast<double>(ns) / static_cast<double>(whole), 1) + ")";
}

/// "12.3 ms -> 13.1 ms (+6.5%)".
std::string Change(int64_t base, int64_t current) {
  std::string s = Dur(base) + " -> " + Dur(current);
  if (base > 0) s += " (" + FormatRatio(static_cast<double>(current) / static_cast<double>(base)) + ")";
  return s;
}

std::string RankLabel(const RankSummary& s) {
  return std::to_string(s.rank) + (s.rank_from_trace ? "" : " (order)");
}

struct Table {
  std::vector<std::string> header;
  std::vector<bool> right;  ///< per column: right-aligned (numbers)
  std::vector<std::vector<std::string>> rows;
};

struct Section {
  std::string title;
  std::vector<std::string> lines;  ///< paragraphs before the table
  Table table;
};

// ---- The report as sections ------------------------------------------------

Section Overview(const RanksReport& r, const RanksRenderInfo& info) {
  Section s;
  s.title = "Ranks";
  std::set<int64_t> world;
  for (const RankSummary& k : r.ranks)
    if (k.world_size) world.insert(*k.world_size);
  std::string line = std::to_string(r.ranks.size()) + " rank traces analysed with " + std::to_string(info.jobs) +
                     (info.jobs == 1 ? " thread" : " threads");
  if (world.size() == 1) line += "; world size " + std::to_string(*world.begin());
  else if (world.size() > 1) line += "; the traces disagree on the world size";
  s.lines.push_back(line + ".");
  if (world.size() == 1 && *world.begin() != static_cast<int64_t>(r.ranks.size()))
    s.lines.push_back("Only " + std::to_string(r.ranks.size()) + " of " + std::to_string(*world.begin()) +
                      " ranks were given.");
  s.lines.push_back(
      "Per rank, over its GPU window (first GPU start to last GPU end; percentages of the window). "
      "communication = NCCL kernels while no compute kernel runs (exposed); overlap = NCCL beside compute.");
  s.table.header = {"rank", "trace", "GPU window", "busy", "compute", "communication", "overlap", "idle",
                    "kernel time", "kernels", "median step", "straggler steps"};
  s.table.right = {false, false, true, true, true, true, true, true, true, true, true, true};
  for (size_t i = 0; i < r.ranks.size(); ++i) {
    const RankSummary& k = r.ranks[i];
    s.table.rows.push_back({RankLabel(k), k.path, Dur(k.window_ns), DurPct(k.busy_ns, k.window_ns),
                            DurPct(k.compute_ns, k.window_ns), DurPct(k.communication_ns, k.window_ns),
                            DurPct(k.overlap_ns, k.window_ns), DurPct(k.idle_ns, k.window_ns),
                            Dur(k.kernel_time_ns), std::to_string(k.kernel_count),
                            k.steps.empty() ? "-" : Dur(k.step_median_ns), std::to_string(r.straggler_count[i])});
  }
  return s;
}

Section Imbalance(const RanksReport& r) {
  Section s;
  s.title = "Load imbalance";
  if (!r.compute_imbalance) {
    s.lines.push_back("No rank has compute time.");
    return s;
  }
  const RankSummary& most = r.ranks[r.most_compute];
  const RankSummary& least = r.ranks[r.least_compute];
  s.lines.push_back("Compute time max/mean " + Num(*r.compute_imbalance, "%.3f") + ": most on rank " +
                    std::to_string(most.rank) + " (" + Dur(most.compute_ns) + "), least on rank " +
                    std::to_string(least.rank) + " (" + Dur(least.compute_ns) + ").");
  return s;
}

Section Stragglers(const RanksReport& r, const RanksRenderInfo& info) {
  Section s;
  s.title = "Stragglers";
  const std::string threshold = Num(100 * r.options.straggler_threshold, "%g%%");
  if (r.steps.empty()) {
    s.lines.push_back(r.steps_not_in_all > 0
                          ? "No ProfilerStep#N is present in every rank (" + std::to_string(r.steps_not_in_all) +
                                " steps are in some ranks only)."
                          : "The traces have no numbered ProfilerStep#N annotations.");
    return s;
  }
  const int64_t flagged = r.FlaggedSteps();
  std::string line = std::to_string(r.steps.size()) + " steps in every rank";
  if (r.steps_not_in_all > 0) line += " (" + std::to_string(r.steps_not_in_all) + " more in some ranks only)";
  line += "; in " + std::to_string(flagged) + " the slowest rank exceeds the median step time by more than " +
          threshold + ".";
  s.lines.push_back(line);
  std::vector<const StepStraggler*> shown;
  for (const StepStraggler& st : r.steps)
    if (st.flagged) shown.push_back(&st);
  std::stable_sort(shown.begin(), shown.end(), [](const StepStraggler* a, const StepStraggler* b) {
    return a->excess_fraction > b->excess_fraction;
  });
  if (shown.size() > static_cast<size_t>(std::max(info.top_n, 0))) {
    shown.resize(static_cast<size_t>(std::max(info.top_n, 0)));
    s.lines.push_back("Top " + std::to_string(shown.size()) + " of " + std::to_string(flagged) +
                      " by excess (the JSON report lists every step):");
  }
  if (shown.empty()) return s;
  s.table.header = {"step", "median", "slowest rank", "its time", "excess", "excess %"};
  s.table.right = {true, true, true, true, true, true};
  for (const StepStraggler* st : shown)
    s.table.rows.push_back({std::to_string(st->step), Dur(st->median_ns), std::to_string(r.ranks[st->slowest].rank),
                            Dur(st->duration_ns[st->slowest]), Dur(st->excess_ns),
                            FormatShare(st->excess_fraction, 1)});
  return s;
}

Section Overlap(const RanksReport& r) {
  Section s;
  s.title = "Communication/compute overlap";
  s.lines.push_back("NCCL time per rank (union of NCCL kernels), the part that runs beside compute kernels, "
                    "and the exposed rest.");
  s.table.header = {"rank", "NCCL time", "overlapped", "exposed", "overlap"};
  s.table.right = {false, true, true, true, true};
  for (const RankSummary& k : r.ranks) {
    std::optional<double> f = k.OverlapFraction();
    s.table.rows.push_back({RankLabel(k), Dur(k.communication_total_ns), Dur(k.overlap_ns), Dur(k.communication_ns),
                            f ? FormatShare(*f, 1) : "-"});
  }
  return s;
}

Section Collectives(const RanksReport& r) {
  Section s;
  s.title = "NCCL kernels by collective";
  if (r.collectives.empty()) {
    s.lines.push_back("No NCCL kernels.");
    return s;
  }
  s.table.header = {"collective", "rank", "kernels", "time", "share of the rank's kernel time"};
  s.table.right = {false, false, true, true, true};
  for (const std::string& c : r.collectives)
    for (const RankSummary& k : r.ranks)
      for (const CollectiveStats& cs : k.collectives)
        if (cs.collective == c)
          s.table.rows.push_back({c, RankLabel(k), std::to_string(cs.count), Dur(cs.total_ns),
                                  k.kernel_time_ns > 0
                                      ? FormatShare(static_cast<double>(cs.total_ns) /
                                                        static_cast<double>(k.kernel_time_ns), 1)
                                      : "-"});
  return s;
}

Section Comparison(const RanksReport& r) {
  Section s;
  s.title = "Change against the baseline job";
  s.lines.push_back("Per rank, baseline -> this job. One trace per rank and job is one sample: these are "
                    "differences, not judged changes.");
  s.table.header = {"rank", "median step", "busy", "compute", "communication", "idle"};
  s.table.right = {false, true, true, true, true, true};
  for (const RankDelta& d : r.deltas) {
    if (!d.base || !d.current) {
      s.table.rows.push_back({std::to_string(d.rank), d.base ? "only in the baseline" : "only in this job", "", "",
                              "", ""});
      continue;
    }
    const RankSummary& b = r.baseline[*d.base];
    const RankSummary& c = r.ranks[*d.current];
    s.table.rows.push_back({std::to_string(d.rank),
                            b.steps.empty() || c.steps.empty() ? "-" : Change(b.step_median_ns, c.step_median_ns),
                            Change(b.busy_ns, c.busy_ns), Change(b.compute_ns, c.compute_ns),
                            Change(b.communication_total_ns, c.communication_total_ns), Change(b.idle_ns, c.idle_ns)});
  }
  return s;
}

std::vector<Section> Sections(const RanksReport& r, const RanksRenderInfo& info) {
  std::vector<Section> out = {Overview(r, info), Imbalance(r), Stragglers(r, info), Overlap(r), Collectives(r)};
  if (!r.baseline.empty()) out.push_back(Comparison(r));
  return out;
}

// ---- Layouts -----------------------------------------------------------------

constexpr size_t kCellWidth = 60;

std::string ConsoleCell(const std::string& s) { return EscapeTerminal(ShortenText(s, kCellWidth)); }

}  // namespace

std::string RenderRanksConsole(const RanksReport& r, const RanksRenderInfo& info) {
  std::string o;
  bool first = true;
  for (const Section& s : Sections(r, info)) {
    o += (first ? "" : "\n") + EscapeTerminal(s.title) + "\n";
    first = false;
    for (const std::string& l : s.lines) o += "  " + EscapeTerminal(l) + "\n";
    const Table& t = s.table;
    if (t.rows.empty()) continue;
    std::vector<std::vector<std::string>> cells = {{}};
    for (const std::string& h : t.header) cells[0].push_back(ConsoleCell(h));
    for (const auto& row : t.rows) {
      cells.emplace_back();
      for (const std::string& c : row) cells.back().push_back(ConsoleCell(c));
    }
    std::vector<int> width(t.header.size(), 0);
    for (const auto& row : cells)
      for (size_t c = 0; c < row.size() && c < width.size(); ++c) width[c] = std::max(width[c], DisplayWidth(row[c]));
    for (const auto& row : cells) {
      std::string line = " ";
      for (size_t c = 0; c < row.size() && c < width.size(); ++c)
        line += " " + PadText(row[c], c + 1 == row.size() && !t.right[c] ? 0 : width[c], t.right[c]);
      while (!line.empty() && line.back() == ' ') line.pop_back();
      o += line + "\n";
    }
  }
  return o;
}

std::string RenderRanksMarkdown(const RanksReport& r, const RanksRenderInfo& info) {
  std::string o = "## gpugate trace analysis: many ranks\n";
  for (const Section& s : Sections(r, info)) {
    o += (o.ends_with("\n\n") ? "### " : "\n### ") + EscapeMarkdown(s.title) + "\n\n";
    for (const std::string& l : s.lines) o += EscapeMarkdown(l) + "\n\n";
    const Table& t = s.table;
    if (t.rows.empty()) continue;
    o += "|";
    for (const std::string& h : t.header) o += " " + EscapeMarkdown(h) + " |";
    o += "\n|";
    for (bool right : t.right) o += right ? " ---: |" : " --- |";
    o += "\n";
    for (const auto& row : t.rows) {
      o += "|";
      for (const std::string& c : row) o += " " + EscapeMarkdown(ShortenText(c, 200)) + " |";
      o += "\n";
    }
  }
  return o;
}

std::string RenderRanksHtml(const RanksReport& r, const RanksRenderInfo& info) {
  std::string o = HtmlPageHead("gpugate trace analysis: " + std::to_string(r.ranks.size()) + " ranks",
                               "td.n,th.n{text-align:right}\n", PageScript::kNone);
  o += "<h1>Trace analysis: " + std::to_string(r.ranks.size()) + " ranks</h1>\n";
  for (const Section& s : Sections(r, info)) {
    o += "<h2>" + EscapeHtml(s.title) + "</h2>\n";
    for (const std::string& l : s.lines) o += "<p>" + EscapeHtml(l) + "</p>\n";
    const Table& t = s.table;
    if (t.rows.empty()) continue;
    o += "<table>\n<tr>";
    for (size_t c = 0; c < t.header.size(); ++c)
      o += std::string(t.right[c] ? "<th class=\"n\">" : "<th>") + EscapeHtml(t.header[c]) + "</th>";
    o += "</tr>\n";
    for (const auto& row : t.rows) {
      o += "<tr>";
      for (size_t c = 0; c < row.size(); ++c)
        o += std::string(c < t.right.size() && t.right[c] ? "<td class=\"n\">" : "<td>") +
             EscapeHtml(ShortenText(row[c], 200)) + "</td>";
      o += "</tr>\n";
    }
    o += "</table>\n";
  }
  o += "</body>\n</html>\n";
  return o;
}

namespace {

using JsonWriter = rapidjson::PrettyWriter<JsonStringBuffer>;

void RankTimes(JsonWriter& w, const RankSummary& k) {
  WriteJsonField(w, "window_ns", k.window_ns);
  WriteJsonField(w, "busy_ns", k.busy_ns);
  WriteJsonField(w, "compute_ns", k.compute_ns);
  WriteJsonField(w, "communication_ns", k.communication_ns);
  WriteJsonField(w, "communication_total_ns", k.communication_total_ns);
  WriteJsonField(w, "overlap_ns", k.overlap_ns);
  WriteJsonField(w, "overlap_fraction", k.OverlapFraction());
  WriteJsonField(w, "idle_ns", k.idle_ns);
  WriteJsonField(w, "kernel_count", k.kernel_count);
  WriteJsonField(w, "kernel_time_ns", k.kernel_time_ns);
  WriteJsonField(w, "step_count", static_cast<int64_t>(k.steps.size()));
  WriteJsonField(w, "step_median_ns", k.step_median_ns);
}

void Rank(JsonWriter& w, const RankSummary& k, std::optional<int64_t> straggler_steps) {
  w.StartObject();
  WriteJsonField(w, "rank", k.rank);
  WriteJsonField(w, "rank_from_trace", k.rank_from_trace);
  WriteJsonField(w, "path", k.path);
  WriteJsonField(w, "world_size", k.world_size);
  WriteJsonField(w, "devices", k.devices);
  RankTimes(w, k);
  if (straggler_steps) WriteJsonField(w, "straggler_steps", *straggler_steps);
  w.Key("collectives");
  w.StartArray();
  for (const CollectiveStats& c : k.collectives) {
    w.StartObject();
    WriteJsonField(w, "collective", c.collective);
    WriteJsonField(w, "count", c.count);
    WriteJsonField(w, "total_ns", c.total_ns);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

}  // namespace

std::string RenderRanksJson(const RanksReport& r, const RanksRenderInfo& info) {
  JsonStringBuffer buf;
  JsonWriter w(buf);
  w.SetIndent(' ', 1);
  w.StartObject();
  WriteJsonField(w, "schema", kTraceRanksSchema);
  w.Key("options");
  w.StartObject();
  WriteJsonField(w, "straggler_threshold", r.options.straggler_threshold);
  WriteJsonField(w, "jobs", info.jobs);
  w.EndObject();
  w.Key("ranks");
  w.StartArray();
  for (size_t i = 0; i < r.ranks.size(); ++i) Rank(w, r.ranks[i], r.straggler_count[i]);
  w.EndArray();
  w.Key("load_imbalance");
  w.StartObject();
  WriteJsonField(w, "compute_max_over_mean", r.compute_imbalance);
  w.Key("most_compute_rank");
  if (r.compute_imbalance) w.Int64(r.ranks[r.most_compute].rank); else w.Null();
  w.Key("least_compute_rank");
  if (r.compute_imbalance) w.Int64(r.ranks[r.least_compute].rank); else w.Null();
  w.EndObject();
  w.Key("stragglers");
  w.StartObject();
  WriteJsonField(w, "threshold", r.options.straggler_threshold);
  WriteJsonField(w, "steps_in_all_ranks", static_cast<int64_t>(r.steps.size()));
  WriteJsonField(w, "steps_not_in_all_ranks", r.steps_not_in_all);
  WriteJsonField(w, "flagged", r.FlaggedSteps());
  w.Key("steps");
  w.StartArray();
  for (const StepStraggler& st : r.steps) {
    w.StartObject();
    WriteJsonField(w, "step", st.step);
    WriteJsonField(w, "median_ns", st.median_ns);
    WriteJsonField(w, "slowest_rank", r.ranks[st.slowest].rank);
    WriteJsonField(w, "excess_ns", st.excess_ns);
    WriteJsonField(w, "excess_fraction", st.excess_fraction);
    WriteJsonField(w, "flagged", st.flagged);
    w.Key("duration_ns");
    w.StartArray();
    for (int64_t d : st.duration_ns) w.Int64(d);
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  w.Key("collectives");
  w.StartArray();
  for (const std::string& c : r.collectives) WriteJsonString(w, c);
  w.EndArray();
  if (!r.baseline.empty()) {
    w.Key("baseline");
    w.StartArray();
    for (const RankSummary& k : r.baseline) Rank(w, k, std::nullopt);
    w.EndArray();
    w.Key("comparison");
    w.StartArray();
    for (const RankDelta& d : r.deltas) {
      w.StartObject();
      WriteJsonField(w, "rank", d.rank);
      for (const auto& [key, side] : {std::pair{"base", d.base ? &r.baseline[*d.base] : nullptr},
                                      std::pair{"current", d.current ? &r.ranks[*d.current] : nullptr}}) {
        w.Key(key);
        if (!side) {
          w.Null();
          continue;
        }
        w.StartObject();
        WriteJsonField(w, "step_median_ns", side->step_median_ns);
        WriteJsonField(w, "busy_ns", side->busy_ns);
        WriteJsonField(w, "compute_ns", side->compute_ns);
        WriteJsonField(w, "communication_total_ns", side->communication_total_ns);
        WriteJsonField(w, "idle_ns", side->idle_ns);
        w.EndObject();
      }
      w.EndObject();
    }
    w.EndArray();
  }
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize()) + "\n";
}

}  // namespace gpugate
