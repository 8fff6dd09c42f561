// Interleaved A/B runs and their paired analysis. See ab.h.
#include "harness/ab.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <utility>

#include "harness/backends/synthetic_backend.h"
#include "model/environment.h"
#include "stats/benjamini_hochberg.h"
#include "stats/signed_rank.h"
#include "stats/summary.h"

namespace gpugate {

namespace {

// Salts separating the random streams derived from the A/B seed.
constexpr uint64_t kCoinStream = 0xc01;
constexpr uint64_t kDriftStream = 0xd21f7;
constexpr uint64_t kNoiseStream = 0x9015e;
// Fewest paired rounds for which an exact 95% signed-rank interval exists
// (n = 6: P(W+ = 0) = 1/64 <= 0.025).
constexpr int kMinPairedRounds = 6;

std::string ReplaceAll(std::string s, const std::string& from, const std::string& to) {
  for (size_t pos = s.find(from); pos != std::string::npos; pos = s.find(from, pos + to.size()))
    s.replace(pos, from.size(), to);
  return s;
}

int CeilDiv(int a, int b) { return (a + b - 1) / b; }

/// Merges one round's result of one side into the side's aggregate.
void AddRound(WorkloadResult& agg, char& started, const WorkloadResult& round, const std::string& name) {
  if (!started) {
    agg = round;
    agg.name = name;
    agg.rounds.clear();
    started = 1;
  }
  if (round.status != WorkloadStatus::kOk) {
    agg.status = round.status;
    agg.reason = round.reason;
    return;
  }
  for (const auto& r : round.rounds)
    if (!r.empty()) agg.rounds.push_back(r);
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

std::string Percent(double ratio) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f%%", (ratio - 1.0) * 100.0);
  return buf;
}

std::string Number(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, x < 0.001 ? "%.2g" : "%.3f", x);
  return buf;
}

std::string ThresholdText(double threshold) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g%%", threshold * 100.0);
  return buf;
}

}  // namespace

bool UsesBinDir(const WorkloadSpec& spec) {
  if (spec.kind != WorkloadKind::kCommand) return false;
  for (const auto& a : spec.argv)
    if (a.find("{bin}") != std::string::npos) return true;
  for (const auto& [k, v] : spec.env)
    if (v.find("{bin}") != std::string::npos) return true;
  return spec.cwd.find("{bin}") != std::string::npos;
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
  if (spec.kind == WorkloadKind::kCommand) {
    for (auto& a : s.argv) a = ReplaceAll(a, "{bin}", dir);
    for (auto& [k, v] : s.env) v = ReplaceAll(v, "{bin}", dir);
    s.cwd = ReplaceAll(s.cwd, "{bin}", dir);
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

  const size_t n = workloads.size();
  std::vector<WorkloadResult> base(n), head(n);
  std::vector<char> started_base(n, 0), started_head(n, 0), done(n, 0);
  data.head_first.assign(n, {});
  detail::PortableRandom coins(detail::MixSeeds(options.seed, kCoinStream, 0));
  const int total = static_cast<int>(n) * options.rounds;

  for (int r = 0; r < options.rounds; ++r) {
    for (size_t w = 0; w < n; ++w) {
      if (done[w]) continue;
      const WorkloadSpec& spec = workloads[w];
      if (progress) progress->WorkloadStarted(spec, r * static_cast<int>(n) + static_cast<int>(w) + 1, total);
      const bool head_first = coins.Uniform() < 0.5;
      data.head_first[w].push_back(head_first);
      for (int k = 0; k < 2; ++k) {
        const AbSide side = (k == 0) == head_first ? AbSide::kHead : AbSide::kBase;
        WorkloadResult res = run_round(AbSideSpec(spec, side, r, options), side, r);
        bool is_head = side == AbSide::kHead;
        AddRound(is_head ? head[w] : base[w], is_head ? started_head[w] : started_base[w], res, spec.name);
        if (res.status != WorkloadStatus::kOk) {
          done[w] = 1;
          break;
        }
      }
      if (progress) progress->RoundFinished(spec, r, static_cast<int64_t>(base[w].rounds.size()));
    }
  }
  for (size_t w = 0; w < n; ++w) {
    // A side that never ran (its partner failed first) inherits the failure.
    if (!started_base[w]) AddRound(base[w], started_base[w], head[w], workloads[w].name);
    if (!started_head[w]) AddRound(head[w], started_head[w], base[w], workloads[w].name);
    Finish(base[w]);
    Finish(head[w]);
    if (progress) progress->WorkloadFinished(head[w]);
  }
  data.base.workloads = std::move(base);
  data.head.workloads = std::move(head);
  return data;
}

AbData RunAb(const Suite& suite, const std::vector<WorkloadSpec>& workloads, const AbOptions& options,
             ProgressSink* progress) {
  RunOptions run_options;
  run_options.backend = options.backend;
  BackendSet backends(run_options);
  auto runner = [&backends](const WorkloadSpec& spec, AbSide, int) {
    auto backend = backends.For(spec);
    if (!backend.ok()) {
      WorkloadResult skipped;
      skipped.name = spec.name;
      skipped.status = backend.error().code == ExitCode::kInputError ? WorkloadStatus::kFailed
                                                                        : WorkloadStatus::kSkipped;
      skipped.reason = backend.error().message;
      return skipped;
    }
    return RunWorkload(spec, **backend);
  };
  AbData data = RunAb(suite, workloads, options, runner, progress);
  data.base.run.env = DetectEnvironment();
  data.head.run.env = data.base.run.env;
  return data;
}

std::vector<double> PairedLogRatios(const WorkloadResult& base, const WorkloadResult& head) {
  std::vector<double> d;
  const size_t n = std::min(base.rounds.size(), head.rounds.size());
  for (size_t r = 0; r < n; ++r) {
    if (base.rounds[r].empty() || head.rounds[r].empty()) continue;
    const double b = Median(base.rounds[r]);
    const double h = Median(head.rounds[r]);
    if (b > 0 && h > 0) d.push_back(std::log(h / b));
  }
  return d;
}

Verdicts AnalyzeAb(const AbData& data, const AbAnalysisOptions& options) {
  Verdicts v;
  v.tool_version = GPUGATE_VERSION;
  v.baseline_label = "base";
  v.current_label = "head";
  v.policy_name = options.policy_name;
  v.fdr_q = options.fdr_q;

  struct Pending {
    size_t metric = 0;
    SignedRankResult test;
    int64_t rounds = 0;
  };
  std::vector<Pending> tested;
  bool error = false;

  for (size_t w = 0; w < data.base.workloads.size() && w < data.head.workloads.size(); ++w) {
    const WorkloadResult& b = data.base.workloads[w];
    const WorkloadResult& h = data.head.workloads[w];
    MetricVerdict m;
    m.workload = b.name;
    m.metric = "time";
    m.confidence = options.confidence;
    AbThreshold thr = options.threshold_for ? options.threshold_for(b.name) : AbThreshold{};
    m.threshold = thr.threshold;
    m.severity = thr.severity;
    m.waived = thr.waived;
    m.waiver_reason = thr.waiver_reason;
    m.baseline_n = static_cast<int64_t>(AllSamples(b).size());
    m.current_n = static_cast<int64_t>(AllSamples(h).size());
    m.baseline_rounds = static_cast<int64_t>(b.rounds.size());
    m.current_rounds = static_cast<int64_t>(h.rounds.size());
    if (b.summary.n > 0) m.baseline_value = b.summary.median;
    if (h.summary.n > 0) m.current_value = h.summary.median;

    if (b.status == WorkloadStatus::kFailed || h.status == WorkloadStatus::kFailed) {
      const WorkloadResult& bad = b.status == WorkloadStatus::kFailed ? b : h;
      m.verdict = Verdict::kSkipped;
      m.reason_code = "workload_failed";
      m.sentence = std::string(&bad == &b ? "base" : "head") + " failed: " + bad.reason;
      error = true;
      v.metrics.push_back(std::move(m));
      continue;
    }
    if (b.status == WorkloadStatus::kSkipped || h.status == WorkloadStatus::kSkipped) {
      m.verdict = Verdict::kSkipped;
      m.reason_code = "workload_skipped";
      m.sentence = "skipped: " + (b.status == WorkloadStatus::kSkipped ? b.reason : h.reason);
      v.metrics.push_back(std::move(m));
      continue;
    }
    std::vector<double> d = PairedLogRatios(b, h);
    if (static_cast<int>(d.size()) < kMinPairedRounds) {
      m.verdict = Verdict::kInconclusive;
      m.reason_code = "too_few_rounds";
      m.sentence = "only " + std::to_string(d.size()) + " paired rounds; at least " +
                   std::to_string(kMinPairedRounds) + " are needed for a 95% interval (use --rounds)";
      v.metrics.push_back(std::move(m));
      continue;
    }
    Pending p;
    p.metric = v.metrics.size();
    p.test = WilcoxonSignedRank(d, options.confidence);
    p.rounds = static_cast<int64_t>(d.size());
    tested.push_back(p);
    v.metrics.push_back(std::move(m));
  }

  std::vector<double> raw;
  for (const auto& p : tested) raw.push_back(p.test.p_value);
  std::vector<double> adjusted = BenjaminiHochbergAdjust(raw);
  for (size_t i = 0; i < tested.size(); ++i) {
    const Pending& p = tested[i];
    MetricVerdict& m = v.metrics[p.metric];
    m.p_value = p.test.p_value;
    m.p_adjusted = adjusted[i];
    m.ratio = std::exp(p.test.estimate);
    m.ci_low = std::exp(p.test.ci_low);
    m.ci_high = std::exp(p.test.ci_high);
    const double up = 1.0 + m.threshold;
    const double down = 1.0 / up;
    const bool significant = adjusted[i] <= options.fdr_q;
    const std::string change = Percent(*m.ratio) + " [" + Percent(*m.ci_low) + ", " + Percent(*m.ci_high) + "]";
    const std::string thr = ThresholdText(m.threshold);
    const std::string paired = "paired over " + std::to_string(p.rounds) + " rounds (p = " + Number(p.test.p_value) +
                               ", adjusted " + Number(adjusted[i]) + ")";
    if (significant && *m.ci_low > up) {
      m.verdict = Verdict::kRegression;
      m.reason_code = "significant_above_threshold";
      m.sentence = change + " exceeds the " + thr + " threshold; " + paired;
    } else if (significant && *m.ci_high < down) {
      m.verdict = Verdict::kImprovement;
      m.reason_code = "significant_below_threshold";
      m.sentence = change + " is faster beyond the " + thr + " threshold; " + paired;
    } else if (*m.ci_low >= down && *m.ci_high <= up) {
      m.verdict = Verdict::kUnchanged;
      m.reason_code = "ci_within_threshold";
      m.sentence = change + " lies within the " + thr + " threshold; " + paired;
    } else {
      m.verdict = Verdict::kInconclusive;
      m.reason_code = "ci_overlaps_threshold";
      m.sentence = change + " overlaps the " + thr + " threshold; " + paired +
                   "; more rounds (--rounds) narrow the interval";
    }
  }

  bool fail = false, inconclusive = false;
  for (const auto& m : v.metrics) {
    if (m.verdict == Verdict::kRegression && m.severity == Severity::kFail && !m.waived) fail = true;
    if (m.verdict == Verdict::kInconclusive && m.severity != Severity::kOff) inconclusive = true;
  }
  if (inconclusive && options.on_inconclusive == InconclusiveAction::kWarn)
    v.warnings.push_back(std::to_string(v.Count(Verdict::kInconclusive)) +
                         " inconclusive result(s); the policy treats them as warnings");
  if (fail) v.outcome = Outcome::kFail;
  else if (error) v.outcome = Outcome::kError;
  else if (inconclusive && options.on_inconclusive == InconclusiveAction::kFail) v.outcome = Outcome::kInconclusive;
  else v.outcome = Outcome::kPass;
  return v;
}

int AbExitCode(const Verdicts& verdicts) {
  switch (verdicts.outcome) {
    case Outcome::kPass: return static_cast<int>(ExitCode::kPass);
    case Outcome::kFail: return static_cast<int>(ExitCode::kRegression);
    case Outcome::kInconclusive: return static_cast<int>(ExitCode::kInconclusive);
    case Outcome::kError: return static_cast<int>(ExitCode::kToolError);
  }
  return static_cast<int>(ExitCode::kToolError);
}

}  // namespace gpugate
