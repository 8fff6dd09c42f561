// Tests for the suggestion rules.
#include "rules/suggestions.h"

#include "config/policy.h"

#include <gtest/gtest.h>

#include <cmath>
#include <initializer_list>
#include <string>
#include <vector>

namespace gpugate {
namespace {

const Suggestion* FindRule(const std::vector<Suggestion>& s, const std::string& rule) {
  for (const auto& x : s)
    if (x.rule == rule) return &x;
  return nullptr;
}

TEST(Suggestions, MeasureNoiseSeparatesWithinAndBetweenRounds) {
  WorkloadResult w;
  // Rounds at e^0 and e^0.1 with within-round log deviations of -0.05, 0, +0.05.
  for (double level : {0.0, 0.1}) {
    std::vector<double> r;
    for (double d : {-0.05, 0.0, 0.05}) r.push_back(std::exp(level + d));
    w.rounds.push_back(r);
  }
  NoiseProfile n = MeasureNoise(w);
  EXPECT_EQ(n.rounds, 2);
  EXPECT_NEAR(n.within, 0.05, 1e-12);                    // sqrt((2 * 0.005) / (2 * 2))
  EXPECT_NEAR(n.between, 0.1 / std::sqrt(2.0), 1e-12);   // SD of {0, 0.1}
}

TEST(Suggestions, NoisyWorkloadAndBetweenRunNoise) {
  Results cur;
  WorkloadResult quiet, noisy;
  quiet.name = "quiet";
  noisy.name = "noisy";
  for (int r = 0; r < 3; ++r) {
    quiet.rounds.push_back({1.0, 1.001, 0.999});
    noisy.rounds.push_back({1.0, 1.2, 0.85});
  }
  cur.workloads = {quiet, noisy};
  Verdicts v;
  MetricVerdict m;
  m.workload = "noisy";
  m.metric = "time";
  m.verdict = Verdict::kInconclusive;
  m.reason = Reason::kBetweenRunNoise;
  v.metrics.push_back(m);
  auto s = SuggestFromComparison(DefaultPolicy().expr_rules, cur, v);
  const Suggestion* n = FindRule(s, "noisy-workload");
  ASSERT_NE(n, nullptr);
  EXPECT_EQ(n->workload, "noisy");
  EXPECT_NE(n->hint.find("interleaved A/B"), std::string::npos);
  const Suggestion* b = FindRule(s, "between-run-noise");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->priority, 1);
  EXPECT_EQ(b->workload, "");
  EXPECT_NE(b->hint.find("baseline history"), std::string::npos);
  EXPECT_EQ(s.front().priority, 1);  // sorted by priority
  int noisy_count = 0;
  for (const auto& x : s) noisy_count += x.rule == "noisy-workload";
  EXPECT_EQ(noisy_count, 1);  // the quiet workload is not flagged
  EXPECT_EQ(FindRule(s, "noisy-workload-ab"), nullptr);
  // The same noise judged by interleaved A/B: its hint does not send the
  // user to the command they ran (probe DB4).
  v.metrics[0].interleaved = true;
  auto ab = SuggestFromComparison(DefaultPolicy().expr_rules, cur, v);
  EXPECT_EQ(FindRule(ab, "noisy-workload"), nullptr);
  const Suggestion* a = FindRule(ab, "noisy-workload-ab");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->hint.find("gpugate ab"), std::string::npos) << a->hint;
  EXPECT_NE(a->hint.find("--rounds"), std::string::npos) << a->hint;
}

TEST(Suggestions, BetweenRunNoiseNamesWhyTheNoiseStoppedTheJudgement) {
  // Noise that was measured and is larger than the effect, and noise that
  // could not be measured at all, are different causes: the sentence says
  // which one stopped each comparison.
  Verdicts v;
  MetricVerdict m;
  m.metric = "time";
  m.verdict = Verdict::kInconclusive;
  m.workload = "a";
  m.reason = Reason::kBetweenRunNoiseUnmeasured;
  v.metrics.push_back(m);
  auto s = SuggestFromComparison(DefaultPolicy().expr_rules, Results{}, v);
  const Suggestion* b = FindRule(s, "between-run-noise");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->message, "1 comparison stayed inconclusive because noise between runs could "
                        "not be measured from too few comparisons");
  m.workload = "b";
  m.reason = Reason::kBetweenRunNoise;
  v.metrics.push_back(m);
  s = SuggestFromComparison(DefaultPolicy().expr_rules, Results{}, v);
  b = FindRule(s, "between-run-noise");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->message, "2 comparisons stayed inconclusive because noise between runs exceeds "
                        "the effect (noise between runs could not be measured from too few "
                        "comparisons: 1 of them)");
  EXPECT_EQ(b->evidence, "a (time), b (time)");
  EXPECT_NE(b->hint.find("keep a baseline history"), std::string::npos) << b->hint;
  // Against a history of several runs the noise was measured: the hint
  // points at what still helps, not at keeping a history.
  v.metrics.back().baseline_history_runs = 8;
  s = SuggestFromComparison(DefaultPolicy().expr_rules, Results{}, v);
  b = FindRule(s, "between-run-noise");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->hint.find("keep a baseline history"), std::string::npos) << b->hint;
  EXPECT_NE(b->hint.find("several current runs against the history"), std::string::npos) << b->hint;
}

TEST(Suggestions, ArithmeticIntensityHintForRegressions) {
  Results cur;
  WorkloadResult w;
  w.name = "triad";
  w.rounds = {{1e-3}};
  w.work.bytes = 24000000;  // 24 MB per sample
  w.work.flops = 2000000;   // 2 MFLOP: 0.083 FLOP/byte
  WorkloadResult g = w;
  g.name = "gemm";
  g.work.bytes = 12000000;
  g.work.flops = 2e9;       // 167 FLOP/byte
  cur.workloads = {w, g};
  Verdicts v;
  for (const char* name : {"triad", "gemm"}) {
    MetricVerdict m;
    m.workload = name;
    m.metric = "time";
    m.verdict = Verdict::kRegression;
    m.current_value = 1e-3;
    v.metrics.push_back(m);
  }
  auto s = SuggestFromComparison(DefaultPolicy().expr_rules, cur, v);
  const Suggestion* mem = FindRule(s, "memory-bound");
  ASSERT_NE(mem, nullptr);
  EXPECT_EQ(mem->workload, "triad");
  EXPECT_NE(mem->evidence.find("workload.arithmetic_intensity = 0.0833"), std::string::npos) << mem->evidence;
  const Suggestion* comp = FindRule(s, "compute-bound");
  ASSERT_NE(comp, nullptr);
  EXPECT_EQ(comp->workload, "gemm");
}

// kR: 50 calls, +30% (6.5 ms now, 1.5 ms of it added); kI: one call, +50%
// (150 us now, 50 us added); kQ: inconclusive +80% over 100 calls (18 ms
// now, 8 ms added). The kernel named is the regression that added the
// most time, not the largest ratio nor an inconclusive one.
TEST(Suggestions, KernelRegressedMostNamesTheRegressionThatAddedTheMostTime) {
  Results cur;
  WorkloadResult w;
  w.name = "gpu0";
  w.rounds = {{1e-2}};
  auto kernel = [](const char* name, int64_t count, double total_s) {
    KernelResult k;
    k.name = name;
    k.count = count;
    k.total_s = total_s;
    return k;
  };
  w.kernels = {kernel("kI", 1, 150e-6), kernel("kR", 50, 6.5e-3), kernel("kQ", 100, 18e-3)};
  cur.workloads = {w};
  Verdicts v;
  auto verdict = [&v](const char* kernel, double ratio, Verdict verdict) {
    MetricVerdict m;
    m.workload = "gpu0";
    m.metric = std::string("kernel:") + kernel;
    m.verdict = verdict;
    m.ratio = ratio;
    v.metrics.push_back(m);
  };
  verdict("kI", 1.5, Verdict::kRegression);
  verdict("kR", 1.3, Verdict::kRegression);
  verdict("kQ", 1.8, Verdict::kInconclusive);
  auto s = SuggestFromComparison(DefaultPolicy().expr_rules, cur, v);
  const Suggestion* most = FindRule(s, "kernel-regressed-most");
  ASSERT_NE(most, nullptr);
  EXPECT_EQ(most->kernel, "kR");
  EXPECT_EQ(most->priority, 1);
  EXPECT_NE(most->message.find("kernel 'kR' slowed down the most in this workload: it added 1.50 ms"),
            std::string::npos) << most->message;
  EXPECT_NE(most->evidence.find("+1.50 ms, kernel time +30.0% (regression)"), std::string::npos)
      << most->evidence;
  // With no regression left, the inconclusive slowdown that added the most.
  v.metrics.resize(0);
  verdict("kI", 1.5, Verdict::kInconclusive);
  verdict("kQ", 1.8, Verdict::kInconclusive);
  s = SuggestFromComparison(DefaultPolicy().expr_rules, cur, v);
  most = FindRule(s, "kernel-regressed-most");
  ASSERT_NE(most, nullptr);
  EXPECT_EQ(most->kernel, "kQ");
  EXPECT_EQ(most->priority, 2);
}

// With a device profile (ridge 0.5 FLOP/byte) the regime decides: 0.8
// FLOP/byte is compute-bound there, and an overhead-bound workload is
// neither, whatever the fixed cuts of 1 and 10 FLOP/byte would say.
// Time regressions of the named workloads, as the judge gives them.
Verdicts TimeRegressions(std::initializer_list<const char*> names) {
  Verdicts v;
  for (const char* name : names) {
    MetricVerdict m;
    m.workload = name;
    m.metric = "time";
    m.verdict = Verdict::kRegression;
    v.metrics.push_back(m);
  }
  return v;
}

TEST(Suggestions, BoundnessFollowsTheRooflineRegime) {
  Results cur;
  WorkloadResult ai08;
  ai08.name = "ai08";
  ai08.rounds = {{1.2e-3}};
  ai08.work.bytes = 1000000;
  ai08.work.flops = 800000;
  ai08.regime = RegimeInfo{"compute-bound", 0.8, 0.667, "cpu x"};
  WorkloadResult small = ai08;
  small.name = "short";
  small.work.bytes = 10000;
  small.work.flops = 100;
  small.regime = RegimeInfo{"overhead-bound", 0.01, 0.021, "cpu x"};
  cur.workloads = {ai08, small};
  const Verdicts v = TimeRegressions({"ai08", "short"});
  auto s = SuggestFromComparison(DefaultPolicy().expr_rules, cur, v);
  EXPECT_EQ(FindRule(s, "memory-bound"), nullptr);
  const Suggestion* comp = FindRule(s, "compute-bound");
  ASSERT_NE(comp, nullptr);
  EXPECT_EQ(comp->workload, "ai08");
  int compute = 0;
  for (const auto& x : s) compute += x.rule == "compute-bound";
  EXPECT_EQ(compute, 1);  // not the overhead-bound one
}

// A workload that reports only bytes (or only FLOPs) has a regime under a
// device profile but no arithmetic intensity: the two rules, whose message
// states the intensity, stay silent rather than print "(? FLOP/byte)".
TEST(Suggestions, BoundnessNeedsTheIntensityItStates) {
  Results cur;
  WorkloadResult bytes_only;
  bytes_only.name = "bytesonly";
  bytes_only.rounds = {{1.2e-3}};
  bytes_only.work.bytes = 1000000;
  bytes_only.regime = RegimeInfo{"memory-bound", 0.0, 0.4, "cpu x"};
  WorkloadResult flops_only = bytes_only;
  flops_only.name = "flopsonly";
  flops_only.work.bytes.reset();
  flops_only.work.flops = 5000000;
  flops_only.regime = RegimeInfo{"compute-bound", 0.0, 0.4, "cpu x"};
  cur.workloads = {bytes_only, flops_only};
  const Verdicts v = TimeRegressions({"bytesonly", "flopsonly"});
  auto s = SuggestFromComparison(DefaultPolicy().expr_rules, cur, v);
  EXPECT_EQ(FindRule(s, "memory-bound"), nullptr);
  EXPECT_EQ(FindRule(s, "compute-bound"), nullptr);
  for (const Suggestion& x : s) EXPECT_EQ(x.message.find("?"), std::string::npos) << x.message;
}

TEST(Suggestions, NothingForACleanComparison) {
  Results cur;
  WorkloadResult w;
  w.name = "a";
  w.rounds = {{1.0, 1.001}, {1.0005, 0.9995}};
  cur.workloads = {w};
  Verdicts v;
  EXPECT_TRUE(SuggestFromComparison(DefaultPolicy().expr_rules, cur, v).empty());
}

}  // namespace
}  // namespace gpugate
