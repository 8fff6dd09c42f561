// Acceptance of the gate's statistics on suites drawn from the synthetic
// backend's model (tests/compare/synthetic_suite.h): A/A silence and
// detection power in a quiet regime and on a shared VM, with one run per side,
// with a baseline history, and with the gate's confirmation re-runs.
//
// Sampling ("default sampling"): the suite defaults (rounds 5, min_samples 10,
// adaptive stop at a 1% relative CI of the median) stop a CV-2% workload
// (plus 1% round drift) after ~30 samples, i.e. 5 rounds x 6; a CV-4%
// workload needs ~100, i.e. 5 rounds x 20. The rates are printed; set
// GPUGATE_ACCEPTANCE_FULL=1 for 1000 suite runs per scenario instead of 200.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "compare/compare.h"
#include "compare/synthetic_suite.h"

namespace gpugate {
namespace {

using testing::MakeRun;
using testing::NoiseModel;
using testing::Rng;

constexpr int kWorkloads = 50;

int SuiteRuns() {
  const char* full = std::getenv("GPUGATE_ACCEPTANCE_FULL");
  return full && std::string(full) == "1" ? 1000 : 200;
}

struct Scenario {
  const char* name;
  NoiseModel noise;
  int history = 1;          // baseline runs
  double slowdown = 1.0;    // applied to one workload per suite run
  int confirmations = 0;    // gate re-runs of regressed/inconclusive workloads
  Policy policy = DefaultPolicy();
};

struct Rates {
  double suites_with_false_regression = 0;  // any regression among unchanged workloads
  double slowed_regression = 0;             // slowed workload called a regression
  double slowed_flagged = 0;                // ... a regression or inconclusive (not passed)
  double unchanged_inconclusive = 0;        // unchanged workloads left inconclusive
  double unchanged_noise_reason = 0;        // ... of which with reason between_run_noise
  double false_discovery_proportion = 0;    // false regressions / all regressions
};

Rates Simulate(const Scenario& s, uint64_t seed) {
  Rng rng(seed);
  const int suites = SuiteRuns();
  int false_suites = 0;
  long slowed = 0, slowed_reg = 0, slowed_flag = 0, nulls = 0, null_inc = 0, null_noise = 0;
  long null_reg = 0;
  CompareOptions options;
  options.today = "2026-11-22";
  for (int i = 0; i < suites; ++i) {
    std::vector<Results> base;
    for (int h = 0; h < s.history; ++h) base.push_back(MakeRun(rng, kWorkloads, s.noise));
    std::set<int> target;
    if (s.slowdown != 1.0) target.insert(i % kWorkloads);
    std::vector<Results> current{MakeRun(rng, kWorkloads, s.noise, s.slowdown, target)};
    Verdicts v = Compare(base, current[0], s.policy, options);
    if (s.confirmations > 0) {
      std::vector<std::string> confirm = WorkloadsToConfirm(v);
      for (int c = 0; c < s.confirmations; ++c) {
        Results rerun = MakeRun(rng, kWorkloads, s.noise, s.slowdown, target);
        std::erase_if(rerun.workloads, [&](const WorkloadResult& w) {
          return std::find(confirm.begin(), confirm.end(), w.name) == confirm.end();
        });
        current.push_back(std::move(rerun));
      }
      v = CompareRuns(base, current, s.policy, options);
    }
    bool false_regression = false;
    for (const MetricVerdict& m : v.metrics) {
      if (m.metric != "time") continue;
      if (target.count(std::stoi(m.workload.substr(1)))) {
        ++slowed;
        slowed_reg += m.verdict == Verdict::kRegression;
        slowed_flag += m.verdict == Verdict::kRegression || m.verdict == Verdict::kInconclusive;
      } else {
        ++nulls;
        false_regression |= m.verdict == Verdict::kRegression;
        null_reg += m.verdict == Verdict::kRegression;
        null_inc += m.verdict == Verdict::kInconclusive;
        null_noise += m.reason_code == "between_run_noise";
      }
    }
    false_suites += false_regression;
  }
  Rates r;
  r.suites_with_false_regression = static_cast<double>(false_suites) / suites;
  if (slowed > 0) {
    r.slowed_regression = static_cast<double>(slowed_reg) / static_cast<double>(slowed);
    r.slowed_flagged = static_cast<double>(slowed_flag) / static_cast<double>(slowed);
  }
  r.unchanged_inconclusive = static_cast<double>(null_inc) / static_cast<double>(nulls);
  r.unchanged_noise_reason = static_cast<double>(null_noise) / static_cast<double>(nulls);
  if (null_reg + slowed_reg > 0)
    r.false_discovery_proportion =
        static_cast<double>(null_reg) / static_cast<double>(null_reg + slowed_reg);
  std::printf(
      "[acceptance] %-44s suites=%d  A/A-suites-with-regression=%.3f  slowed:regression=%.3f "
      "flagged=%.3f  unchanged:inconclusive=%.3f (between-run-noise %.3f)  false/all "
      "regressions=%.3f\n",
      s.name, suites, r.suites_with_false_regression, r.slowed_regression, r.slowed_flagged,
      r.unchanged_inconclusive, r.unchanged_noise_reason, r.false_discovery_proportion);
  return r;
}

NoiseModel Quiet() {
  NoiseModel m;
  m.within_cv = 0.02;
  m.round_cv = 0.01;
  m.rounds = 5;
  m.per_round = 6;
  return m;
}

NoiseModel SharedVm() {
  NoiseModel m;
  m.within_cv = 0.04;
  m.round_cv = 0.01;
  m.run_cv = 0.20;
  m.rounds = 5;
  m.per_round = 20;
  return m;
}

TEST(CompareAcceptance, QuietRegimeIsSilentAndDecides) {
  Rates aa = Simulate({"quiet A/A", Quiet()}, 101);
  EXPECT_LE(aa.suites_with_false_regression, 0.01);
  EXPECT_LE(aa.unchanged_inconclusive, 0.05);
}

TEST(CompareAcceptance, QuietRegimeDetectsSlowdowns) {
  // A 5% slowdown against the default 5% threshold is not beyond the threshold,
  // so it cannot be a "regression" (its interval straddles 5%); it is detected
  // in the sense that it does not pass as unchanged: it ends inconclusive and
  // the gate re-runs it.
  Rates five = Simulate({"quiet +5% (threshold 5%)", Quiet(), 1, 1.05}, 102);
  EXPECT_GE(five.slowed_flagged, 0.95);
  // With a 2% threshold, a 5% slowdown is a regression verdict.
  Scenario two{"quiet +5% (threshold 2%)", Quiet(), 1, 1.05};
  two.policy.defaults.threshold = 0.02;
  Rates five2 = Simulate(two, 103);
  EXPECT_GE(five2.slowed_flagged, 0.95);
  Rates ten = Simulate({"quiet +10%", Quiet(), 1, 1.10}, 104);
  EXPECT_GE(ten.slowed_regression, 0.99);
  EXPECT_LE(ten.suites_with_false_regression, 0.01);
}

TEST(CompareAcceptance, SharedVmOneRunPerSideStaysQuiet) {
  Rates aa = Simulate({"shared VM A/A, one run per side", SharedVm()}, 201);
  EXPECT_LE(aa.suites_with_false_regression, 0.05);
  // The rest is inconclusive, and says why.
  EXPECT_GE(aa.unchanged_inconclusive, 0.9);
  EXPECT_GE(aa.unchanged_noise_reason, 0.9);
}

TEST(CompareAcceptance, SharedVmWithHistory) {
  Rates aa = Simulate({"shared VM A/A, history of 10 runs", SharedVm(), 10}, 301);
  EXPECT_LE(aa.suites_with_false_regression, 0.05);
  Scenario strict{"shared VM A/A, history 10, q=0.01", SharedVm(), 10};
  strict.policy.defaults.fdr_q = 0.01;
  Rates aa_strict = Simulate(strict, 302);
  EXPECT_LE(aa_strict.suites_with_false_regression, 0.01);
  // One current run against the history: a 2x slowdown is ~3.5 between-run
  // SDs, which BH over 50 workloads cannot always call; the gate's two
  // confirmation re-runs make it decisive.
  Simulate({"shared VM +100%, history 10, one run", SharedVm(), 10, 2.0}, 303);
  Rates confirmed =
      Simulate({"shared VM +100%, history 10, +2 confirmation runs", SharedVm(), 10, 2.0, 2}, 304);
  EXPECT_GE(confirmed.slowed_regression, 0.95);
  // With a real change present BH controls the proportion of false regressions.
  EXPECT_LE(confirmed.false_discovery_proportion, 0.05);
}

}  // namespace
}  // namespace gpugate
