// The profiler's operations as a gpugate results document
// (`gpugate/results/v1`, docs/results-schema.md), written with the project's
// one results writer (model/results_json).
#include <gpugate/profiler.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "model/environment.h"
#include "model/limits.h"
#include "model/results.h"
#include "model/results_json.h"
#include "profiler/profiler_internal.h"
#include "stats/summary.h"
#include "util/random.h"
#include "util/text/escape.h"
#include "util/text/format.h"

namespace gpugate {
namespace {

// A time sample of 0 (two clock reads 0 ns apart, an event pair that ran in
// no measurable time) is written as 1 ns, the clock's step; a positive one
// below 1e-15 s, which results files refuse, as 1e-15 s. Every other sample
// (a per-element time of 0.2 ns recorded with Record) is written as it is.
double WritableSeconds(double s) {
  if (s <= 0) return 1e-9;
  return std::max(s, kMinTimeSeconds);
}

// A workload name that results readers accept (printable UTF-8, at most
// kMaxNameBytes with its suffix, non-empty): profiler names may be any text.
// The same raw name gives the same workload name in every run: a name that
// must be escaped or bounded keeps a hash of the raw name, so two names
// that escape or cut alike stay apart whatever their times.
std::string BaseName(const std::string& raw, const std::string& suffix, std::vector<std::string>& notes) {
  const size_t limit = kMaxNameBytes - suffix.size();
  if (raw.empty()) return "(empty name)" + suffix;
  if (!NameProblem(raw) && raw.size() <= limit) return raw + suffix;
  notes.push_back("operation name escaped: it was not printable text of at most 1024 bytes");
  char hash[24];
  std::snprintf(hash, sizeof hash, "#%016llx", static_cast<unsigned long long>(Fnv1a64(raw)));
  std::string text = EscapeTerminal(raw);
  if (text.size() + std::strlen(hash) > limit) text = std::string(CutAtCodePoint(text, limit - std::strlen(hash) - 3)) + "...";
  return text + hash + suffix;
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
    for (double s : round) r.push_back(WritableSeconds(s));
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
  // Names are given in an order that does not depend on the times, so that
  // a " #2" (two raw names that still read alike: "" and "(empty name)")
  // goes to the same operation in every run.
  std::vector<size_t> by_name(ops.size());
  for (size_t i = 0; i < ops.size(); ++i) by_name[i] = i;
  std::sort(by_name.begin(), by_name.end(), [&](size_t a, size_t b) {
    return std::make_tuple(ops[a].is_memory, ops[a].name, ops[a].backend) <
           std::make_tuple(ops[b].is_memory, ops[b].name, ops[b].backend);
  });
  std::vector<std::string> names(ops.size());
  std::vector<std::vector<std::string>> name_notes(ops.size());
  std::set<std::string> taken;
  for (size_t i : by_name) {
    const detail::MergedOp& op = ops[i];
    std::string suffix;
    if (op.backend == ProfileBackend::kCuda && !op.is_memory && seen.count({op.name, 0}) != 0) suffix = " [cuda]";
    if (op.is_memory && (seen.count({op.name, 0}) != 0 || seen.count({op.name, 1}) != 0)) suffix = " [memory]";
    const std::string base = BaseName(op.name, suffix, name_notes[i]);
    std::string unique = base;
    for (int n = 2; taken.count(unique) != 0; ++n) {
      const std::string tag = " #" + std::to_string(n);
      unique = std::string(CutAtCodePoint(base, kMaxNameBytes - tag.size())) + tag;
    }
    taken.insert(unique);
    names[i] = std::move(unique);
  }
  for (size_t i = 0; i < ops.size(); ++i) {
    const detail::MergedOp& op = ops[i];
    WorkloadResult w = op.is_memory ? MemoryWorkload(op) : TimeWorkload(op, options.max_samples_per_operation);
    w.name = names[i];
    w.notes.insert(w.notes.end(), name_notes[i].begin(), name_notes[i].end());
    if (op.refused > 0)
      w.notes.push_back(FormatCount(static_cast<size_t>(op.refused), op.is_memory ? "reading" : "sample") +
                        " not recorded: " +
                        (op.is_memory ? "negative or 1e18 bytes or more" : "negative, not finite, or 1e9 s or more") +
                        " (no results file holds them)");
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
