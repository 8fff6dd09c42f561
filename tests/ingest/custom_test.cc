// Tests of the custom benchmark JSON reader (github-action-benchmark's
// "custom" format) on the real files in tests/data/custom (origin in
// tests/data/ORIGIN.md) and on literal documents: units, direction, range,
// zero values, large arrays and hostile names. Malformed files are in
// tests/data/bad_ingest (bad_ingest_test.cc).
#include "ingest/custom.h"

#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "model/results_json.h"
#include "util/fs.h"

namespace gpugate {
namespace {

using ::testing::HasSubstr;

Results Load(const std::string& file, bool bigger_is_better = false) {
  const std::string path = std::string(GPUGATE_SOURCE_DIR) + "/tests/data/custom/" + file;
  Result<std::string> text = ReadFile(path);
  EXPECT_TRUE(text.ok()) << path;
  if (!text.ok()) return Results{};
  Result<Results> r = CustomFromJson(*text, file, bigger_is_better);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return r.ok() ? *r : Results{};
}

Results Parse(const std::string& text, bool bigger_is_better = false) {
  Result<Results> r = CustomFromJson(text, "c.json", bigger_is_better);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return r.ok() ? *r : Results{};
}

std::string ErrorOf(const std::string& text) {
  Result<Results> r = CustomFromJson(text, "c.json");
  EXPECT_FALSE(r.ok());
  if (r.ok()) return "";
  EXPECT_EQ(r.error().code, ExitCode::kInputError);
  return r.error().message;
}

double Counter(const WorkloadResult& w, const std::string& key) {
  auto it = w.counters.find(key);
  return it == w.counters.end() ? -12345.0 : it->second;
}

TEST(CustomIngest, SmallerIsBetterFileKeepsItsUnits) {
  Results r = Load("github-action-benchmark_customSmallerIsBetter_output.json");
  EXPECT_EQ(r.run.source_format, "custom");
  EXPECT_EQ(r.run.suite, "github-action-benchmark_customSmallerIsBetter_output");
  ASSERT_EQ(r.workloads.size(), 2u);
  const WorkloadResult& load = r.workloads[0];
  EXPECT_EQ(load.name, "My Custom Smaller Is Better Benchmark - CPU Load");
  EXPECT_EQ(load.kind, "custom");
  EXPECT_EQ(load.metric, "value");
  EXPECT_EQ(load.unit, "Percent");
  EXPECT_TRUE(load.lower_is_better);
  EXPECT_FALSE(load.deterministic);
  EXPECT_EQ(load.rounds, (std::vector<std::vector<double>>{{50}}));
  EXPECT_EQ(load.summary.median, 50);
  EXPECT_EQ(Counter(load, "single_sample"), 1);
  EXPECT_DOUBLE_EQ(Counter(load, "range_rel"), 0.05);  // "range": "5%"
  const WorkloadResult& memory = r.workloads[1];
  EXPECT_EQ(memory.unit, "Megabytes");
  EXPECT_EQ(memory.rounds, (std::vector<std::vector<double>>{{100}}));
  EXPECT_EQ(memory.counters.count("range"), 0u);
}

TEST(CustomIngest, BiggerIsBetterIsAnOption) {
  Results smaller = Load("github-action-benchmark_customBiggerIsBetter_output.json");
  ASSERT_EQ(smaller.workloads.size(), 2u);
  EXPECT_TRUE(smaller.workloads[0].lower_is_better);
  Results bigger = Load("github-action-benchmark_customBiggerIsBetter_output.json", true);
  ASSERT_EQ(bigger.workloads.size(), 2u);
  EXPECT_EQ(bigger.workloads[0].name, "My Custom Bigger Is Better Benchmark - Throughput");
  EXPECT_EQ(bigger.workloads[0].unit, "req/s");
  EXPECT_FALSE(bigger.workloads[0].lower_is_better);
  EXPECT_EQ(bigger.workloads[0].rounds[0][0], 70);
  EXPECT_FALSE(bigger.workloads[1].lower_is_better);
  EXPECT_EQ(Counter(bigger.workloads[1], "range"), 3);  // "range": "3", in Megabytes
}

// Bigger-is-better reads the values of other units: a time in the same file
// is still a time, and a slower one a regression.
TEST(CustomIngest, BiggerIsBetterLeavesTimesSmallerIsBetter) {
  Results r = Parse(R"([{"name": "rate", "unit": "ops/sec", "value": 100},
                        {"name": "latency", "unit": "ns/iter", "value": 250}])",
                    true);
  ASSERT_EQ(r.workloads.size(), 2u);
  EXPECT_FALSE(r.workloads[0].lower_is_better);
  EXPECT_EQ(r.workloads[1].metric, "time");
  EXPECT_TRUE(r.workloads[1].lower_is_better);
}

TEST(CustomIngest, TimeUnitsBecomeTheTimeMetricInSeconds) {
  Results r = Load("github-action-benchmark_customSmallerIsBetter_output2.json");
  ASSERT_EQ(r.workloads.size(), 4u);
  const WorkloadResult& w = r.workloads[0];
  EXPECT_EQ(w.name, "No instrumentation");
  EXPECT_TRUE(HasTimeMetric(w));
  EXPECT_EQ(w.unit, "s");
  EXPECT_DOUBLE_EQ(w.rounds[0][0], 90.9439e-9);
  EXPECT_DOUBLE_EQ(Counter(w, "range"), 0.519165e-9);  // a number range, in ns
  EXPECT_DOUBLE_EQ(r.workloads[3].rounds[0][0], 3886.75e-9);
  // A time file writes back as a plain results file; other units say theirs.
  const std::string json = ResultsToJson(r);
  EXPECT_EQ(json.find("\"metric\""), std::string::npos);
  Results other = Load("github-action-benchmark_customSmallerIsBetter_output.json");
  Result<Results> back = ResultsFromJson(ResultsToJson(other), "r.json");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->workloads[0].metric, "value");
  EXPECT_EQ(back->workloads[0].unit, "Percent");
}

TEST(CustomIngest, TimeUnitScales) {
  const std::pair<const char*, double> times[] = {
      {"ns", 1e-9}, {"us", 1e-6},        {"\xC2\xB5s", 1e-6}, {"\xCE\xBCs", 1e-6},
      {"ms", 1e-3}, {"s", 1.0},          {"ns/iter", 1e-9},   {"ms/op", 1e-3},
      {" us ", 1e-6}, {"ns/iter ", 1e-9}, {"s/call", 1.0},
      // The words, in any case: read as some other metric, a timing's flat
      // values were taken as exact.
      {"sec", 1.0}, {"Seconds", 1.0}, {"second", 1.0}, {"msec", 1e-3}, {"milliseconds", 1e-3},
      {"usec/iter", 1e-6}, {"microseconds", 1e-6}, {"nsecs", 1e-9}, {"Nanoseconds", 1e-9}};
  for (const auto& [unit, scale] : times) {
    ASSERT_TRUE(CustomTimeUnitScale(unit).has_value()) << unit;
    EXPECT_DOUBLE_EQ(*CustomTimeUnitScale(unit), scale) << unit;
  }
  for (const char* other : {"ops/sec", "iter/sec", "MB/s", "x", "", "NS", "Ms", "ns/byte", "instructions",
                            "s/s", "ns / iter", "secondss", "msecond", "kiloseconds"})
    EXPECT_FALSE(CustomTimeUnitScale(other).has_value()) << other;
}

TEST(CustomIngest, RangesThatReadAsASpreadAreKept) {
  Results r = Parse(R"([
    {"name": "a", "unit": "ops/sec", "value": 10, "range": "\u00b1 1,234"},
    {"name": "b", "unit": "ops/sec", "value": 10, "range": "+/- 0.5"},
    {"name": "c", "unit": "ops/sec", "value": 10, "range": "\u00b11.5%"},
    {"name": "d", "unit": "ops/sec", "value": 10, "range": "stddev: 0.01"},
    {"name": "e", "unit": "ops/sec", "value": 10, "range": "-3"},
    {"name": "f", "unit": "ops/sec", "value": 10, "range": -1},
    {"name": "g", "unit": "us", "value": 10, "range": "2", "extra": "note\nline"},
    {"name": "h", "unit": "ops/sec", "value": 10, "range": null}
  ])");
  ASSERT_EQ(r.workloads.size(), 8u);
  EXPECT_EQ(Counter(r.workloads[0], "range"), 1234);
  EXPECT_EQ(Counter(r.workloads[1], "range"), 0.5);
  EXPECT_DOUBLE_EQ(Counter(r.workloads[2], "range_rel"), 0.015);
  for (int i : {3, 4, 5, 7}) {
    EXPECT_EQ(r.workloads[i].counters.count("range"), 0u) << i;
    EXPECT_EQ(r.workloads[i].counters.count("range_rel"), 0u) << i;
  }
  EXPECT_DOUBLE_EQ(Counter(r.workloads[6], "range"), 2e-6);  // in the value's unit: seconds
}

TEST(CustomIngest, CommasInARangeAreThousandsOrADecimalPoint) {
  Results r = Parse(R"([
    {"name": "a", "unit": "ops/sec", "value": 100, "range": "± 0,52"},
    {"name": "b", "unit": "ops/sec", "value": 100, "range": "± 1,5"},
    {"name": "c", "unit": "ops/sec", "value": 1e7, "range": "± 12,345.5"},
    {"name": "d", "unit": "ops/sec", "value": 1e7, "range": "± 1,234,567"},
    {"name": "e", "unit": "ops/sec", "value": 100, "range": "± 0,523"},
    {"name": "f", "unit": "ops/sec", "value": 100, "range": "± 1,23,4"},
    {"name": "g", "unit": "ops/sec", "value": 100, "range": "± 1.234,5"}
  ])");
  ASSERT_EQ(r.workloads.size(), 7u);
  EXPECT_DOUBLE_EQ(Counter(r.workloads[0], "range"), 0.52);
  EXPECT_DOUBLE_EQ(Counter(r.workloads[1], "range"), 1.5);
  EXPECT_DOUBLE_EQ(Counter(r.workloads[2], "range"), 12345.5);
  EXPECT_DOUBLE_EQ(Counter(r.workloads[3], "range"), 1234567);
  EXPECT_DOUBLE_EQ(Counter(r.workloads[4], "range"), 0.523);
  EXPECT_EQ(r.workloads[5].counters.count("range"), 0u);  // neither: not a spread
  EXPECT_EQ(r.workloads[6].counters.count("range"), 0u);
}

TEST(CustomIngest, ZeroValueIsSkippedWithAReason) {
  Results r = Parse(R"([{"name": "leaks", "unit": "count", "value": 0},
                        {"name": "t", "unit": "ns", "value": 0.0}])");
  ASSERT_EQ(r.workloads.size(), 2u);
  for (const WorkloadResult& w : r.workloads) {
    EXPECT_EQ(w.status, WorkloadStatus::kSkipped);
    EXPECT_THAT(w.reason, HasSubstr("value is 0"));
    EXPECT_TRUE(w.rounds.empty());
  }
  EXPECT_EQ(r.workloads[0].unit, "count");
}

TEST(CustomIngest, AValueTooSmallForARatioIsRefusedAtTheValue) {
  // 9e17 against 1e-300 is no finite ratio, and a subnormal is dropped by
  // the comparison: refused where they stand, as values of 1e18 are.
  EXPECT_EQ(ErrorOf(R"([{"name": "b", "unit": "ops/s", "value": 1e-300}])"),
            "c.json:1:42: benchmark 'b': value is above 0 but below 1e-18 (1e-300)");
  EXPECT_THAT(ErrorOf(R"([{"name": "a", "unit": "ops/s", "value": 5e-324}])"), HasSubstr("below 1e-18 (5e-324)"));
  EXPECT_EQ(Parse(R"([{"name": "c", "unit": "ops/s", "value": 1e-18}])").workloads.size(), 1u);
}

TEST(CustomIngest, NotAnArrayAndEmptyInput) {
  EXPECT_EQ(ErrorOf(R"({"name": "a", "unit": "ns", "value": 1})"),
            "c.json:1:1: document: expected an array of {\"name\", \"unit\", \"value\"} objects, "
            "got object");
  EXPECT_THAT(ErrorOf(""), HasSubstr("c.json"));
  EXPECT_TRUE(Parse("[]").workloads.empty());
}

TEST(CustomIngest, LargeArraysAreReadAndTheirLastEntryChecked) {
  // Large enough to expose per-entry state growing with the array (positions,
  // the name index); its speed is measured by bench/json_bench.cc
  // (BM_CustomIngest), not here.
  std::string text = "[\n";
  const int n = 50000;
  for (int i = 0; i < n; ++i)
    text += "{\"name\": \"bench/" + std::to_string(i) + "\", \"unit\": \"ns\", \"value\": " +
            std::to_string(i + 1) + "},\n";
  std::string good = text + "{\"name\": \"last\", \"unit\": \"ns\", \"value\": 1}\n]";
  Results r = Parse(good);
  ASSERT_EQ(r.workloads.size(), static_cast<size_t>(n + 1));
  EXPECT_DOUBLE_EQ(r.workloads[n - 1].rounds[0][0], n * 1e-9);
  // A repeated name at the very end is found and placed.
  std::string dup = text + "{\"name\": \"bench/7\", \"unit\": \"ns\", \"value\": 1}\n]";
  EXPECT_EQ(ErrorOf(dup), "c.json:50002:10: [50000].name: benchmark name 'bench/7' is used "
                          "twice (first at 9:10)");
}

TEST(CustomIngest, MarkupNamesAreKeptControlCharactersRefused) {
  const std::string name = "evil|<b>`x`";
  Results r = Parse("[{\"name\": \"" + name + "\", \"unit\": \"ns\", \"value\": 1}]");
  ASSERT_EQ(r.workloads.size(), 1u);
  EXPECT_EQ(r.workloads[0].name, name);  // verbatim: reports escape it
  EXPECT_THAT(ErrorOf("[{\"name\": \"" + name + "\", \"unit\": \"ns\", \"value\": -1}]"),
              HasSubstr("benchmark 'evil|<b>`x`': value is negative (-1)"));
  const std::string message =
      ErrorOf("[{\"name\": \"evil\\u001b[31m\", \"unit\": \"ns\", \"value\": 1}]");
  EXPECT_EQ(message, "c.json:1:11: [0].name: a benchmark name must be printable text: control "
                     "character U+001B at byte 4");
  EXPECT_EQ(message.find('\x1b'), std::string::npos);
}

}  // namespace
}  // namespace gpugate
