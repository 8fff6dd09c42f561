// Human summary of a run (stdout of `gpugate run`).
#include "cli/run_summary.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "util/text/escape.h"
#include "util/text/format.h"

namespace gpugate {

namespace {

std::string Rate(double per_second, const char* unit) {
  char buf[64];
  if (per_second >= 1e12) std::snprintf(buf, sizeof buf, "%.2f T%s", per_second / 1e12, unit);
  else if (per_second >= 1e9) std::snprintf(buf, sizeof buf, "%.2f G%s", per_second / 1e9, unit);
  else if (per_second >= 1e6) std::snprintf(buf, sizeof buf, "%.2f M%s", per_second / 1e6, unit);
  else std::snprintf(buf, sizeof buf, "%.3g %s", per_second, unit);
  return buf;
}

}  // namespace

std::string RenderRunSummary(const Results& results, bool color) {
  struct Row { std::string name, status, median, ci, samples, throughput; bool bad; };
  std::vector<Row> rows;
  for (const auto& w : results.workloads) {
    Row r;
    r.name = EscapeTerminal(w.name);
    r.status = ToString(w.status);
    r.bad = w.status != WorkloadStatus::kOk;
    if (w.status == WorkloadStatus::kOk && w.summary.n > 0) {
      r.median = HasTimeMetric(w) ? FormatDuration(w.summary.median)
                                  : EscapeTerminal(FormatValueInUnit(w.summary.median, w.unit));
      char buf[32];
      std::snprintf(buf, sizeof buf, "±%.1f%%", w.summary.rel_ci_half_width * 100);
      r.ci = buf;
      r.samples = std::to_string(w.summary.n) + "/" + std::to_string(w.rounds.size());
      if (w.bytes_per_second) r.throughput = Rate(*w.bytes_per_second, "B/s");
      if (w.flops_per_second) {
        if (!r.throughput.empty()) r.throughput += "  ";
        r.throughput += Rate(*w.flops_per_second, "FLOP/s");
      }
    }
    rows.push_back(std::move(r));
  }
  // Each column as wide as its widest cell (names up to 60 columns) and two
  // blanks: a median in a long unit ("123456789 instructions") does not run
  // into the next one.
  std::vector<std::vector<std::string>> cells = {{"workload", "status", "median", "95% CI", "n/rounds", "throughput"}};
  for (const Row& r : rows) cells.push_back({r.name, r.status, r.median, r.ci, r.samples, r.throughput});
  std::vector<int> width = ColumnWidths(cells);
  width[0] = std::min(width[0], 60);
  std::ostringstream out;
  for (size_t i = 0; i < cells.size(); ++i) {
    std::string line;
    for (size_t c = 0; c + 1 < cells[i].size(); ++c) {
      std::string cell = PadText(cells[i][c], width[c] + 2);
      if (c == 1 && i > 0 && color && rows[i - 1].bad) cell = "\033[31m" + cell + "\033[0m";
      line += cell;
    }
    line += cells[i].back();
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << "\n";
  }
  int ok = 0, failed = 0, skipped = 0;
  for (const auto& w : results.workloads) {
    ok += w.status == WorkloadStatus::kOk;
    failed += w.status == WorkloadStatus::kFailed;
    skipped += w.status == WorkloadStatus::kSkipped;
  }
  out << "\n" << results.workloads.size() << " workloads: " << ok << " ok, " << failed << " failed, "
      << skipped << " skipped\n";
  // Results that measured nothing decide nothing when compared (not judged),
  // and `baseline update` refuses them: say so where the run is seen first.
  if (ok == 0 && !results.workloads.empty())
    out << "  nothing was measured: compared, these results decide nothing, and a baseline history "
           "does not take them\n";
  for (const auto& w : results.workloads) {
    if (w.status == WorkloadStatus::kOk) continue;
    out << "  " << ToString(w.status) << ": " << EscapeTerminal(w.name) << ": "
        << EscapeTerminal(w.reason) << "\n";
  }
  for (const auto& w : results.workloads)
    for (const auto& note : w.notes) out << "  note: " << EscapeTerminal(w.name) << ": " << EscapeTerminal(note) << "\n";
  return out.str();
}

}  // namespace gpugate
