// The profiler's operations as a gpugate results document
// (`gpugate/results/v1`, docs/results-schema.md), written with the project's
// one results writer (model/results_json).
#include <gpugate/profiler.h>

#include <algorithm>
#include <set>
#include <string>

#include "model/environment.h"
#include "model/results.h"
#include "model/results_json.h"
#include "profiler/profiler_internal.h"
#include "stats/summary.h"
#include "util/text/escape.h"

namespace gpugate {
namespace {

// A time sample below the clock's resolution (two clock reads 0 ns apart, an
// event pair that ran in no measurable time) is written as 1 ns: results
// files refuse times below 1e-15 s.
constexpr double kMinSampleSeconds = 1e-9;

// A workload name that results readers accept (printable UTF-8, at most
// kMaxNameBytes, non-empty) and that no other operation has: profiler names
// may be any text.
std::string WorkloadName(const std::string& raw, const std::string& suffix, std::set<std::string>& taken,
                         std::vector<std::string>& notes) {
  std::string name = raw;
  if (name.empty()) {
    name = "(empty name)";
  } else if (NameProblem(name)) {
    name = EscapeTerminal(ShortenText(raw, 200));
    notes.push_back("operation name escaped: it was not printable text of at most 1024 bytes");
  }
  name += suffix;
  std::string unique = name;
  for (int i = 2; taken.count(unique) != 0; ++i) unique = name + " #" + std::to_string(i);
  taken.insert(unique);
  return unique;
}

WorkloadResult TimeWorkload(const detail::MergedOp& op, size_t cap) {
  WorkloadResult w;
  w.kind = "profiler";
  w.backend = op.backend == ProfileBackend::kCuda ? "cuda" : "cpu";
  w.warmup = op.warmup;
  std::vector<double> all;
  for (const auto& round : op.rounds) {
    std::vector<double> r;
    r.reserve(round.size());
    for (double s : round) r.push_back(std::max(s, kMinSampleSeconds));
    all.insert(all.end(), r.begin(), r.end());
    w.rounds.push_back(std::move(r));
  }
  w.summary = Summarize(all);
  w.counters["count"] = static_cast<double>(op.stats.count);
  w.counters["total_s"] = op.stats.total;
  if (op.kept < op.stats.count)
    w.notes.push_back("kept " + std::to_string(op.kept) + " of " + std::to_string(op.stats.count) +
                      " samples (at most " + std::to_string(cap) +
                      " per operation and thread); count and total_s cover all");
  return w;
}

WorkloadResult MemoryWorkload(const detail::MergedOp& op) {
  WorkloadResult w;
  w.kind = "profiler";
  w.backend = "cuda";
  w.metric = "used_bytes";
  w.unit = "B";
  std::vector<double> values(op.memory.begin(), op.memory.end());
  w.summary = Summarize(values);
  w.rounds.push_back(std::move(values));
  w.peak_memory_bytes = *std::max_element(op.memory.begin(), op.memory.end());
  return w;
}

Results ToResults(std::vector<detail::MergedOp> ops, const ProfilerOptions& options) {
  // Largest total first, as in the summary; memory series last.
  std::sort(ops.begin(), ops.end(), [](const detail::MergedOp& a, const detail::MergedOp& b) {
    if (a.is_memory != b.is_memory) return b.is_memory;
    if (a.stats.total != b.stats.total) return a.stats.total > b.stats.total;
    if (a.name != b.name) return a.name < b.name;
    return a.backend < b.backend;
  });
  std::string suite = options.suite;
  if (suite.empty() || NameProblem(suite)) suite = "profile";
  Results results;
  results.run = MakeRunInfo(suite);
  // An operation of the same name on the CPU and on the GPU: "k" and "k [cuda]".
  std::set<std::pair<std::string, int>> seen;
  for (const detail::MergedOp& op : ops) seen.insert({op.name, op.is_memory ? 2 : static_cast<int>(op.backend)});
  std::set<std::string> taken;
  for (const detail::MergedOp& op : ops) {
    std::vector<std::string> notes;
    std::string suffix;
    if (op.backend == ProfileBackend::kCuda && !op.is_memory && seen.count({op.name, 0}) != 0) suffix = " [cuda]";
    if (op.is_memory && (seen.count({op.name, 0}) != 0 || seen.count({op.name, 1}) != 0)) suffix = " [memory]";
    const std::string name = WorkloadName(op.name, suffix, taken, notes);
    WorkloadResult w = op.is_memory ? MemoryWorkload(op) : TimeWorkload(op, options.max_samples_per_operation);
    w.name = name;
    w.notes.insert(w.notes.end(), notes.begin(), notes.end());
    results.workloads.push_back(std::move(w));
  }
  return results;
}

}  // namespace

std::string Profiler::ResultsJson() {
  Synchronize();
  return ResultsToJson(ToResults(state_->Merge(), state_->options));
}

bool Profiler::WriteResults(const std::string& path, std::string* error) {
  Synchronize();
  const Status status = WriteResultsFile(path, ToResults(state_->Merge(), state_->options));
  if (!status.ok()) {
    if (error != nullptr) *error = status.error().message;
    return false;
  }
  return true;
}

}  // namespace gpugate
