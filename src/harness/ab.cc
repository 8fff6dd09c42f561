// Interleaved A/B runs (measurement only; compare/ judges them). See ab.h.
#include "harness/ab.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "harness/backends/synthetic_backend.h"
#include "harness/instruction_runner.h"
#include "harness/program_runner.h"
#include "harness/static_runner.h"
#include "metrics/suite_metrics.h"
#include "model/environment.h"
#include "stats/summary.h"

namespace gpugate {

namespace {

// Salts separating the random streams derived from the A/B seed.
constexpr uint64_t kCoinStream = 0xc01;
constexpr uint64_t kDriftStream = 0xd21f7;
constexpr uint64_t kNoiseStream = 0x9015e;

std::string ReplaceAll(std::string s, const std::string& from, const std::string& to) {
  for (size_t pos = s.find(from); pos != std::string::npos; pos = s.find(from, pos + to.size()))
    s.replace(pos, from.size(), to);
  return s;
}

int CeilDiv(int a, int b) { return (a + b - 1) / b; }

/// Merges one round's result of one side into the side's aggregate; its
/// notes are kept as "round <r + 1>: ..." (none when `r` < 0: a result
/// inherited from the other side).
void AddRound(WorkloadResult& agg, char& started, const WorkloadResult& round, const std::string& name,
              int r) {
  if (!started) {
    agg = round;
    agg.name = name;
    agg.rounds.clear();
    agg.cycles.clear();
    agg.notes.clear();
    started = 1;
  }
  if (r >= 0) AppendNotes(agg, round.notes, "round " + std::to_string(r + 1) + ": ");
  if (round.status != WorkloadStatus::kOk) {
    agg.status = round.status;
    agg.reason = round.reason;
    return;
  }
  // One A/B round is one paired round, whatever the harness made of it: the
  // adaptive stop adds rounds of samples inside a side's turn, and kept apart
  // they would pair with the other side's rounds by position (18 against 22
  // "paired rounds" of --rounds 6, no longer the back-to-back halves).
  std::vector<double> samples;
  for (const auto& r : round.rounds) samples.insert(samples.end(), r.begin(), r.end());
  if (!samples.empty()) agg.rounds.push_back(std::move(samples));
  std::vector<double> cycles;
  for (const auto& c : round.cycles) cycles.insert(cycles.end(), c.begin(), c.end());
  if (!cycles.empty()) agg.cycles.push_back(std::move(cycles));
}

/// Summary over all rounds; throughput rescaled from the first round's by the
/// ratio of medians (valid whatever convention the backend used).
void Finish(WorkloadResult& w) {
  const double first_median = w.summary.median;
  std::vector<double> all = AllSamples(w);
  w.summary = Summarize(all);
  if (first_median > 0 && w.summary.median > 0) {
    const double scale = first_median / w.summary.median;
    if (w.bytes_per_second) *w.bytes_per_second *= scale;
    if (w.flops_per_second) *w.flops_per_second *= scale;
  }
}

}  // namespace

bool UsesBinDir(const WorkloadSpec& spec) {
  if (spec.kind == WorkloadKind::kStatic)
    return spec.file.find("{bin}") != std::string::npos || spec.ptxas_log.find("{bin}") != std::string::npos;
  if (spec.kind != WorkloadKind::kCommand && !IsBenchmarkProgram(spec.kind)) return false;
  for (const auto& a : spec.argv)
    if (a.find("{bin}") != std::string::npos) return true;
  for (const auto& [k, v] : spec.env)
    if (v.find("{bin}") != std::string::npos) return true;
  return spec.cwd.find("{bin}") != std::string::npos || spec.results.find("{bin}") != std::string::npos;
}

WorkloadSpec WithBinDir(const WorkloadSpec& spec, const std::string& dir) {
  WorkloadSpec s = spec;
  s.file = ReplaceAll(s.file, "{bin}", dir);
  s.ptxas_log = ReplaceAll(s.ptxas_log, "{bin}", dir);
  if (spec.kind != WorkloadKind::kCommand && !IsBenchmarkProgram(spec.kind)) return s;
  for (auto& a : s.argv) a = ReplaceAll(a, "{bin}", dir);
  for (auto& [k, v] : s.env) v = ReplaceAll(v, "{bin}", dir);
  s.cwd = ReplaceAll(s.cwd, "{bin}", dir);
  s.results = ReplaceAll(s.results, "{bin}", dir);
  return s;
}

uint64_t BinDirGrowth(const WorkloadSpec& spec, size_t dir_size) {
  if (dir_size <= 5) return 0;
  uint64_t count = 0;
  auto in = [&count](const std::string& text) {
    for (size_t at = text.find("{bin}"); at != std::string::npos; at = text.find("{bin}", at + 5)) ++count;
  };
  in(spec.file);
  in(spec.ptxas_log);
  if (spec.kind == WorkloadKind::kCommand || IsBenchmarkProgram(spec.kind)) {
    for (const auto& a : spec.argv) in(a);
    for (const auto& [k, v] : spec.env) in(v);
    in(spec.cwd);
    in(spec.results);
  }
  return count * (dir_size - 5);
}

WorkloadSpec AbSideSpec(const WorkloadSpec& spec, AbSide side, int round, const AbOptions& options) {
  WorkloadSpec s = spec;
  const int orig_rounds = std::max(1, spec.sampling.rounds);
  s.sampling.rounds = 1;
  s.sampling.min_samples = std::max(1, CeilDiv(spec.sampling.min_samples, orig_rounds));
  s.sampling.max_samples = std::max(s.sampling.min_samples, CeilDiv(spec.sampling.max_samples, orig_rounds));
  s.sampling.min_time = spec.sampling.min_time / orig_rounds;
  s.sampling.max_time = spec.sampling.max_time / (2.0 * std::max(1, options.rounds));

  const std::string& dir = side == AbSide::kHead ? options.head_dir : options.base_dir;
  if (spec.kind == WorkloadKind::kCommand || IsBenchmarkProgram(spec.kind) ||
      spec.kind == WorkloadKind::kStatic) {
    s = WithBinDir(s, dir);
  } else if (spec.kind == WorkloadKind::kSynthetic) {
    SyntheticSpec& syn = s.synthetic;
    // Machine drift: one run factor and one factor per round, shared by both
    // sides of the round (they run back to back on the same machine).
    const uint64_t base_seed = detail::MixSeeds(spec.synthetic.seed, detail::Fnv1a64(spec.name), options.seed);
    detail::PortableRandom run_rng(detail::MixSeeds(base_seed, kDriftStream, 0));
    const double run_factor = run_rng.LognormalFactor(spec.synthetic.run_drift_cv);
    detail::PortableRandom round_rng(detail::MixSeeds(base_seed, kDriftStream, static_cast<uint64_t>(round) + 1));
    const double round_factor = round_rng.LognormalFactor(spec.synthetic.round_drift_cv);
    syn.median = spec.synthetic.median * run_factor * round_factor;
    syn.run_drift_cv = 0;
    syn.round_drift_cv = 0;
    syn.slowdown = side == AbSide::kHead ? spec.synthetic.slowdown : 1.0;
    syn.seed = detail::MixSeeds(base_seed ^ kNoiseStream, static_cast<uint64_t>(round),
                                static_cast<uint64_t>(side));
  }
  return s;
}

AbData RunAb(const Suite& suite, const std::vector<WorkloadSpec>& workloads, const AbOptions& options,
             const AbRoundRunner& run_round, ProgressSink* progress) {
  AbData data;
  RunInfo info = MakeRunInfo(suite.name);
  data.base.run = info;
  data.head.run = info;
  data.base.run.run_id = info.run_id + "-base";
  data.head.run.run_id = info.run_id + "-head";
  data.base.run.git_sha.reset();
  data.head.run.git_sha.reset();

  // One entry per reported workload (a benchmark program reports several),
  // in the order first seen; `spec` is the suite workload it came from.
  struct Pair {
    size_t spec = 0;
    WorkloadResult side[2];
    char started[2] = {0, 0};
    int failed_round[2] = {-1, -1};  // the round a side first reported a failure in
  };
  std::vector<Pair> pairs;
  std::map<std::string, size_t> index;
  // A benchmark program that failed as a whole in a round (a crash: one
  // result named after its suite workload) fails each benchmark a round of
  // either side reported before, with the round's reason, as `run` fails a
  // later process's crash over its benchmarks: the crash is named where the
  // benchmarks are, and no result of the suite workload's name is added.
  auto SpreadProgramFailure = [&pairs](const WorkloadSpec& spec, size_t w, int s,
                                       std::vector<WorkloadResult>* results) {
    if (!ReportsBenchmarks(spec) || results->size() != 1 || (*results)[0].status == WorkloadStatus::kOk ||
        (*results)[0].name != spec.name)
      return;
    std::vector<WorkloadResult> spread;
    bool reported = false;  // a round reported benchmarks of this program
    for (const Pair& p : pairs) {
      if (p.spec != w) continue;
      const WorkloadResult& known = p.started[s] ? p.side[s] : p.side[1 - s];
      if ((!p.started[0] && !p.started[1]) || known.name == spec.name) continue;
      reported = true;
      if (p.started[s] && p.side[s].status != WorkloadStatus::kOk) continue;  // keeps its first failure
      WorkloadResult failed = (*results)[0];
      failed.name = known.name;
      failed.params = known.params;
      failed.metric = known.metric;
      failed.unit = known.unit;
      failed.lower_is_better = known.lower_is_better;
      spread.push_back(std::move(failed));
    }
    // Every benchmark already failed on this side: the crash adds nothing
    // (as in `run`, whose later crash fails only benchmarks still ok).
    if (reported) *results = std::move(spread);
  };
  const size_t n = workloads.size();
  std::vector<char> done(n, 0);
  // Per workload: the round and side that did not run because the side that
  // ran first in that round failed as a whole ({-1, -1}: none).
  std::vector<std::pair<int, int>> never_ran(n, {-1, -1});
  data.head_first.assign(n, {});
  // A balanced order, seeded: each pair of rounds of a workload takes both
  // orders (a coin of the workload's own stream picks the first), so an
  // effect of running second enters as many base-first as head-first rounds
  // and cancels in the paired differences; an odd last round is a coin.
  std::vector<detail::PortableRandom> coins;
  for (size_t w = 0; w < n; ++w) coins.emplace_back(detail::MixSeeds(options.seed, kCoinStream, w));
  const int total = static_cast<int>(n) * options.rounds;

  for (int r = 0; r < options.rounds; ++r) {
    for (size_t w = 0; w < n; ++w) {
      if (done[w]) continue;
      const WorkloadSpec& spec = workloads[w];
      if (progress) progress->WorkloadStarted(spec, r * static_cast<int>(n) + static_cast<int>(w), total);
      const bool head_first = r % 2 == 0 ? coins[w].Uniform() < 0.5 : !data.head_first[w].back();
      data.head_first[w].push_back(head_first);
      for (int k = 0; k < 2; ++k) {
        const AbSide side = (k == 0) == head_first ? AbSide::kHead : AbSide::kBase;
        const int s = side == AbSide::kHead ? 1 : 0;
        std::vector<WorkloadResult> results = run_round(AbSideSpec(spec, side, r, options), side, r);
        SpreadProgramFailure(spec, w, s, &results);
        bool any_ok = false;
        std::set<size_t> reported;
        for (const WorkloadResult& res : results) {
          auto [it, added] = index.emplace(res.name, pairs.size());
          if (added) pairs.push_back(Pair{w, {}, {0, 0}, {-1, -1}});
          Pair& p = pairs[it->second];
          reported.insert(it->second);
          if (res.status != WorkloadStatus::kOk && p.failed_round[s] < 0) p.failed_round[s] = r;
          // Rounds pair by position: a benchmark a program reports from a
          // later round only would pair its first round with the other
          // side's first.
          const bool late = !p.started[s] && r > 0 && res.status == WorkloadStatus::kOk;
          AddRound(p.side[s], p.started[s], res, res.name, r);
          if (late) {
            if (p.failed_round[s] < 0) p.failed_round[s] = r;
            p.side[s].status = WorkloadStatus::kFailed;
            p.side[s].reason = "round " + std::to_string(r + 1) +
                               " reported this benchmark, which earlier rounds of the program did not";
          }
          any_ok = any_ok || res.status == WorkloadStatus::kOk;
        }
        // A benchmark an earlier round reported and this one left out fails:
        // its later rounds would pair with the other side's earlier ones
        // (as gpugate run fails a benchmark one process leaves out).
        for (size_t i = 0; i < pairs.size(); ++i) {
          Pair& p = pairs[i];
          if (p.spec != w || !p.started[s] || reported.count(i) || p.side[s].status != WorkloadStatus::kOk) continue;
          p.side[s].status = WorkloadStatus::kFailed;
          p.side[s].reason = "round " + std::to_string(r + 1) +
                             " did not report this benchmark, which earlier rounds of the program did";
        }
        if (!any_ok) {
          done[w] = 1;
          if (k == 0) never_ran[w] = {r, 1 - s};  // the other side did not run this round
          break;
        }
      }
      if (progress) progress->RoundFinished(spec, r, -1);
    }
  }
  for (Pair& p : pairs) {
    // A side that never ran (its partner failed first, in the first round:
    // a later failure of a program is spread over its benchmarks above) is
    // skipped, saying so: the failure is its partner's, and the reports name
    // that side.
    for (int s = 0; s < 2; ++s)
      if (!p.started[s] && p.side[1 - s].status != WorkloadStatus::kOk) {
        WorkloadResult never = p.side[1 - s];
        never.status = WorkloadStatus::kSkipped;
        const std::string other = s == 1 ? "base" : "head", self = s == 1 ? "head" : "base";
        const std::string what = p.side[1 - s].status == WorkloadStatus::kFailed ? "failed" : "was skipped";
        // This side was stopped before it ran, or it ran and never reported
        // the name (a benchmark only the other side reported, and failed).
        const int round = p.failed_round[1 - s];
        const bool stopped = never_ran[p.spec] == std::pair<int, int>{round, s};
        never.reason = stopped ? "not run: the " + other + " side ran first and " + what
                               : "no result under this name: the " + self + " side did not report it, and the " +
                                     other + " side " + what + " under it" +
                                     (round >= 0 ? " in round " + std::to_string(round + 1) : std::string());
        AddRound(p.side[s], p.started[s], never, never.name, -1);
      }
    for (int s = 0; s < 2; ++s) {
      if (!p.started[s]) continue;
      Finish(p.side[s]);
      (s == 1 ? data.head : data.base).workloads.push_back(p.side[s]);
    }
    if (progress) {
      if (p.started[0] && p.started[1]) progress->PairFinished(p.side[0], p.side[1]);
      else progress->WorkloadFinished(p.started[1] ? p.side[1] : p.side[0]);
    }
  }
  return data;
}

AbData RunAb(const Suite& suite, const std::vector<WorkloadSpec>& workloads, const AbOptions& options,
             ProgressSink* progress) {
  RunOptions run_options;
  run_options.backend = options.backend;
  BackendSet backends(run_options);
  auto run_one = [&backends, &options](const WorkloadSpec& spec, int round) -> std::vector<WorkloadResult> {
    // A side runs one process a round: a failure is named by its round.
    if (ReportsBenchmarks(spec)) return RunProgramWorkload(spec, nullptr, {"round", round + 1, options.rounds});
    if (spec.kind == WorkloadKind::kCommand && spec.measure == "instructions")
      return {RunInstructionWorkload(spec)};
    if (spec.kind == WorkloadKind::kStatic) return {RunStaticWorkload(spec)};
    auto backend = backends.For(spec);
    if (!backend.ok()) {
      WorkloadResult skipped;
      skipped.name = spec.name;
      skipped.status = backend.error().code == ExitCode::kInputError ? WorkloadStatus::kFailed
                                                                        : WorkloadStatus::kSkipped;
      skipped.reason = backend.error().message;
      return {skipped};
    }
    return {RunWorkload(spec, **backend)};
  };
  auto runner = [&run_one](const WorkloadSpec& spec, AbSide, int round) -> std::vector<WorkloadResult> {
    std::vector<WorkloadResult> done = run_one(spec, round);
    NoteMetricsNotCollected(spec, &done);
    return done;
  };
  AbData data = RunAb(suite, workloads, options, runner, progress);
  data.base.run.env = DetectEnvironment();
  data.head.run.env = data.base.run.env;
  return data;
}

}  // namespace gpugate
