// Verdicts JSON: exact round trip through the writer and the reader, and
// reader errors that point at the input.
#include "report/json.h"

#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "report/report_fixtures.h"
#include "util/fs.h"

namespace gpugate {
namespace {

using testing_fixtures::ErrorVerdicts;
using testing_fixtures::Metric;
using testing_fixtures::MismatchVerdicts;
using testing_fixtures::MixedVerdicts;
using testing_fixtures::NotJudgedVerdicts;
using testing_fixtures::PassVerdicts;
using testing_fixtures::RequireDetectableVerdicts;

void ExpectSameMetric(const MetricVerdict& a, const MetricVerdict& b) {
  EXPECT_EQ(a.workload, b.workload);
  EXPECT_EQ(a.metric, b.metric);
  EXPECT_EQ(a.verdict, b.verdict);
  EXPECT_EQ(a.severity, b.severity);
  EXPECT_EQ(a.lower_is_better, b.lower_is_better);
  EXPECT_EQ(a.ratio, b.ratio);
  EXPECT_EQ(a.ci_low, b.ci_low);
  EXPECT_EQ(a.ci_high, b.ci_high);
  EXPECT_EQ(a.confidence, b.confidence);
  EXPECT_EQ(a.p_value, b.p_value);
  EXPECT_EQ(a.p_adjusted, b.p_adjusted);
  EXPECT_EQ(a.threshold, b.threshold);
  EXPECT_EQ(a.baseline_value, b.baseline_value);
  EXPECT_EQ(a.current_value, b.current_value);
  EXPECT_EQ(a.unit, b.unit);
  EXPECT_EQ(a.baseline_n, b.baseline_n);
  EXPECT_EQ(a.current_n, b.current_n);
  EXPECT_EQ(a.baseline_rounds, b.baseline_rounds);
  EXPECT_EQ(a.current_rounds, b.current_rounds);
  EXPECT_EQ(a.baseline_history_runs, b.baseline_history_runs);
  EXPECT_EQ(a.mde, b.mde);
  EXPECT_EQ(a.reason, b.reason);
  EXPECT_EQ(a.sentence, b.sentence);
  EXPECT_EQ(a.waived, b.waived);
  EXPECT_EQ(a.waiver_reason, b.waiver_reason);
}

void ExpectSame(const Verdicts& a, const Verdicts& b) {
  EXPECT_EQ(a.schema, b.schema);
  ASSERT_EQ(a.environments.size(), b.environments.size());
  for (size_t i = 0; i < a.environments.size(); ++i) {
    EXPECT_EQ(a.environments[i].field, b.environments[i].field);
    EXPECT_EQ(a.environments[i].baseline, b.environments[i].baseline) << a.environments[i].field;
    EXPECT_EQ(a.environments[i].current, b.environments[i].current) << a.environments[i].field;
  }
  EXPECT_EQ(a.tool_version, b.tool_version);
  EXPECT_EQ(a.baseline_label, b.baseline_label);
  EXPECT_EQ(a.current_label, b.current_label);
  EXPECT_EQ(a.policy_name, b.policy_name);
  EXPECT_EQ(a.fdr_q, b.fdr_q);
  EXPECT_EQ(a.require_detectable, b.require_detectable);
  EXPECT_EQ(a.environment_matches, b.environment_matches);
  EXPECT_EQ(a.outcome, b.outcome);
  ASSERT_EQ(a.env_differences.size(), b.env_differences.size());
  for (size_t i = 0; i < a.env_differences.size(); ++i) {
    EXPECT_EQ(a.env_differences[i].field, b.env_differences[i].field);
    EXPECT_EQ(a.env_differences[i].baseline, b.env_differences[i].baseline);
    EXPECT_EQ(a.env_differences[i].current, b.env_differences[i].current);
  }
  ASSERT_EQ(a.metrics.size(), b.metrics.size());
  for (size_t i = 0; i < a.metrics.size(); ++i) {
    SCOPED_TRACE("metrics[" + std::to_string(i) + "]");
    ExpectSameMetric(a.metrics[i], b.metrics[i]);
  }
  ASSERT_EQ(a.suggestions.size(), b.suggestions.size());
  for (size_t i = 0; i < a.suggestions.size(); ++i) {
    EXPECT_EQ(a.suggestions[i].workload, b.suggestions[i].workload);
    EXPECT_EQ(a.suggestions[i].rule, b.suggestions[i].rule);
    EXPECT_EQ(a.suggestions[i].priority, b.suggestions[i].priority);
    EXPECT_EQ(a.suggestions[i].message, b.suggestions[i].message);
    EXPECT_EQ(a.suggestions[i].evidence, b.suggestions[i].evidence);
    EXPECT_EQ(a.suggestions[i].hint, b.suggestions[i].hint);
  }
  EXPECT_EQ(a.warnings, b.warnings);
}

TEST(ReportJson, RoundTripIsExact) {
  for (const Verdicts& v : {MixedVerdicts(), MismatchVerdicts(), PassVerdicts(),
                            NotJudgedVerdicts(), ErrorVerdicts(), RequireDetectableVerdicts(),
                            Verdicts{}}) {
    const std::string text = RenderJson(v);
    Result<Verdicts> back = VerdictsFromJson(text, "v.json");
    ASSERT_TRUE(back.ok()) << back.error().message << "\n" << text;
    ExpectSame(v, back.value());
    EXPECT_EQ(RenderJson(back.value()), text);
  }
}

// One JSON convention: an environment's numbers are numbers, its flags
// bools and what a side does not know null, not text.
TEST(ReportJson, EnvironmentValuesKeepTheirTypes) {
  Verdicts v;
  v.environments = {{"cpu_cores", int64_t{2}, int64_t{64}},
                    {"gpu.memory_bytes", int64_t{85899345920}, {}},
                    {"gpu.sm_clock_hz", 1.41e9, 1.98e9},
                    {"gpu.ecc_enabled", true, false},
                    {"gpu.name", std::string("NVIDIA A100"), {}}};
  const std::string text = RenderJson(v);
  for (const char* expected : {R"("field": "cpu_cores",
            "baseline": 2,
            "current": 64)",
                               R"("baseline": 85899345920,
            "current": null)",
                               R"("baseline": 1.41e+09,
            "current": 1.98e+09)",
                               R"("baseline": true,
            "current": false)",
                               R"("baseline": "NVIDIA A100",
            "current": null)"})
    EXPECT_NE(text.find(expected), std::string::npos) << expected << "\n" << text;
  Result<Verdicts> back = VerdictsFromJson(text, "e.json");
  ASSERT_TRUE(back.ok()) << back.error().message;
  ExpectSame(v, back.value());
  // Anything else is an error at the value.
  Result<Verdicts> bad = VerdictsFromJson(
      "{\"schema\": \"gpugate/verdicts/v2\", \"metrics\": [],\n"
      " \"environments\": [{\"field\": \"os\", \"baseline\": [1]}]}",
      "bad.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message,
            "bad.json:2:47: environments[0].baseline: expected a string, number, bool or null, got array");
}

TEST(ReportJson, UnitIsWrittenOnlyWhenSet) {
  Verdicts v;
  v.metrics.push_back(testing_fixtures::Metric("t", "time", Verdict::kUnchanged));
  MetricVerdict value = testing_fixtures::Metric("req", "value", Verdict::kInconclusive);
  value.unit = "req/s";
  value.baseline_value = 70;
  value.current_value = 50;
  v.metrics.push_back(value);
  const std::string text = RenderJson(v);
  EXPECT_EQ(text.find("\"unit\""), text.rfind("\"unit\"")) << text;  // once
  EXPECT_NE(text.find("\"unit\": \"req/s\""), std::string::npos) << text;
  Result<Verdicts> back = VerdictsFromJson(text, "v.json");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->metrics[0].unit, "");
  EXPECT_EQ(back->metrics[1].unit, "req/s");
}

TEST(ReportJson, ReadsTheGoldenFile) {
  const std::string path = std::string(GPUGATE_SOURCE_DIR) + "/tests/data/golden/mixed.json";
  Result<std::string> text = ReadFile(path);
  ASSERT_TRUE(text.ok()) << text.error().message;
  Result<Verdicts> v = VerdictsFromJson(text.value(), path);
  ASSERT_TRUE(v.ok()) << v.error().message;
  ExpectSame(MixedVerdicts(), v.value());
}

TEST(ReportJson, DoublesRoundTripBitForBit) {
  Verdicts v;
  const double values[] = {0.1 + 0.2,
                           1.0 / 3.0,
                           5e-324,
                           std::numeric_limits<double>::max(),
                           1.0412345678901234,
                           -2.5e-17,
                           123456789.0};
  for (double d : values) {
    MetricVerdict m = Metric("w", "time", Verdict::kUnchanged);
    m.ratio = d;
    m.baseline_value = d;
    m.threshold = d;
    v.metrics.push_back(m);
  }
  v.fdr_q = 0.1 + 0.2;
  Result<Verdicts> back = VerdictsFromJson(RenderJson(v), "d.json");
  ASSERT_TRUE(back.ok()) << back.error().message;
  ExpectSame(v, back.value());
}

TEST(ReportJson, WritesSchemaAndCounts) {
  const std::string text = RenderJson(MixedVerdicts());
  EXPECT_EQ(text.find("\"schema\": \"gpugate/verdicts/v2\""), 6u) << text.substr(0, 80);
  EXPECT_NE(text.find("\"regression\": 3,"), std::string::npos);
  EXPECT_NE(text.find("\"p_value\": null"), std::string::npos);
}

TEST(ReportJson, NonFiniteOptionalsBecomeAbsent) {
  Verdicts v;
  MetricVerdict m = Metric("w", "time", Verdict::kInconclusive);
  m.ratio = std::numeric_limits<double>::quiet_NaN();
  m.p_value = std::numeric_limits<double>::infinity();
  v.metrics.push_back(m);
  const std::string text = RenderJson(v);
  EXPECT_NE(text.find("\"ratio\": null"), std::string::npos);
  Result<Verdicts> back = VerdictsFromJson(text, "n.json");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_FALSE(back->metrics[0].ratio.has_value());
  EXPECT_FALSE(back->metrics[0].p_value.has_value());
}

TEST(ReportJson, AcceptsMinorVersionsAndIgnoresUnknownKeys) {
  Result<Verdicts> v = VerdictsFromJson(
      R"({"schema": "gpugate/verdicts/v2.4", "future": {"x": 1},
          "metrics": [{"workload": "a", "metric": "time", "verdict": "unchanged",
                       "ratio": null, "new_field": [1, 2]}]})",
      "minor.json");
  ASSERT_TRUE(v.ok()) << v.error().message;
  EXPECT_EQ(v->schema, "gpugate/verdicts/v2.4");
  ASSERT_EQ(v->metrics.size(), 1u);
  EXPECT_EQ(v->metrics[0].verdict, Verdict::kUnchanged);
  EXPECT_FALSE(v->metrics[0].ratio.has_value());
}

TEST(ReportJson, RejectsOtherMajorVersions) {
  Result<Verdicts> v = VerdictsFromJson("{\n  \"schema\": \"gpugate/verdicts/v3\", \"metrics\": []}",
                                        "new.json");
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.error().message,
            "new.json:2:13: schema: unsupported verdicts schema 'gpugate/verdicts/v3' (this "
            "gpugate reads v2)");
  // Version 1 wrote environment values as strings: not read as version 2.
  EXPECT_FALSE(VerdictsFromJson(R"({"schema": "gpugate/verdicts/v1", "metrics": []})", "old.json").ok());
  EXPECT_EQ(v.error().code, ExitCode::kInputError);
  EXPECT_FALSE(VerdictsFromJson(R"({"schema": "gpugate/results/v1", "metrics": []})", "r.json").ok());
  EXPECT_FALSE(VerdictsFromJson(R"({"schema": "gpugate/verdicts/v2.", "metrics": []})", "r.json").ok());
  EXPECT_FALSE(VerdictsFromJson(R"({"metrics": []})", "r.json").ok());
}

TEST(ReportJson, ErrorsPointAtTheValue) {
  Result<Verdicts> v = VerdictsFromJson(
      "{\"schema\": \"gpugate/verdicts/v2\",\n"
      " \"metrics\": [{\"workload\": \"a\", \"metric\": \"time\", \"verdict\": \"regresion\"}]}",
      "typo.json");
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.error().message,
            "typo.json:2:61: metrics[0].verdict: unknown verdict 'regresion' (did you mean "
            "'regression'?)");

  v = VerdictsFromJson(
      "{\"schema\": \"gpugate/verdicts/v2\", \"metrics\": [{\"workload\": \"a\", "
      "\"metric\": \"t\", \"verdict\": \"new\", \"baseline_n\": 1.5}]}",
      "int.json");
  ASSERT_FALSE(v.ok());
  EXPECT_NE(v.error().message.find("int.json:1:"), std::string::npos);
  EXPECT_NE(v.error().message.find("metrics[0].baseline_n: expected an integer"),
            std::string::npos)
      << v.error().message;

  v = VerdictsFromJson("{\"schema\": \"gpugate/verdicts/v2\", \"metrics\": [{\"metric\": \"t\"}]}",
                       "missing.json");
  ASSERT_FALSE(v.ok());
  EXPECT_NE(v.error().message.find("metrics[0]: missing required member 'workload'"),
            std::string::npos)
      << v.error().message;

  v = VerdictsFromJson("{\"schema\": \"gpugate/verdicts/v2\", \"metrics\": {}}", "type.json");
  ASSERT_FALSE(v.ok());
  EXPECT_NE(v.error().message.find("metrics: expected an array, got object"), std::string::npos)
      << v.error().message;

  v = VerdictsFromJson("{\"schema\": ", "trunc.json");
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.error().message.rfind("trunc.json:", 0), 0u) << v.error().message;
}

}  // namespace
}  // namespace gpugate
