// Tests of the gate's loop (gate/gate.h) through its measurement seam: a fake
// suite runner draws seeded lognormal rounds, can make one workload slower
// and can fail a workload in the first run or in the confirmation re-runs.
// What is tested is the loop (who is re-run, with which seed, how runs are
// kept and merged, that failures reach the verdicts), not the judge.
#include "gate/gate.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "util/random.h"

namespace gpugate {
namespace {

constexpr int kWorkloads = 8;

std::vector<WorkloadSpec> Specs() {
  std::vector<WorkloadSpec> specs;
  for (int i = 0; i < kWorkloads; ++i) {
    WorkloadSpec s;
    s.name = "w" + std::to_string(i);
    s.kind = WorkloadKind::kSynthetic;
    s.backend = "synthetic";
    s.synthetic.median = 1e-4 * (i + 1);
    specs.push_back(std::move(s));
  }
  return specs;
}

// A measurement substitute: 10 rounds of 5 samples per workload, within-round
// CV 0.5%, a run factor of CV 0.2% per workload and run, all drawn from the
// run seed and the workload's name.
class FakeLab {
 public:
  std::string slow;            ///< measured `slowdown` times slower
  double slowdown = 1.0;
  std::string fail_first;      ///< fails in the first run (call 0)
  std::string fail_confirm;    ///< fails in every confirmation re-run
  std::string shifted_first;   ///< `shift` times slower in the first run only
  double shift = 1.03;
  std::vector<std::vector<std::string>> calls;  ///< workloads measured, per call
  std::vector<uint64_t> seeds;                  ///< run_seed, per call

  /// One run; `record` = a run of the code under test (slowdown, failures
  /// and the call log apply), else a baseline run.
  Results Measure(const std::vector<WorkloadSpec>& specs, uint64_t seed, bool record = true) {
    const int call = static_cast<int>(calls.size());
    if (record) {
      calls.emplace_back();
      seeds.push_back(seed);
    }
    Results r;
    r.run.run_id = "fake-" + std::to_string(seed);
    r.run.env.cpu_model = "Fake CPU";
    for (const WorkloadSpec& spec : specs) {
      if (record) calls.back().push_back(spec.name);
      WorkloadResult w;
      w.name = spec.name;
      w.kind = "synthetic";
      w.backend = "synthetic";
      const bool fails = record && ((call == 0 && spec.name == fail_first) ||
                                    (call > 0 && spec.name == fail_confirm));
      if (fails) {
        w.status = WorkloadStatus::kFailed;
        w.reason = "exited with status 7";
        r.workloads.push_back(std::move(w));
        continue;
      }
      RandomStream rng(MixSeeds(seed, Fnv1a64(spec.name), 0));
      const bool slower = record && spec.name == slow;
      const bool shifted = record && call == 0 && spec.name == shifted_first;
      const double level = spec.synthetic.median * (slower ? slowdown : 1.0) *
                           (shifted ? shift : 1.0) *
                           rng.LognormalFactor(0.002);
      for (int k = 0; k < 10; ++k) {
        std::vector<double> round;
        for (int j = 0; j < 5; ++j) round.push_back(level * rng.LognormalFactor(0.005));
        w.rounds.push_back(std::move(round));
      }
      r.workloads.push_back(std::move(w));
    }
    return r;
  }

  /// Six baseline runs (not recorded as calls).
  std::vector<Results> Baseline() {
    std::vector<Results> runs;
    for (uint64_t s = 1001; s <= 1006; ++s) runs.push_back(Measure(Specs(), s, false));
    return runs;
  }

  SuiteRunner Runner() {
    return [this](const std::vector<WorkloadSpec>& specs, const RunOptions& options,
                  ProgressSink*) { return Measure(specs, options.run_seed); };
  }
};

class RecordingProgress final : public GateProgress {
 public:
  void ConfirmationStarted(const std::vector<std::string>& workloads, int attempt,
                           int max_attempts) override {
    started.push_back(workloads);
    attempts.push_back(attempt);
    max = max_attempts;
  }
  std::vector<std::vector<std::string>> started;
  std::vector<int> attempts;
  int max = 0;
};

GateOptions Options(int confirmations) {
  GateOptions o;
  o.confirmations = confirmations;
  o.run.run_seed = 42;
  o.compare.today = "2026-11-22";
  return o;
}

const MetricVerdict* TimeVerdict(const Verdicts& v, const std::string& workload) {
  for (const MetricVerdict& m : v.metrics)
    if (m.workload == workload && m.metric == "time") return &m;
  return nullptr;
}

TEST(GateTest, SameCodeIsDecidedWithoutReRuns) {
  FakeLab lab;
  RecordingProgress progress;
  GateOutcome out =
      RunGate(Specs(), lab.Baseline(), DefaultPolicy(), Options(3), &progress, lab.Runner());
  for (int i = 0; i < kWorkloads; ++i) {
    const MetricVerdict* m = TimeVerdict(out.verdicts, "w" + std::to_string(i));
    ASSERT_NE(m, nullptr);
    EXPECT_EQ(m->verdict, Verdict::kUnchanged) << m->workload << ": " << m->sentence;
  }
  EXPECT_EQ(lab.calls.size(), 1u);
  EXPECT_EQ(out.runs.size(), 1u);
  EXPECT_TRUE(progress.started.empty());
  EXPECT_EQ(ExitCodeFor(out.verdicts), 0);
}

TEST(GateTest, SlowerWorkloadIsReRunUpToTheBoundAndStaysARegression) {
  FakeLab lab;
  lab.slow = "w3";
  lab.slowdown = 1.3;
  RecordingProgress progress;
  GateOutcome out =
      RunGate(Specs(), lab.Baseline(), DefaultPolicy(), Options(2), &progress, lab.Runner());
  const MetricVerdict* m = TimeVerdict(out.verdicts, "w3");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->verdict, Verdict::kRegression) << m->sentence;
  EXPECT_EQ(ExitCodeFor(out.verdicts), 1);

  // A regression is confirmed before it fails the gate: every re-run (two
  // allowed) measured w3 alone, with its own seed.
  ASSERT_EQ(lab.calls.size(), 3u);
  EXPECT_EQ(lab.calls[0].size(), static_cast<size_t>(kWorkloads));
  EXPECT_EQ(lab.calls[1], std::vector<std::string>{"w3"});
  EXPECT_EQ(lab.calls[2], std::vector<std::string>{"w3"});
  EXPECT_EQ(lab.seeds[0], 42u);
  EXPECT_EQ(lab.seeds[1], ConfirmationSeed(42, 1));
  EXPECT_EQ(lab.seeds[2], ConfirmationSeed(42, 2));
  EXPECT_NE(lab.seeds[1], lab.seeds[2]);
  EXPECT_EQ(progress.attempts, (std::vector<int>{1, 2}));
  EXPECT_EQ(progress.max, 2);
  EXPECT_EQ(progress.started[0], std::vector<std::string>{"w3"});

  // Each re-run is a run of its own for the judge, carrying the first run's
  // metadata; the results merge every round into the first run's workload.
  ASSERT_EQ(out.runs.size(), 3u);
  EXPECT_EQ(out.runs[1].workloads.size(), 1u);
  EXPECT_EQ(out.runs[1].run.run_id, out.runs[0].run.run_id);
  const WorkloadResult* merged = out.results.Find("w3");
  ASSERT_NE(merged, nullptr);
  EXPECT_EQ(merged->confirmation_reruns, 2);
  EXPECT_EQ(merged->rounds.size(), 30u);
  EXPECT_EQ(merged->summary.n, 150);
  EXPECT_EQ(out.results.Find("w0")->confirmation_reruns, 0);
  EXPECT_EQ(out.results.Find("w0")->rounds.size(), 10u);
}

TEST(GateTest, DoubtfulWorkloadIsReRunUntilDecided) {
  // w2's first run is 3% slower: on the threshold, so inconclusive. Its
  // re-run is not, which decides it; the loop stops with re-runs left.
  FakeLab lab;
  lab.shifted_first = "w2";
  const std::vector<Results> baseline = lab.Baseline();
  GateOutcome out = RunGate(Specs(), baseline, DefaultPolicy(), Options(3), nullptr, lab.Runner());
  Verdicts first_alone = CompareRuns(baseline, {out.runs[0]}, DefaultPolicy(), Options(3).compare);
  EXPECT_EQ(TimeVerdict(first_alone, "w2")->verdict, Verdict::kInconclusive);
  ASSERT_EQ(lab.calls.size(), 2u);
  EXPECT_EQ(lab.calls[1], std::vector<std::string>{"w2"});
  const MetricVerdict* m = TimeVerdict(out.verdicts, "w2");
  EXPECT_EQ(m->verdict, Verdict::kUnchanged) << m->sentence;
  EXPECT_EQ(ExitCodeFor(out.verdicts), 0);
  EXPECT_EQ(out.runs.size(), 2u);
  EXPECT_EQ(out.results.Find("w2")->confirmation_reruns, 1);
  EXPECT_EQ(out.results.Find("w2")->rounds.size(), 20u);
}

// An active waiver leaves a doubtful workload out of the re-runs: a
// regression it could become would be waived. Not so under a policy that
// fails undecided results, which waivers do not cover.
TEST(GateTest, AWaivedDoubtfulWorkloadIsNotReRun) {
  FakeLab lab;
  lab.shifted_first = "w2";
  Policy waiving = DefaultPolicy();
  Waiver w;
  w.match = "w2";
  w.until = "2099-12-31";
  w.reason = "known";
  waiving.waivers.push_back(w);
  GateOutcome out = RunGate(Specs(), lab.Baseline(), waiving, Options(3), nullptr, lab.Runner());
  EXPECT_EQ(lab.calls.size(), 1u);
  EXPECT_EQ(TimeVerdict(out.verdicts, "w2")->verdict, Verdict::kInconclusive);
  EXPECT_EQ(ExitCodeFor(out.verdicts), 0);
  // Expired: re-run as any doubtful workload.
  FakeLab expired_lab;
  expired_lab.shifted_first = "w2";
  waiving.waivers.back().until = "2026-01-01";
  RunGate(Specs(), expired_lab.Baseline(), waiving, Options(3), nullptr, expired_lab.Runner());
  EXPECT_EQ(expired_lab.calls.size(), 2u);
  // A policy that fails undecided results: re-run.
  FakeLab strict_lab;
  strict_lab.shifted_first = "w2";
  waiving.waivers.back().until = "2099-12-31";
  waiving.defaults.on_inconclusive = OnInconclusive::kFail;
  RunGate(Specs(), strict_lab.Baseline(), waiving, Options(3), nullptr, strict_lab.Runner());
  EXPECT_GE(strict_lab.calls.size(), 2u);
}

TEST(GateTest, DoubtfulWorkloadLeaningFasterIsNotReRun) {
  // w2's first run is 3% faster: on the threshold, so inconclusive, but no
  // re-run could make a regression of it. The gate stops and says why.
  FakeLab lab;
  lab.shifted_first = "w2";
  lab.shift = 0.97;
  const std::vector<Results> baseline = lab.Baseline();
  GateOutcome out = RunGate(Specs(), baseline, DefaultPolicy(), Options(3), nullptr, lab.Runner());
  const MetricVerdict* m = TimeVerdict(out.verdicts, "w2");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->verdict, Verdict::kInconclusive) << m->sentence;
  EXPECT_EQ(lab.calls.size(), 1u);
  EXPECT_EQ(out.runs.size(), 1u);
  ASSERT_FALSE(out.verdicts.warnings.empty());
  EXPECT_EQ(out.verdicts.warnings.back(),
            "gate: stopped after 0 of 3 confirmation re-runs: no doubtful workload leans toward a "
            "regression strongly enough that the remaining re-runs could make it one (conditional "
            "power under 10%)");
  // The others are decided unchanged; the default policy passes an
  // inconclusive one (on_inconclusive: pass).
  EXPECT_EQ(ExitCodeFor(out.verdicts), 0);
}

// A verdict for ReRunCouldChangeOutcome: inconclusive, lower is better.
MetricVerdict Doubtful(double ratio, double p) {
  MetricVerdict m;
  m.workload = "w";
  m.metric = "time";
  m.verdict = Verdict::kInconclusive;
  m.ratio = ratio;
  m.p_value = p;
  m.p_adjusted = std::min(1.0, p * 15);
  return m;
}

// `tested` - 1 more tested metrics that lean nowhere.
Verdicts WithFamily(MetricVerdict m, int tested) {
  Verdicts v;
  v.fdr_q = 0.01;
  v.metrics.push_back(std::move(m));
  for (int i = 1; i < tested; ++i) {
    MetricVerdict other = Doubtful(0.99, 0.9);
    other.workload = "other" + std::to_string(i);
    other.verdict = Verdict::kUnchanged;
    v.metrics.push_back(std::move(other));
  }
  return v;
}

bool Could(const Verdicts& v, int baseline_runs, int current_runs, int max_current_runs) {
  return ReRunCouldChangeOutcome(v, DefaultPolicy().defaults, baseline_runs, current_runs,
                                 max_current_runs);
}

TEST(GateTest, ReRunCouldChangeOutcomeProjectsTheLeaningVerdicts) {
  // A history of 10, one current run, up to 12 re-runs: the information
  // grows from 1/(1/10 + 1) to 1/(1/10 + 1/13), z by a factor 2.49; the
  // first discovery at q/m = 0.01/15 needs z 3.21, which a 10% conditional
  // power lowers to 2.03 projected: today's one-sided p up to 0.207.
  EXPECT_TRUE(Could(WithFamily(Doubtful(1.2, 0.19), 15), 10, 1, 13));
  EXPECT_FALSE(Could(WithFamily(Doubtful(1.2, 0.23), 15), 10, 1, 13));
  // A larger family needs a larger z for its first discovery (p up to 0.108
  // for 1000 metrics).
  EXPECT_TRUE(Could(WithFamily(Doubtful(1.2, 0.15), 15), 10, 1, 13));
  EXPECT_FALSE(Could(WithFamily(Doubtful(1.2, 0.15), 1000), 10, 1, 13));
  // One baseline run: re-runs cannot average its noise away (p up to 0.043).
  EXPECT_TRUE(Could(WithFamily(Doubtful(1.2, 0.04), 15), 1, 1, 13));
  EXPECT_FALSE(Could(WithFamily(Doubtful(1.2, 0.05), 15), 1, 1, 13));
  // Fewer runs left, less to gain (6 current runs of 13: p up to 0.022).
  EXPECT_TRUE(Could(WithFamily(Doubtful(1.2, 0.02), 15), 10, 6, 13));
  EXPECT_FALSE(Could(WithFamily(Doubtful(1.2, 0.03), 15), 10, 6, 13));
  // No runs left.
  EXPECT_FALSE(Could(WithFamily(Doubtful(1.2, 1e-6), 15), 10, 13, 13));
  // Leaning faster, however strongly (lower is better; higher is better).
  EXPECT_FALSE(Could(WithFamily(Doubtful(0.8, 1e-9), 15), 10, 1, 13));
  MetricVerdict throughput = Doubtful(1.2, 1e-9);
  throughput.lower_is_better = false;
  EXPECT_FALSE(Could(WithFamily(throughput, 15), 10, 1, 13));
  throughput.ratio = 0.8;
  EXPECT_TRUE(Could(WithFamily(throughput, 15), 10, 1, 13));
  // A regression is always confirmed, unless waived; a verdict without a
  // p-value cannot be projected, so it is measured again.
  MetricVerdict regression = Doubtful(0.8, 0.9);
  regression.verdict = Verdict::kRegression;
  EXPECT_TRUE(Could(WithFamily(regression, 15), 10, 1, 13));
  regression.waived = true;
  EXPECT_FALSE(Could(WithFamily(regression, 15), 10, 1, 13));
  MetricVerdict unprojected = Doubtful(1.2, 0.5);
  unprojected.p_value.reset();
  EXPECT_TRUE(Could(WithFamily(unprojected, 15), 10, 1, 13));
  // Verdicts another run cannot change: severity off, one value per side, a
  // workload that failed.
  MetricVerdict off = Doubtful(1.2, 0.01);
  off.severity = Severity::kOff;
  EXPECT_FALSE(Could(WithFamily(off, 15), 10, 1, 13));
  MetricVerdict single = Doubtful(1.2, 0.01);
  single.reason = Reason::kNoReplication;
  EXPECT_FALSE(Could(WithFamily(single, 15), 10, 1, 13));
  MetricVerdict failed = Doubtful(1.2, 0.5);
  failed.p_value.reset();
  failed.reason = Reason::kCurrentFailed;
  EXPECT_FALSE(Could(WithFamily(failed, 15), 10, 1, 13));
}

TEST(GateTest, ReRunCouldChangeOutcomeSkipsWhatCannotBeJudgedAtAll) {
  // One baseline run and too few workloads for the noise between runs:
  // more current runs cannot judge it, however strongly it leans, and
  // whatever the policy does with an inconclusive verdict.
  MetricVerdict unmeasured = Doubtful(1.25, 1e-9);
  unmeasured.reason = Reason::kBetweenRunNoiseUnmeasured;
  EXPECT_FALSE(Could(WithFamily(unmeasured, 2), 1, 1, 13));
  PolicyDefaults strict;
  strict.on_inconclusive = OnInconclusive::kFail;
  EXPECT_FALSE(ReRunCouldChangeOutcome(WithFamily(unmeasured, 2), strict, 1, 1, 13));
  // The same lean, judged: re-run.
  EXPECT_TRUE(Could(WithFamily(Doubtful(1.25, 1e-9), 2), 1, 1, 13));
}

// One baseline run of two workloads: nothing is judged (no speed factor of
// the machine), and the gate says so instead of spending its re-runs.
TEST(GateTest, NothingJudgeableSpendsNoReRuns) {
  FakeLab lab;
  lab.slow = "w1";
  lab.slowdown = 1.25;
  const std::vector<WorkloadSpec> all = Specs();
  const std::vector<WorkloadSpec> two(all.begin(), all.begin() + 2);
  const std::vector<Results> baseline = {lab.Measure(two, 1001, false)};
  GateOutcome out = RunGate(two, baseline, DefaultPolicy(), Options(12), nullptr, lab.Runner());
  const MetricVerdict* m = TimeVerdict(out.verdicts, "w1");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->reason, Reason::kBetweenRunNoiseUnmeasured) << m->sentence;
  EXPECT_EQ(lab.calls.size(), 1u);
  ASSERT_FALSE(out.verdicts.warnings.empty());
  EXPECT_EQ(out.verdicts.warnings.back(),
            "gate: stopped after 0 of 12 confirmation re-runs: the doubtful workloads cannot be judged at "
            "all (one baseline run and too few workloads to measure the noise between runs), and re-runs "
            "add current runs, not baseline runs or workloads");
  EXPECT_EQ(out.verdicts.outcome, Outcome::kNotJudged);
}

TEST(GateTest, ReRunCouldChangeOutcomeKeepsWhatThePolicyFails) {
  // Leaning faster: nothing to gain under the default policy; but a policy
  // that fails inconclusive verdicts, or one too noisy for require_detectable,
  // may be settled by more runs.
  const Verdicts faster = WithFamily(Doubtful(0.9, 0.2), 15);
  PolicyDefaults strict;
  EXPECT_FALSE(ReRunCouldChangeOutcome(faster, strict, 10, 1, 13));
  strict.on_inconclusive = OnInconclusive::kFail;
  EXPECT_TRUE(ReRunCouldChangeOutcome(faster, strict, 10, 1, 13));
  EXPECT_FALSE(ReRunCouldChangeOutcome(faster, strict, 10, 13, 13));  // no runs left
  MetricVerdict noisy = Doubtful(0.9, 0.2);
  noisy.reason = Reason::kUndetectable;
  EXPECT_TRUE(ReRunCouldChangeOutcome(WithFamily(noisy, 15), PolicyDefaults{}, 10, 1, 13));
}

TEST(GateTest, NoConfirmationsJudgesTheFirstRunAlone) {
  FakeLab lab;
  lab.slow = "w3";
  lab.slowdown = 1.3;
  GateOutcome out =
      RunGate(Specs(), lab.Baseline(), DefaultPolicy(), Options(0), nullptr, lab.Runner());
  EXPECT_EQ(lab.calls.size(), 1u);
  EXPECT_EQ(out.runs.size(), 1u);
  EXPECT_EQ(TimeVerdict(out.verdicts, "w3")->verdict, Verdict::kRegression);
  EXPECT_EQ(out.results.Find("w3")->confirmation_reruns, 0);
}

TEST(GateTest, WorkloadFailingInAReRunIsAnErrorInTheVerdicts) {
  // w3 is slower (so it is re-run) and its first re-run fails: the failure
  // is the judge's to report, as an error, and w3 is not re-run again.
  FakeLab lab;
  lab.slow = "w3";
  lab.slowdown = 1.3;
  lab.fail_confirm = "w3";
  GateOutcome out =
      RunGate(Specs(), lab.Baseline(), DefaultPolicy(), Options(3), nullptr, lab.Runner());
  ASSERT_EQ(lab.calls.size(), 2u);
  EXPECT_EQ(lab.calls[1], std::vector<std::string>{"w3"});
  const MetricVerdict* m = TimeVerdict(out.verdicts, "w3");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->reason, Reason::kCurrentFailed) << m->sentence;
  EXPECT_EQ(ExitCodeFor(out.verdicts), 3);
  const WorkloadResult* merged = out.results.Find("w3");
  EXPECT_EQ(merged->status, WorkloadStatus::kFailed);
  EXPECT_EQ(merged->reason, "confirmation re-run 1: exited with status 7");
  EXPECT_EQ(merged->confirmation_reruns, 1);
  EXPECT_EQ(merged->rounds.size(), 10u);  // the first run's rounds are kept
}

TEST(GateTest, WorkloadFailingInTheFirstRunIsAnErrorAndNotReRun) {
  FakeLab lab;
  lab.fail_first = "w5";
  GateOutcome out =
      RunGate(Specs(), lab.Baseline(), DefaultPolicy(), Options(3), nullptr, lab.Runner());
  for (const auto& call : lab.calls)
    EXPECT_EQ(std::count(call.begin(), call.end(), "w5"), call.size() == static_cast<size_t>(kWorkloads) ? 1 : 0);
  const MetricVerdict* m = TimeVerdict(out.verdicts, "w5");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->reason, Reason::kCurrentFailed) << m->sentence;
  EXPECT_EQ(ExitCodeFor(out.verdicts), 3);
  EXPECT_EQ(out.results.Find("w5")->status, WorkloadStatus::kFailed);
}

TEST(GateTest, ConfirmationSeedsDifferFromTheRunAndEachOther) {
  EXPECT_NE(ConfirmationSeed(0, 1), 0u);
  EXPECT_NE(ConfirmationSeed(7, 1), ConfirmationSeed(7, 2));
  EXPECT_EQ(ConfirmationSeed(7, 0), 7u);
}

TEST(GateTest, AppendConfirmationRecomputesSummaryAndThroughput) {
  WorkloadResult first;
  first.rounds = {{1.0, 1.0}, {1.0}};
  first.work.bytes = 100;
  first.summary.median = 1.0;
  WorkloadResult rerun;
  rerun.rounds = {{2.0, 2.0, 2.0, 2.0}};
  rerun.throttled = true;
  AppendConfirmation(first, rerun);
  EXPECT_EQ(first.confirmation_reruns, 1);
  EXPECT_EQ(first.rounds.size(), 3u);
  EXPECT_EQ(first.summary.n, 7);
  EXPECT_DOUBLE_EQ(first.summary.median, 2.0);
  ASSERT_TRUE(first.bytes_per_second.has_value());
  EXPECT_DOUBLE_EQ(*first.bytes_per_second, 50.0);
  EXPECT_TRUE(first.throttled);
}

TEST(GateTest, AppendConfirmationKeepsNotesOfBothRuns) {
  WorkloadResult first;
  first.rounds = {{1.0}};
  first.notes = {"ended 1 process the workload left behind (pids 7)"};
  WorkloadResult rerun;
  rerun.rounds = {{1.0}};
  rerun.notes = {"ended 2 processes the workload left behind (pids 8, 9)"};
  AppendConfirmation(first, rerun);
  EXPECT_EQ(first.notes, (std::vector<std::string>{
                             "ended 1 process the workload left behind (pids 7)",
                             "confirmation re-run 1: ended 2 processes the workload left behind (pids 8, 9)"}));
}

}  // namespace
}  // namespace gpugate
