// Tests of the primary metric a workload declares (model/results.h): compare
// judges it under its own name, direction and unit; deterministic counts are
// judged on the threshold alone; workloads that measured different metrics
// are incomparable.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "compare/compare.h"
#include "model/baseline.h"
#include "config/policy.h"

namespace gpugate {
namespace {

CompareOptions Opts() {
  CompareOptions o;
  o.today = "2026-11-22";
  return o;
}

const MetricVerdict* Find(const Verdicts& v, const std::string& w, const std::string& metric) {
  for (const auto& m : v.metrics)
    if (m.workload == w && m.metric == metric) return &m;
  return nullptr;
}

// An instruction count: one value per round, identical in every round.
WorkloadResult Count(const std::string& name, double count, int rounds = 3) {
  WorkloadResult w;
  w.name = name;
  w.kind = "command";
  w.backend = "process";
  w.metric = "instructions";
  w.unit = "instructions";
  w.deterministic = true;
  for (int r = 0; r < rounds; ++r) w.rounds.push_back({count});
  return w;
}

Results OneRun(std::vector<WorkloadResult> ws) {
  Results r;
  r.run.run_id = "run";
  r.workloads = std::move(ws);
  return r;
}

// 0.5% on instructions, the default 3% elsewhere.
Policy InstructionPolicy() {
  Policy p = DefaultPolicy();
  p.defaults.metric_thresholds["instructions"] = 0.005;
  return p;
}

TEST(PrimaryMetric, DeterministicCountAboveTheThresholdIsARegression) {
  Verdicts v = Compare({OneRun({Count("parse", 1000000)})}, OneRun({Count("parse", 1010000)}),
                       InstructionPolicy(), Opts());
  ASSERT_EQ(v.metrics.size(), 1u);
  const MetricVerdict& m = v.metrics[0];
  EXPECT_EQ(m.metric, "instructions");
  EXPECT_EQ(m.unit, "instructions");
  EXPECT_DOUBLE_EQ(m.threshold, 0.005);
  EXPECT_EQ(m.verdict, Verdict::kRegression);
  EXPECT_EQ(m.reason, Reason::kDeterministic);
  EXPECT_NEAR(*m.ratio, 1.01, 1e-12);
  EXPECT_FALSE(m.p_value.has_value());
  EXPECT_EQ(*m.baseline_value, 1000000);
  EXPECT_EQ(*m.current_value, 1010000);
  EXPECT_EQ(m.current_n, 3);
  EXPECT_NE(m.sentence.find("+1.0% exceeds the 0.5% threshold"), std::string::npos) << m.sentence;
  EXPECT_NE(m.sentence.find("instructions is deterministic"), std::string::npos) << m.sentence;
  EXPECT_NE(m.sentence.find("threshold alone"), std::string::npos) << m.sentence;
  EXPECT_EQ(v.outcome, Outcome::kFail);
  EXPECT_EQ(ExitCodeFor(v), 1);
}

TEST(PrimaryMetric, IdenticalCountsAreUnchangedAndPass) {
  Verdicts v = Compare({OneRun({Count("parse", 1000000), Count("zero", 0)})},
                       OneRun({Count("parse", 1000000), Count("zero", 0)}), InstructionPolicy(),
                       Opts());
  for (const char* name : {"parse", "zero"}) {
    const MetricVerdict* m = Find(v, name, "instructions");
    ASSERT_NE(m, nullptr) << name;
    EXPECT_EQ(m->verdict, Verdict::kUnchanged) << name;
    EXPECT_EQ(m->reason, Reason::kDeterministic) << name;
    EXPECT_DOUBLE_EQ(*m->ratio, 1.0) << name;
    EXPECT_NE(m->sentence.find("0.0% lies within the 0.5% threshold"), std::string::npos)
        << m->sentence;
  }
  EXPECT_EQ(v.outcome, Outcome::kPass);
  EXPECT_EQ(ExitCodeFor(v), 0);
}

TEST(PrimaryMetric, DeterministicDecreaseIsAnImprovementAndSmallChangesPass) {
  Verdicts v = Compare({OneRun({Count("a", 1000), Count("b", 100000)})},
                       OneRun({Count("a", 900), Count("b", 100400)}), InstructionPolicy(), Opts());
  EXPECT_EQ(Find(v, "a", "instructions")->verdict, Verdict::kImprovement);
  EXPECT_EQ(Find(v, "b", "instructions")->verdict, Verdict::kUnchanged);  // +0.4%
  // A count that appears where the baseline had none is an infinite increase.
  Verdicts z = Compare({OneRun({Count("a", 0)})}, OneRun({Count("a", 5)}), InstructionPolicy(), Opts());
  EXPECT_EQ(z.metrics.at(0).verdict, Verdict::kRegression);
  EXPECT_TRUE(std::isinf(*z.metrics.at(0).ratio));
}

TEST(PrimaryMetric, PolicyRulesAndWaiversMatchTheMetricName) {
  Policy p = InstructionPolicy();
  PolicyRule rule;
  rule.match = "parse";
  rule.metric = "instructions";
  rule.severity = Severity::kWarn;
  p.rules.push_back(rule);
  Verdicts v = Compare({OneRun({Count("parse", 1000)})}, OneRun({Count("parse", 1100)}), p, Opts());
  EXPECT_EQ(v.metrics.at(0).verdict, Verdict::kRegression);
  EXPECT_EQ(v.metrics.at(0).severity, Severity::kWarn);
  EXPECT_EQ(v.outcome, Outcome::kPass);
  Policy waived = InstructionPolicy();
  Waiver waiver;
  waiver.match = "parse";
  waiver.metric = "instructions";
  waiver.until = "2026-12-31";
  waiver.reason = "new parser";
  waived.waivers.push_back(waiver);
  Verdicts wv = Compare({OneRun({Count("parse", 1000)})}, OneRun({Count("parse", 1100)}), waived,
                        Opts());
  EXPECT_TRUE(wv.metrics.at(0).waived);
  EXPECT_EQ(wv.outcome, Outcome::kPass);
  // A rule for "time" does not touch the instruction count.
  Policy q = InstructionPolicy();
  PolicyRule time_rule;
  time_rule.metric = "time";
  time_rule.threshold = 0.5;
  q.rules.push_back(time_rule);
  Verdicts w = Compare({OneRun({Count("parse", 1000)})}, OneRun({Count("parse", 1100)}), q, Opts());
  EXPECT_DOUBLE_EQ(w.metrics.at(0).threshold, 0.005);
  EXPECT_EQ(w.outcome, Outcome::kFail);
}

// A custom benchmark value, bigger is better, one value per side.
WorkloadResult Value(const std::string& name, double value, const std::string& unit) {
  WorkloadResult w;
  w.name = name;
  w.kind = "custom";
  w.backend = "ingest";
  w.metric = "value";
  w.unit = unit;
  w.lower_is_better = false;
  w.rounds = {{value}};
  w.counters["single_sample"] = 1;
  return w;
}

TEST(PrimaryMetric, OtherMetricsKeepTheirNameDirectionAndUnit) {
  Verdicts v = Compare({OneRun({Value("req", 70, "req/s")})}, OneRun({Value("req", 50, "req/s")}),
                       DefaultPolicy(), Opts());
  ASSERT_EQ(v.metrics.size(), 1u);
  const MetricVerdict& m = v.metrics[0];
  EXPECT_EQ(m.metric, "value");
  EXPECT_EQ(m.unit, "req/s");
  EXPECT_FALSE(m.lower_is_better);
  EXPECT_EQ(*m.baseline_value, 70);
  EXPECT_EQ(*m.current_value, 50);
  // One value per side: nothing tested by default ...
  EXPECT_EQ(m.verdict, Verdict::kInconclusive);
  EXPECT_EQ(m.reason, Reason::kNoReplication);
  // ... and with no_replication: threshold, a drop of a bigger-is-better
  // value is the regression.
  Policy p = DefaultPolicy();
  p.defaults.threshold_without_replication = true;
  Verdicts t = Compare({OneRun({Value("req", 70, "req/s")})}, OneRun({Value("req", 50, "req/s")}), p,
                       Opts());
  EXPECT_EQ(t.metrics.at(0).verdict, Verdict::kRegression);
  Verdicts up = Compare({OneRun({Value("req", 70, "req/s")})}, OneRun({Value("req", 90, "req/s")}), p,
                        Opts());
  EXPECT_EQ(up.metrics.at(0).verdict, Verdict::kImprovement);
  // A policy direction still overrides the workload's.
  PolicyRule rule;
  rule.metric = "value";
  rule.lower_is_better = true;
  p.rules.push_back(rule);
  Verdicts flipped = Compare({OneRun({Value("req", 70, "req/s")})}, OneRun({Value("req", 90, "req/s")}),
                             p, Opts());
  EXPECT_EQ(flipped.metrics.at(0).verdict, Verdict::kRegression);
}

TEST(PrimaryMetric, NewRemovedAndSkippedKeepTheMetric) {
  WorkloadResult skipped = Value("zero", 0, "errors");
  skipped.status = WorkloadStatus::kSkipped;
  skipped.reason = "value is 0";
  Verdicts v = Compare({OneRun({Value("gone", 1, "MB"), Value("zero", 2, "errors")})},
                       OneRun({Value("fresh", 1, "MB"), skipped}), DefaultPolicy(), Opts());
  EXPECT_EQ(Find(v, "gone", "value")->verdict, Verdict::kRemoved);
  EXPECT_EQ(Find(v, "gone", "value")->unit, "MB");
  EXPECT_EQ(Find(v, "fresh", "value")->verdict, Verdict::kNew);
  EXPECT_EQ(Find(v, "zero", "value")->verdict, Verdict::kSkipped);
}

TEST(PrimaryMetric, DifferentMetricsOrUnitsAreIncomparable) {
  WorkloadResult time;
  time.name = "x";
  time.rounds = {{1e-3}};
  Verdicts v = Compare({OneRun({time, Value("y", 5, "MB/s")})},
                       OneRun({Value("x", 5, "ops/sec"), Value("y", 5, "GB/s")}), DefaultPolicy(),
                       Opts());
  const MetricVerdict* x = Find(v, "x", "value");
  ASSERT_NE(x, nullptr);
  EXPECT_EQ(x->verdict, Verdict::kIncomparable);
  EXPECT_EQ(x->reason, Reason::kMetricMismatch);
  EXPECT_NE(x->sentence.find("the baseline measured time (s), the current run value (ops/sec)"),
            std::string::npos)
      << x->sentence;
  EXPECT_EQ(Find(v, "y", "value")->reason, Reason::kMetricMismatch);
  EXPECT_EQ(v.outcome, Outcome::kNotJudged);
}

// A rate per second spelled two ways is one unit; units that differ in
// case are not (MB is not Mb).
TEST(PrimaryMetric, RatesPerSecondSpelledTwoWaysAreOneUnit) {
  Verdicts v = Compare({OneRun({Value("a", 3000, "ops/sec"), Value("b", 10, "MB/s")})},
                       OneRun({Value("a", 3000, "ops/s"), Value("b", 10, "Mb/s")}), DefaultPolicy(), Opts());
  EXPECT_NE(Find(v, "a", "value")->verdict, Verdict::kIncomparable);
  EXPECT_EQ(Find(v, "b", "value")->verdict, Verdict::kIncomparable);
}

TEST(PrimaryMetric, OppositeDirectionsAreIncomparableNotJudgedBackwards) {
  // A baseline read with --bigger-is-better, a current file read without:
  // a drop of 30% must not read as an improvement.
  WorkloadResult base = Value("tput", 3000, "ops/sec");  // bigger is better
  WorkloadResult forgot = Value("tput", 2100, "ops/sec");
  forgot.lower_is_better = true;
  Verdicts v = Compare({OneRun({base})}, OneRun({forgot}), DefaultPolicy(), Opts());
  const MetricVerdict* t = Find(v, "tput", "value");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->verdict, Verdict::kIncomparable);
  EXPECT_EQ(t->reason, Reason::kMetricMismatch);
  EXPECT_NE(t->sentence.find("as bigger is better, the current run as smaller is better"), std::string::npos)
      << t->sentence;
  ASSERT_FALSE(v.warnings.empty());
  EXPECT_NE(v.warnings.back().find("different metrics (or read them in opposite directions)"), std::string::npos)
      << v.warnings.back();
  // And the check that refuses such input before judging.
  Results b = OneRun({base});
  Results custom = OneRun({forgot});
  custom.run.source_format = "custom";
  const std::optional<std::string> conflict = DirectionConflict({b}, custom);
  ASSERT_TRUE(conflict.has_value());
  EXPECT_EQ(*conflict,
            "the baseline stores bigger is better for 1 workload ('tput') that this run reads as smaller is "
            "better: give --bigger-is-better so that both sides are read the same way");
  Results agrees = OneRun({Value("tput", 2100, "ops/sec")});
  agrees.run.source_format = "custom";
  EXPECT_FALSE(DirectionConflict({b}, agrees).has_value());
  // A suite's own bigger_is_better, corrected there, is not refused: the
  // judge makes the workload incomparable once and its history starts anew.
  EXPECT_FALSE(DirectionConflict({b}, OneRun({forgot})).has_value());
}

TEST(PrimaryMetric, NoisyNonTimeMetricsAreTestedWithoutATimeSpeedFactor) {
  // Five workloads of repeated values (ops/sec, bigger is better): tested
  // like times, but in a family of their own.
  auto make = [](const std::string& name, double level) {
    WorkloadResult w = Value(name, level, "ops/sec");
    w.counters.clear();
    w.rounds.clear();
    const double within[] = {0.99, 1.0, 1.01, 1.003};
    const double between[] = {1.0, 1.005, 0.995, 1.002, 0.998};
    for (double r : between) {
      std::vector<double> round;
      for (double x : within) round.push_back(level * r * x);
      w.rounds.push_back(round);
    }
    return w;
  };
  std::vector<WorkloadResult> base, cur;
  for (int i = 0; i < 5; ++i) {
    base.push_back(make("w" + std::to_string(i), 100.0 * (i + 1)));
    cur.push_back(make("w" + std::to_string(i), 100.0 * (i + 1) * (i == 0 ? 0.8 : 1.0)));
  }
  Verdicts v = Compare({OneRun(base)}, OneRun(cur), DefaultPolicy(), Opts());
  const MetricVerdict* w0 = Find(v, "w0", "value");
  ASSERT_NE(w0, nullptr);
  EXPECT_EQ(w0->verdict, Verdict::kRegression) << w0->sentence;
  EXPECT_EQ(w0->reason, Reason::kSignificantAboveThreshold);
  EXPECT_EQ(Find(v, "w1", "value")->verdict, Verdict::kUnchanged);
  // No "(suite)" common-shift verdict: a speed factor belongs to times.
  for (const MetricVerdict& m : v.metrics) EXPECT_NE(m.workload, kCommonWorkload);
}

}  // namespace
}  // namespace gpugate
