// Merging shards of one run. See merge.h.
#include "model/merge.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <optional>
#include <utility>

#include "config/suite.h"
#include "model/baseline.h"
#include "util/text/escape.h"

namespace gpugate {

namespace {

bool HasShard(const Results& r) { return r.run.shard.has_value() && !r.run.shard->empty(); }

std::string Opt(const std::optional<std::string>& s) { return s ? "'" + *s + "'" : "none"; }

/// Differences in what makes two files parts of the same run.
std::vector<std::string> RunDifferences(const RunInfo& a, const RunInfo& b) {
  std::vector<std::string> d;
  if (a.run_id != b.run_id) d.push_back("run_id '" + a.run_id + "' vs '" + b.run_id + "'");
  if (a.suite != b.suite) d.push_back("suite '" + a.suite + "' vs '" + b.suite + "'");
  if (a.git_sha != b.git_sha) d.push_back("git_sha " + Opt(a.git_sha) + " vs " + Opt(b.git_sha));
  if (a.source_format != b.source_format)
    d.push_back("source_format '" + a.source_format + "' vs '" + b.source_format + "'");
  return d;
}

std::string Join(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : "; ") + p;
  return out;
}

}  // namespace

Result<Results> MergeShards(const std::vector<Results>& shards, const std::vector<std::string>& names,
                            const MergeOptions& options) {
  GPUGATE_CHECK(shards.size() == names.size());
  if (shards.empty()) return InputError("merge: no input files");

  // Same run, same environment.
  for (size_t i = 1; i < shards.size(); ++i) {
    auto run = RunDifferences(shards[0].run, shards[i].run);
    if (!run.empty())
      return InputError(names[i] + ": not a shard of the same run as " + names[0] + " (" + Join(run) + ")");
    auto env = EnvironmentDifferences(shards[0].run.env, shards[i].run.env);
    if (!env.empty())
      return InputError(names[i] + ": environment differs from " + names[0] + " (" + Join(env) + ")");
  }

  // Shard markers: all or none, one N, each index once.
  std::vector<std::pair<int, int>> ids(shards.size(), {0, 0});
  const bool sharded = HasShard(shards[0]);
  for (size_t i = 0; i < shards.size(); ++i) {
    if (HasShard(shards[i]) != sharded)
      return InputError(names[i] + ": mixes sharded and unsharded results (" + names[0] +
                        (sharded ? " is shard " + *shards[0].run.shard : " is not a shard") + ")");
    if (!sharded) continue;
    // What --allow-partial wrote is a run, not a shard: the shards it lacks
    // are joined to the shards themselves.
    if (shards[i].run.shard->starts_with("partial:"))
      return InputError(names[i] + ": a partial merge (" + QuoteInput(*shards[i].run.shard) +
                        "), not a shard: merge the original shards again, the missing ones with them");
    auto id = ParseShard(*shards[i].run.shard);
    if (!id.ok()) return id.error().WithContext(names[i]);
    ids[i] = *id;
    if (ids[i].second != ids[0].second)
      return InputError(names[i] + ": shard " + *shards[i].run.shard + " does not match " + names[0] +
                        "'s shard count (" + *shards[0].run.shard + ")");
    for (size_t j = 0; j < i; ++j)
      if (ids[j].first == ids[i].first)
        return InputError(names[i] + ": shard " + *shards[i].run.shard + " is also " + names[j]);
  }
  if (!sharded && shards.size() > 1)
    return InputError(names[1] + ": not a shard (no run.shard); only shards of one run can be merged");
  std::string missing;  // the first few, for the message
  int missing_count = 0;
  constexpr int kNamedMissing = 10;
  if (sharded) {
    for (int k = 1; k <= ids[0].second; ++k) {
      bool present = std::any_of(ids.begin(), ids.end(), [k](const auto& id) { return id.first == k; });
      if (present) continue;
      if (++missing_count <= kNamedMissing)
        missing += (missing.empty() ? "" : ", ") + std::to_string(k) + "/" + std::to_string(ids[0].second);
    }
    if (missing_count > kNamedMissing) missing += " and " + std::to_string(missing_count - kNamedMissing) + " more";
    if (missing_count > 0 && !options.allow_partial)
      return InputError("merge: missing shard" + std::string(missing_count == 1 ? " " : "s ") + missing + " of run '" +
                        shards[0].run.run_id + "'");
  }

  // Disjoint workloads, ordered by shard index then file order.
  std::vector<size_t> order(shards.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return ids[a].first < ids[b].first; });
  Results merged = shards[order[0]];
  merged.workloads.clear();
  // Shards of one runner class on different CPU models: each workload keeps
  // the CPU model it ran on.
  bool cpus_differ = false;
  for (const Results& s : shards) cpus_differ = cpus_differ || s.run.env.cpu_model != shards[0].run.env.cpu_model;
  std::map<std::string, size_t> owner;
  for (size_t i : order) {
    for (const auto& w : shards[i].workloads) {
      auto [it, fresh] = owner.emplace(w.name, i);
      if (!fresh)
        return InputError(names[i] + ": workload '" + w.name + "' is also in " + names[it->second] +
                          "; shards of one run must hold disjoint workloads");
      merged.workloads.push_back(w);
      if (cpus_differ && !merged.workloads.back().cpu_model)
        merged.workloads.back().cpu_model = shards[i].run.env.cpu_model;
    }
    if (shards[i].run.time_unix_ns < merged.run.time_unix_ns) {
      merged.run.time_unix_ns = shards[i].run.time_unix_ns;
      merged.run.time_utc = shards[i].run.time_utc;
    }
  }
  if (missing.empty()) {
    merged.run.shard.reset();
  } else {
    std::string present;
    for (size_t i : order) present += (present.empty() ? "" : ",") + std::to_string(ids[i].first);
    merged.run.shard = "partial:" + present + "/" + std::to_string(ids[0].second);
  }
  return merged;
}

}  // namespace gpugate
