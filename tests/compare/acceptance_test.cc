// Acceptance of the gate's statistics (issue "The gate"): suites of 50
// synthetic workloads are measured by the real harness (RunWorkload with the
// synthetic backend and the default sampling of a suite without `defaults:`),
// compared under the default policy, and -- for the gate -- re-run with the
// default number of confirmation re-runs exactly as `gpugate gate` does.
// The synthetic backend's model: lognormal samples (within-round CV), a
// lognormal factor per round (drift between rounds) and one per run (noise
// between runs), each drawn from the run's seed.
//
// Regimes (the figures):
//   quiet:     within-run CV 2%, 1% drift between rounds, no between-run noise;
//   shared VM: within-run CV 4%, 1% drift between rounds, between-run CV 20%.
// "Detected" means a regression verdict. The rates are printed; 200 suite
// runs per scenario by default (1000 where a rate sits near its bound),
// GPUGATE_ACCEPTANCE_FULL=1 for 1000 everywhere.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "compare/compare.h"
#include "config/suite.h"
#include "harness/backends/synthetic_backend.h"
#include "harness/runner.h"

namespace gpugate {
namespace {

constexpr int kWorkloads = 50;

constexpr int kFullSuiteRuns = 1000;

int SuiteRuns() {
  const char* full = std::getenv("GPUGATE_ACCEPTANCE_FULL");
  return full && std::string(full) == "1" ? kFullSuiteRuns : 200;
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

// One run of the suite (or of the named workloads only) with `run_seed`;
// workload `slowed` (if >= 0) is `slowdown` times slower.
Results RunOnce(std::vector<WorkloadSpec> specs, uint64_t run_seed, int slowed, double slowdown,
                const std::vector<std::string>* only = nullptr) {
  SyntheticBackend backend(run_seed);
  Results r;
  r.run.run_id = "synthetic-" + std::to_string(run_seed);
  r.run.env.cpu_model = "Synthetic CPU";
  for (int i = 0; i < kWorkloads; ++i) {
    WorkloadSpec& s = specs[i];
    if (only && std::find(only->begin(), only->end(), s.name) == only->end()) continue;
    if (i == slowed) s.synthetic.slowdown = slowdown;
    r.workloads.push_back(RunWorkload(s, backend));
  }
  return r;
}

struct Scenario {
  const char* name;
  Regime regime;
  int history = 1;        // baseline runs
  double slowdown = 1.0;  // applied to one workload per suite run
  int confirmations = 0;  // gate re-runs of regressed/inconclusive workloads
  Policy policy = DefaultPolicy();
  int suites = 0;         // suite runs; 0 = SuiteRuns()
};

struct Rates {
  double suites_with_false_regression = 0;  // any regression among unchanged workloads
  double slowed_regression = 0;             // slowed workload called a regression
  double unchanged_inconclusive = 0;        // unchanged workloads left inconclusive
  double unchanged_noise_reason = 0;        // ... with reason between_run_noise
  double false_discovery_proportion = 0;    // false regressions / all regressions
  double samples_per_workload = 0;          // mean samples of a first run
  double rounds_per_workload = 0;           // mean rounds of a first run
  double reruns_per_suite = 0;              // mean workloads re-run per suite run
};

Rates Simulate(const Scenario& s, uint64_t seed) {
  const std::vector<WorkloadSpec> specs = SuiteSpecs(s.regime);
  const int suites = s.suites > 0 ? s.suites : SuiteRuns();
  int false_suites = 0;
  long slowed = 0, slowed_reg = 0, nulls = 0, null_inc = 0, null_noise = 0, null_reg = 0;
  long samples = 0, rounds = 0, measured = 0, reruns = 0;
  CompareOptions options;
  options.today = "2026-11-22";
  uint64_t next_seed = seed * 1000003;
  for (int i = 0; i < suites; ++i) {
    std::vector<Results> base;
    for (int h = 0; h < s.history; ++h) base.push_back(RunOnce(specs, ++next_seed, -1, 1.0));
    const int target = s.slowdown != 1.0 ? i % kWorkloads : -1;
    std::vector<Results> current{RunOnce(specs, ++next_seed, target, s.slowdown)};
    for (const WorkloadResult& w : current[0].workloads) {
      samples += static_cast<long>(w.summary.n);
      rounds += static_cast<long>(w.rounds.size());
      ++measured;
    }
    Verdicts v = Compare(base, current[0], s.policy, options);
    // The gate's loop (src/cli/gate.cc): re-run what is still doubtful.
    for (int c = 0; c < s.confirmations; ++c) {
      std::vector<std::string> doubtful = WorkloadsToConfirm(v);
      if (doubtful.empty()) break;
      reruns += static_cast<long>(doubtful.size());
      current.push_back(RunOnce(specs, ++next_seed, target, s.slowdown, &doubtful));
      v = CompareRuns(base, current, s.policy, options);
    }
    bool false_regression = false;
    for (const MetricVerdict& m : v.metrics) {
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
  r.suites_with_false_regression = static_cast<double>(false_suites) / suites;
  if (slowed > 0) r.slowed_regression = static_cast<double>(slowed_reg) / static_cast<double>(slowed);
  r.unchanged_inconclusive = static_cast<double>(null_inc) / static_cast<double>(nulls);
  r.unchanged_noise_reason = static_cast<double>(null_noise) / static_cast<double>(nulls);
  if (null_reg + slowed_reg > 0)
    r.false_discovery_proportion =
        static_cast<double>(null_reg) / static_cast<double>(null_reg + slowed_reg);
  r.samples_per_workload = static_cast<double>(samples) / static_cast<double>(measured);
  r.rounds_per_workload = static_cast<double>(rounds) / static_cast<double>(measured);
  r.reruns_per_suite = static_cast<double>(reruns) / suites;
  std::printf(
      "[acceptance] %-52s suites=%d  A/A-suites-with-regression=%.3f  slowed-detected=%.3f  "
      "unchanged-inconclusive=%.3f (between-run-noise %.3f)  false/all-regressions=%.3f  "
      "samples=%.0f rounds=%.1f re-runs/suite=%.1f\n",
      s.name, suites, r.suites_with_false_regression, r.slowed_regression,
      r.unchanged_inconclusive, r.unchanged_noise_reason, r.false_discovery_proportion,
      r.samples_per_workload, r.rounds_per_workload, r.reruns_per_suite);
  return r;
}

TEST(CompareAcceptance, QuietRegimeAaIsSilentAndDecides) {
  Rates aa = Simulate({"quiet A/A", Quiet()}, 101);
  EXPECT_LE(aa.suites_with_false_regression, 0.01);
  EXPECT_LE(aa.unchanged_inconclusive, 0.05);
}

TEST(CompareAcceptance, QuietRegimeDetectsFivePercent) {
  Rates five = Simulate({"quiet +5%", Quiet(), 1, 1.05}, 102);
  EXPECT_GE(five.slowed_regression, 0.95);
  EXPECT_LE(five.suites_with_false_regression, 0.01);
  EXPECT_LE(five.unchanged_inconclusive, 0.05);
}

TEST(CompareAcceptance, QuietRegimeDetectsTenPercent) {
  Rates ten = Simulate({"quiet +10%", Quiet(), 1, 1.10}, 103);
  EXPECT_GE(ten.slowed_regression, 0.99);
  EXPECT_LE(ten.suites_with_false_regression, 0.01);
}

TEST(CompareAcceptance, QuietRegimeThroughTheGate) {
  // The gate re-runs what is inconclusive; that must not add false alarms.
  Rates aa = Simulate({"quiet A/A, gate", Quiet(), 1, 1.0, kDefaultConfirmations}, 104);
  EXPECT_LE(aa.suites_with_false_regression, 0.01);
  Rates five = Simulate({"quiet +5%, gate", Quiet(), 1, 1.05, kDefaultConfirmations}, 105);
  EXPECT_GE(five.slowed_regression, 0.95);
}

TEST(CompareAcceptance, SharedVmOneRunPerSideStaysQuiet) {
  Rates aa = Simulate({"shared VM A/A, one run per side", SharedVm()}, 201);
  EXPECT_LE(aa.suites_with_false_regression, 0.05);
  // The rest is inconclusive, and says why.
  EXPECT_GE(aa.unchanged_inconclusive, 0.9);
  EXPECT_GE(aa.unchanged_noise_reason, 0.9);
  Rates gate = Simulate(
      {"shared VM A/A, one run per side, gate", SharedVm(), 1, 1.0, kDefaultConfirmations}, 202);
  EXPECT_LE(gate.suites_with_false_regression, 0.05);
}

TEST(CompareAcceptance, SharedVmHistoryAaStaysQuiet) {
  // The rate is near its bound (FDR control at q = 0.01 allows ~0.5% in the
  // slower direction), so 200 suite runs could not tell 0.8% from 1.5%: this
  // scenario always runs the full 1000.
  Scenario aa_s{"shared VM A/A, history of 10 runs", SharedVm(), 10};
  aa_s.suites = kFullSuiteRuns;
  Rates aa = Simulate(aa_s, 301);
  EXPECT_LE(aa.suites_with_false_regression, 0.01);
  Scenario gate_s{"shared VM A/A, history of 10 runs, gate", SharedVm(), 10, 1.0,
                  kDefaultConfirmations};
  gate_s.suites = kFullSuiteRuns;
  Rates gate = Simulate(gate_s, 302);
  EXPECT_LE(gate.suites_with_false_regression, 0.01);
}

TEST(CompareAcceptance, SharedVmHistoryDetectsDoubling) {
  // One current run: a 2x slowdown is ~3.5 between-run SDs, which FDR control
  // over 50 workloads cannot always call (printed, not asserted); the gate's
  // confirmation re-runs add current runs until it is decided.
  Simulate({"shared VM +100%, history of 10 runs, one run", SharedVm(), 10, 2.0}, 303);
  Rates gate = Simulate(
      {"shared VM +100%, history of 10 runs, gate", SharedVm(), 10, 2.0, kDefaultConfirmations},
      304);
  EXPECT_GE(gate.slowed_regression, 0.95);
  EXPECT_LE(gate.false_discovery_proportion, 0.05);
}

}  // namespace
}  // namespace gpugate
