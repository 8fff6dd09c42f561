// Acceptance of the gate's statistics (issue "The gate"): suites of 50
// synthetic workloads are measured by the real harness (RunWorkload with the
// synthetic backend and the default sampling of a suite without `defaults:`),
// compared under the default policy, and -- for the gate -- re-run with the
// default number of confirmation re-runs by the gate itself (RunGate, whose
// measurement seam runs the synthetic suite here).
// The synthetic backend's model: lognormal samples (within-round CV), a
// lognormal factor per round (drift between rounds) and one per run (noise
// between runs), each drawn from the run's seed.
//
// Regimes (the figures):
//   quiet:     within-run CV 2%, 1% drift between rounds, no between-run noise;
//   shared VM: within-run CV 4%, 1% drift between rounds, between-run CV 20%.
// "Detected" means a regression verdict. The rates are printed.
//
// Counts: 100 suite runs per scenario by default (ctest label `acceptance`,
// its own executable); GPUGATE_ACCEPTANCE_FULL=1 runs 1000. At 1000 the
// observed rates are held to the bounds themselves. At 100 an observed rate
// cannot resolve a bound of 1% (one event more is 1% more), so the count is
// held to what a true rate at the bound still produces with probability
// >= 1% (a one-sided exact binomial test at 1%): with 100 suite runs and a
// 1% bound, at most 4 false alarms; with a 95% detection bound, at least 89
// detections. Such a test still fails for a rate a few times its bound.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "compare/compare.h"
#include "config/suite.h"
#include "gate/gate.h"
#include "harness/backends/synthetic_backend.h"
#include "harness/runner.h"

namespace gpugate {
namespace {

constexpr int kWorkloads = 50;

constexpr int kFullSuiteRuns = 1000;
constexpr int kModestSuiteRuns = 100;

bool FullCounts() {
  const char* full = std::getenv("GPUGATE_ACCEPTANCE_FULL");
  return full && std::string(full) == "1";
}

int SuiteRuns() { return FullCounts() ? kFullSuiteRuns : kModestSuiteRuns; }

// P(X <= k) for X ~ Binomial(n, p), summed from the pmf (log-space terms).
double BinomialCdf(long k, long n, double p) {
  if (k < 0) return 0.0;
  if (k >= n) return 1.0;
  double cdf = 0;
  for (long i = 0; i <= k; ++i) {
    const double log_pmf = std::lgamma(n + 1.0) - std::lgamma(i + 1.0) - std::lgamma(n - i + 1.0) +
                           static_cast<double>(i) * std::log(p) +
                           static_cast<double>(n - i) * std::log1p(-p);
    cdf += std::exp(log_pmf);
  }
  return std::min(cdf, 1.0);
}

// Level of the binomial tests that hold counts to their bounds.
constexpr double kBinomialAlpha = 0.01;

// Most events of `n` trials consistent with a rate of at most `p`: the
// largest k with P(X >= k) > alpha under Binomial(n, p).
long MostEventsAt(double p, long n) {
  long k = 0;
  while (k < n && 1.0 - BinomialCdf(k, n, p) > kBinomialAlpha) ++k;
  return k;
}

// Fewest events of `n` trials consistent with a rate of at least `p`: the
// smallest k with P(X <= k) > alpha under Binomial(n, p).
long FewestEventsAt(double p, long n) {
  long k = 0;
  while (k < n && BinomialCdf(k, n, p) <= kBinomialAlpha) ++k;
  return k;
}

// A count of events over trials, with its rate.
struct Count {
  long events = 0;
  long trials = 0;
  double Rate() const { return trials > 0 ? static_cast<double>(events) / trials : 0.0; }
};

// The rate is at most `bound`: the observed rate at full counts, the
// binomial test at modest counts (see the file comment).
void ExpectAtMost(const Count& c, double bound, const char* what) {
  if (FullCounts()) {
    EXPECT_LE(c.Rate(), bound) << what << ": " << c.events << " of " << c.trials;
  } else {
    EXPECT_LE(c.events, MostEventsAt(bound, c.trials))
        << what << ": " << c.events << " of " << c.trials << " is more than a rate of " << bound
        << " gives with probability " << kBinomialAlpha;
  }
}

void ExpectAtLeast(const Count& c, double bound, const char* what) {
  if (FullCounts()) {
    EXPECT_GE(c.Rate(), bound) << what << ": " << c.events << " of " << c.trials;
  } else {
    EXPECT_GE(c.events, FewestEventsAt(bound, c.trials))
        << what << ": " << c.events << " of " << c.trials << " is fewer than a rate of " << bound
        << " gives with probability " << kBinomialAlpha;
  }
}

// The bounds the file comment quotes, so that they cannot drift from it.
TEST(CompareAcceptanceBounds, BinomialCountsAtModestCounts) {
  EXPECT_EQ(MostEventsAt(0.01, 100), 4);
  EXPECT_EQ(FewestEventsAt(0.95, 100), 89);
  // The tail itself: P(X >= 5) at p = 1%, n = 100 is 0.343% (exact sum in
  // rational arithmetic).
  EXPECT_NEAR(1.0 - BinomialCdf(4, 100, 0.01), 0.0034323, 1e-6);
}

struct Regime {
  double within_cv = 0.02;
  double round_cv = 0.01;
  double run_cv = 0.0;
};

Regime Quiet() { return {0.02, 0.01, 0.0}; }
Regime SharedVm() { return {0.04, 0.01, 0.20}; }

// The 50 workloads of the suite, medians from 10 us to ~9 ms, default
// sampling (Sampling{} is what a suite without `defaults:` gets).
std::vector<WorkloadSpec> SuiteSpecs(const Regime& regime) {
  std::vector<WorkloadSpec> specs;
  for (int i = 0; i < kWorkloads; ++i) {
    WorkloadSpec s;
    s.name = "w" + std::to_string(i);
    s.kind = WorkloadKind::kSynthetic;
    s.backend = "synthetic";
    s.synthetic.median = 1e-5 * std::pow(1.15, i);
    s.synthetic.cv = regime.within_cv;
    s.synthetic.round_drift_cv = regime.round_cv;
    s.synthetic.run_drift_cv = regime.run_cv;
    s.synthetic.seed = 7;
    specs.push_back(std::move(s));
  }
  return specs;
}

// One run of `specs` with `run_seed` on the synthetic CPU: the gate's
// measurement seam (SuiteRunner) in these scenarios, and the baseline runs.
Results MeasureRun(const std::vector<WorkloadSpec>& specs, uint64_t run_seed) {
  SyntheticBackend backend(run_seed);
  Results r;
  r.run.run_id = "synthetic-" + std::to_string(run_seed);
  r.run.env.cpu_model = "Synthetic CPU";
  for (const WorkloadSpec& s : specs) r.workloads.push_back(RunWorkload(s, backend));
  return r;
}

Results MeasureSuite(const std::vector<WorkloadSpec>& specs, const RunOptions& options,
                     ProgressSink*) {
  return MeasureRun(specs, options.run_seed);
}

struct Scenario {
  const char* name;
  Regime regime;
  int history = 1;        // baseline runs
  double slowdown = 1.0;  // applied to one workload per suite run
  int confirmations = 0;  // gate re-runs of regressed/inconclusive workloads
  Policy policy = DefaultPolicy();
};

struct Rates {
  Count suites_with_false_regression;  // suite runs with a regression among unchanged workloads
  Count slowed_regression;             // slowed workload called a regression
  Count unchanged_inconclusive;        // unchanged workloads left inconclusive
  Count unchanged_noise_reason;        // ... with reason between_run_noise
  Count false_discoveries;             // false regressions among all regressions
  double samples_per_workload = 0;     // mean samples of a first run
  double rounds_per_workload = 0;      // mean rounds of a first run
  double reruns_per_suite = 0;         // mean workloads re-run per suite run
};

Rates Simulate(const Scenario& s, uint64_t seed) {
  const std::vector<WorkloadSpec> specs = SuiteSpecs(s.regime);
  const int suites = SuiteRuns();
  long false_suites = 0;
  long slowed = 0, slowed_reg = 0, nulls = 0, null_inc = 0, null_noise = 0, null_reg = 0;
  long samples = 0, rounds = 0, measured = 0, reruns = 0;
  GateOptions gate;
  gate.confirmations = s.confirmations;
  gate.compare.today = "2026-11-22";
  gate.compare.plots = false;  // the rates need the verdicts only
  uint64_t next_seed = seed * 1000003;
  for (int i = 0; i < suites; ++i) {
    std::vector<Results> base;
    for (int h = 0; h < s.history; ++h) base.push_back(MeasureRun(specs, ++next_seed));
    const int target = s.slowdown != 1.0 ? i % kWorkloads : -1;
    std::vector<WorkloadSpec> current = specs;
    if (target >= 0) current[static_cast<size_t>(target)].synthetic.slowdown = s.slowdown;
    gate.run.run_seed = ++next_seed;
    const GateOutcome out = RunGate(current, base, s.policy, gate, nullptr, MeasureSuite);
    for (const WorkloadResult& w : out.runs[0].workloads) {
      samples += static_cast<long>(w.summary.n);
      rounds += static_cast<long>(w.rounds.size());
      ++measured;
    }
    for (size_t r = 1; r < out.runs.size(); ++r)
      reruns += static_cast<long>(out.runs[r].workloads.size());
    bool false_regression = false;
    for (const MetricVerdict& m : out.verdicts.metrics) {
      if (m.metric != "time" || m.workload == kCommonWorkload) continue;
      if (std::stoi(m.workload.substr(1)) == target) {
        ++slowed;
        slowed_reg += m.verdict == Verdict::kRegression;
      } else {
        ++nulls;
        false_regression |= m.verdict == Verdict::kRegression;
        null_reg += m.verdict == Verdict::kRegression;
        null_inc += m.verdict == Verdict::kInconclusive;
        null_noise += m.reason == Reason::kBetweenRunNoise;
      }
    }
    false_suites += false_regression;
  }
  Rates r;
  r.suites_with_false_regression = {false_suites, suites};
  r.slowed_regression = {slowed_reg, slowed};
  r.unchanged_inconclusive = {null_inc, nulls};
  r.unchanged_noise_reason = {null_noise, nulls};
  r.false_discoveries = {null_reg, null_reg + slowed_reg};
  r.samples_per_workload = static_cast<double>(samples) / static_cast<double>(measured);
  r.rounds_per_workload = static_cast<double>(rounds) / static_cast<double>(measured);
  r.reruns_per_suite = static_cast<double>(reruns) / suites;
  std::printf(
      "[acceptance] %-52s suites=%d  A/A-suites-with-regression=%.3f  slowed-detected=%.3f  "
      "unchanged-inconclusive=%.3f (between-run-noise %.3f)  false/all-regressions=%.3f  "
      "samples=%.0f rounds=%.1f re-runs/suite=%.1f\n",
      s.name, suites, r.suites_with_false_regression.Rate(), r.slowed_regression.Rate(),
      r.unchanged_inconclusive.Rate(), r.unchanged_noise_reason.Rate(),
      r.false_discoveries.Rate(), r.samples_per_workload, r.rounds_per_workload,
      r.reruns_per_suite);
  return r;
}

TEST(CompareAcceptance, QuietRegimeAaIsSilentAndDecides) {
  Rates aa = Simulate({"quiet A/A", Quiet()}, 101);
  ExpectAtMost(aa.suites_with_false_regression, 0.01, "A/A suites with a regression");
  ExpectAtMost(aa.unchanged_inconclusive, 0.05, "unchanged left inconclusive");
}

TEST(CompareAcceptance, QuietRegimeDetectsFivePercent) {
  Rates five = Simulate({"quiet +5%", Quiet(), 1, 1.05}, 102);
  ExpectAtLeast(five.slowed_regression, 0.95, "+5% detected");
  ExpectAtMost(five.suites_with_false_regression, 0.01, "suites with a false regression");
  ExpectAtMost(five.unchanged_inconclusive, 0.05, "unchanged left inconclusive");
}

TEST(CompareAcceptance, QuietRegimeDetectsTenPercent) {
  Rates ten = Simulate({"quiet +10%", Quiet(), 1, 1.10}, 103);
  ExpectAtLeast(ten.slowed_regression, 0.99, "+10% detected");
  ExpectAtMost(ten.suites_with_false_regression, 0.01, "suites with a false regression");
}

TEST(CompareAcceptance, QuietRegimeThroughTheGate) {
  // The gate re-runs what is inconclusive; that must not add false alarms.
  Rates aa = Simulate({"quiet A/A, gate", Quiet(), 1, 1.0, kDefaultConfirmations}, 104);
  ExpectAtMost(aa.suites_with_false_regression, 0.01, "A/A suites with a regression");
  Rates five = Simulate({"quiet +5%, gate", Quiet(), 1, 1.05, kDefaultConfirmations}, 105);
  ExpectAtLeast(five.slowed_regression, 0.95, "+5% detected");
}

TEST(CompareAcceptance, SharedVmOneRunPerSideStaysQuiet) {
  Rates aa = Simulate({"shared VM A/A, one run per side", SharedVm()}, 201);
  ExpectAtMost(aa.suites_with_false_regression, 0.05, "A/A suites with a regression");
  // The rest is inconclusive, and says why.
  ExpectAtLeast(aa.unchanged_inconclusive, 0.9, "unchanged left inconclusive");
  ExpectAtLeast(aa.unchanged_noise_reason, 0.9, "... for noise between runs");
  Rates gate = Simulate(
      {"shared VM A/A, one run per side, gate", SharedVm(), 1, 1.0, kDefaultConfirmations}, 202);
  ExpectAtMost(gate.suites_with_false_regression, 0.05, "A/A suites with a regression");
}

TEST(CompareAcceptance, SharedVmHistoryAaStaysQuiet) {
  // FDR control at q = 0.01 allows ~0.5% in the slower direction, close to
  // the 1% bound: only the full count (1000) resolves that; the modest count
  // rejects rates of a few percent.
  Rates aa = Simulate({"shared VM A/A, history of 10 runs", SharedVm(), 10}, 301);
  ExpectAtMost(aa.suites_with_false_regression, 0.01, "A/A suites with a regression");
  Rates gate = Simulate(
      {"shared VM A/A, history of 10 runs, gate", SharedVm(), 10, 1.0, kDefaultConfirmations},
      302);
  ExpectAtMost(gate.suites_with_false_regression, 0.01, "A/A suites with a regression");
}

TEST(CompareAcceptance, SharedVmHistoryDetectsDoubling) {
  // One current run: a 2x slowdown is ~3.5 between-run SDs, which FDR control
  // over 50 workloads cannot always call (printed, not asserted); the gate's
  // confirmation re-runs add current runs until it is decided.
  Simulate({"shared VM +100%, history of 10 runs, one run", SharedVm(), 10, 2.0}, 303);
  Rates gate = Simulate(
      {"shared VM +100%, history of 10 runs, gate", SharedVm(), 10, 2.0, kDefaultConfirmations},
      304);
  ExpectAtLeast(gate.slowed_regression, 0.95, "+100% detected");
  ExpectAtMost(gate.false_discoveries, 0.05, "false among all regressions");
}

}  // namespace
}  // namespace gpugate
