// Tests of input format detection on every ingest test file, on heads cut at
// awkward places, and on literal heads of the other formats.
#include "ingest/format.h"
#include "model/limits.h"

#include <filesystem>
#include <fstream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "util/fs.h"

namespace gpugate {
namespace {

using ::testing::HasSubstr;

std::string Data(const std::string& rel) {
  Result<std::string> text = ReadFile(std::string(GPUGATE_SOURCE_DIR) + "/tests/data/" + rel);
  EXPECT_TRUE(text.ok()) << rel;
  return text.ok() ? *text : std::string();
}

TEST(SniffFormat, EveryGbenchFile) {
  for (const char* f : {"gbench/github-action-benchmark_googlecpp_output.json",
                        "gbench/conbench_arrow_tensor_conversion_repetitions3.json",
                        "gbench/gbench_local_repetitions5.json",
                        "gbench/gbench_local_nan_error_aggonly.json"}) {
    std::string text = Data(f);
    EXPECT_EQ(SniffFormat(text), InputFormat::kGbench) << f;
    // Cut inside the context: its keys are enough.
    EXPECT_EQ(SniffFormat(std::string_view(text).substr(0, 300)), InputFormat::kGbench) << f;
  }
}

TEST(SniffFormat, EveryNvbenchFile) {
  for (const char* f : {"nvbench/nvbench_test_ref.json", "nvbench/nvbench_test_cmp.json"}) {
    std::string text = Data(f);
    EXPECT_EQ(SniffFormat(std::string_view(text).substr(0, kSniffBytes)), InputFormat::kNvbench) << f;
    // Cut inside meta, after meta.version.nvbench (byte 400 of the file).
    EXPECT_EQ(SniffFormat(std::string_view(text).substr(0, 400)), InputFormat::kNvbench) << f;
    // Cut inside meta.argv: nothing tells yet.
    EXPECT_EQ(SniffFormat(std::string_view(text).substr(0, 40)), InputFormat::kUnknown) << f;
  }
}

// Keys sorted (`jq -S`): "benchmarks" with every result comes first, and the
// keys that tell the format ("context", "devices", "meta") only after the
// first kSniffBytes. The whole text is then looked at.
TEST(SniffFormat, SortedKeysBeyondTheHeadAreFound) {
  std::string results;
  for (int i = 0; results.size() < 2 * kSniffBytes; ++i)
    results += std::string(i ? "," : "") + R"({"name":"BM_X/)" + std::to_string(i) +
               R"(","run_type":"iteration","iterations":10,"real_time":1.5,"cpu_time":1.5,"time_unit":"ns"})";
  const std::string gbench = R"({"benchmarks":[)" + results +
                             R"(],"context":{"date":"2026-11-28T00:00:00+00:00","num_cpus":2}})";
  EXPECT_EQ(SniffFormat(std::string_view(gbench).substr(0, kSniffBytes)), InputFormat::kUnknown);
  Result<Results> read = IngestBenchmarkText(gbench, "sorted.json", IngestOptions{});
  ASSERT_TRUE(read.ok()) << read.error().message;
  EXPECT_GT(read->workloads.size(), 1000u);
  EXPECT_EQ(read->workloads[0].name, "BM_X/0");
}

TEST(SniffFormat, EveryCustomFile) {
  for (const char* f : {"custom/github-action-benchmark_customBiggerIsBetter_output.json",
                        "custom/github-action-benchmark_customSmallerIsBetter_output.json",
                        "custom/github-action-benchmark_customSmallerIsBetter_output2.json"}) {
    std::string text = Data(f);
    EXPECT_EQ(SniffFormat(text), InputFormat::kCustom) << f;
    // Cut inside the first entry, after its "value": enough.
    const size_t cut = text.find("\"value\"") + 9;
    EXPECT_EQ(SniffFormat(std::string_view(text).substr(0, cut)), InputFormat::kCustom) << f;
    // Cut before "value" was seen: "name" and "unit" tell already.
    EXPECT_EQ(SniffFormat(std::string_view(text).substr(0, text.find("\"value\""))),
              InputFormat::kCustom)
        << f;
    // Cut before "unit": a name alone does not.
    EXPECT_EQ(SniffFormat(std::string_view(text).substr(0, text.find("\"unit\""))),
              InputFormat::kUnknown)
        << f;
  }
  // Key order does not matter; a later element is not looked at.
  EXPECT_EQ(SniffFormat(R"([{"value": 1, "range": "3", "unit": "x", "name": "a"}])"),
            InputFormat::kCustom);
  // An entry that lacks "unit" or "value" is custom JSON whose entry is
  // wrong: the reader names what is missing, where.
  EXPECT_EQ(SniffFormat(R"([{"name": "a", "unit": "x"}, {"name": "b", "unit": "x", "value": 1}])"),
            InputFormat::kCustom);
  Result<Results> missing =
      IngestBenchmarkText(R"([{"name":"parse","value":90.9},{"name":"b","unit":"ns","value":1}])", "c.json",
                          IngestOptions{});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message.rfind("c.json:1:2: ", 0), 0u) << missing.error().message;
  EXPECT_NE(missing.error().message.find("missing \"unit\""), std::string::npos) << missing.error().message;
  // A required member that is null is said at the null, not called missing
  // at its object.
  auto error_of = [](const std::string& text) {
    Result<Results> r = IngestBenchmarkText(text, "n.json", IngestOptions{});
    return r.ok() ? std::string("parsed") : r.error().message;
  };
  EXPECT_EQ(error_of("[{\"name\":\"a\",\"unit\":\"ns\",\"value\":1},\n {\"name\":\"b\",\"unit\":\"ns\",\"value\":null}]"),
            "n.json:2:34: [1].value: null where a value is required");
  EXPECT_EQ(error_of("[{\"name\":\"a\",\"unit\":null,\"value\":1}]"), "n.json:1:21: [0].unit: null where a value is required");
  EXPECT_EQ(error_of("{\"machine_info\": {\"node\": \"h\"}, \"commit_info\": {},\n \"benchmarks\": null}"),
            "n.json:2:16: benchmarks: null where a value is required");
  EXPECT_EQ(error_of("{\"context\": {\"date\": \"x\", \"executable\": \"./b\", \"num_cpus\": 2},\n \"benchmarks\": null}"),
            "n.json:2:16: benchmarks: null where a value is required");
  const std::string gbench_head = "{\"context\": {\"date\": \"x\", \"executable\": \"./b\", \"num_cpus\": 2},\n \"benchmarks\": [\n";
  EXPECT_EQ(error_of(gbench_head +
                     "{\"name\": \"BM_a\", \"run_type\": \"iteration\", \"iterations\": 10, \"real_time\": null, "
                     "\"cpu_time\": 1, \"time_unit\": \"ns\"}]}"),
            "n.json:3:74: benchmarks[0].real_time: null where a value is required");
  EXPECT_EQ(error_of(gbench_head +
                     "{\"name\": \"BM_a\", \"run_type\": \"iteration\", \"iterations\": null, \"real_time\": 1, "
                     "\"cpu_time\": 1, \"time_unit\": \"ns\"}]}"),
            "n.json:3:57: benchmarks[0].iterations: null where a value is required");
  EXPECT_EQ(error_of("{\"machine_info\": {\"node\": \"h\"}, \"commit_info\": {},\n \"benchmarks\": [{\"name\": null, "
                     "\"fullname\": null, \"stats\": {\"median\": 1, \"rounds\": 1}}]}"),
            "n.json:2:26: benchmarks[0].name: null where a value is required");
  EXPECT_EQ(SniffFormat(R"([{"name": "a", "other": 1}])"), InputFormat::kUnknown);
  EXPECT_EQ(SniffFormat("[]"), InputFormat::kUnknown);
  // A first entry without its name (written "Name") is custom JSON whose
  // name is missing, said at the entry (it was "unrecognised input").
  Result<Results> unnamed =
      IngestBenchmarkText(R"([{"Name":"a","unit":"ms","value":1.5},{"name":"b","unit":"ms","value":2}])",
                          "c.json", IngestOptions{});
  ASSERT_FALSE(unnamed.ok());
  EXPECT_EQ(unnamed.error().message.rfind("c.json:1:2: ", 0), 0u) << unnamed.error().message;
  EXPECT_NE(unnamed.error().message.find("missing \"name\""), std::string::npos) << unnamed.error().message;
  // The suite of a custom file is its stem, compressed or not.
  Result<Results> gz = IngestBenchmarkText(R"([{"name":"a","unit":"ms","value":1.5}])", "dir/perf.json.gz",
                                           IngestOptions{});
  ASSERT_TRUE(gz.ok()) << gz.error().message;
  EXPECT_EQ(gz->run.suite, "perf");
  EXPECT_EQ(SniffFormat(R"([{"name": "a", "unit": "x", "value": 1, "ph": "X"}])"),
            InputFormat::kChromeTrace);
}

TEST(SniffFormat, EveryPytestFile) {
  for (const char* f : {"pytest/textops_base.json", "pytest/textops_base_saved.json",
                        "pytest/textops_slow.json", "pytest/textops_slow_saved.json",
                        "pytest/textops_base_rerun.json",
                        "pytest/github-action-benchmark_pytest_output.json",
                        "pytest/github-action-benchmark_pytest_several_units.json"}) {
    std::string text = Data(f);
    EXPECT_EQ(SniffFormat(std::string_view(text).substr(0, kSniffBytes)), InputFormat::kPytest)
        << f;
    // Cut inside machine_info: its key is enough.
    EXPECT_EQ(SniffFormat(std::string_view(text).substr(0, 40)), InputFormat::kPytest) << f;
  }
  EXPECT_EQ(SniffFormat(R"({"commit_info": {}, "benchmarks": []})"), InputFormat::kPytest);
  EXPECT_STREQ(ToString(InputFormat::kPytest), "pytest-benchmark JSON");
  EXPECT_STREQ(ToString(InputFormat::kCustom), "custom benchmark JSON");
}

TEST(SniffFormat, GpugateFilesByTheirSchema) {
  EXPECT_EQ(SniffFormat(R"({"schema": "gpugate/results/v1", "run": {"suite": "s"}})"),
            InputFormat::kGpugateResults);
  EXPECT_EQ(SniffFormat("\xEF\xBB\xBF  {\n  \"schema\" : \"gpugate/baseline/v1\", \"runs\": ["),
            InputFormat::kGpugateBaseline);
  // A "schema" below the top level says nothing.
  EXPECT_EQ(SniffFormat(R"({"x": {"schema": "gpugate/results/v1"}})"), InputFormat::kUnknown);
  // Keys inside string values are not keys.
  EXPECT_EQ(SniffFormat(R"({"note": "\"context\": {}, \"benchmarks\": []"})"), InputFormat::kUnknown);
}

TEST(SniffFormat, ChromeTracesInAllTheirShapes) {
  // Kineto: schemaVersion and deviceProperties come long before traceEvents.
  EXPECT_EQ(SniffFormat("\n{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [\n    {\n      \"id\": 0, "
                        "\"name\": \"NVIDIA A100-PG509-200\","),
            InputFormat::kChromeTrace);
  EXPECT_EQ(SniffFormat(R"({"displayTimeUnit": "ns", "traceEvents": [{"ph": "X"}]})"),
            InputFormat::kChromeTrace);
  // JSON array format, possibly without the closing bracket.
  EXPECT_EQ(SniffFormat(R"([{"name": "k", "ph": "X", "ts": 1, "dur": 2},)"), InputFormat::kChromeTrace);
  EXPECT_EQ(SniffFormat(R"([{"name": "k", "args": {"ph": 1}}])"), InputFormat::kUnknown);
  // gzip magic: a compressed trace.
  EXPECT_EQ(SniffFormat(std::string("\x1f\x8b\x08\x00", 4)), InputFormat::kChromeTrace);
}

TEST(SniffFormat, UnknownInput) {
  EXPECT_EQ(SniffFormat(""), InputFormat::kUnknown);
  EXPECT_EQ(SniffFormat("   \n"), InputFormat::kUnknown);
  EXPECT_EQ(SniffFormat("name,value\n"), InputFormat::kUnknown);
  EXPECT_EQ(SniffFormat("{}"), InputFormat::kUnknown);
  EXPECT_EQ(SniffFormat(R"({"benchmarks": []})"), InputFormat::kUnknown);
  EXPECT_EQ(SniffFormat("{\"cont"), InputFormat::kUnknown);
  EXPECT_STREQ(ToString(InputFormat::kNvbench), "nvbench JSON");
  // What gpugate file it is, when it is one SniffFormat does not read.
  EXPECT_EQ(SniffSchema(R"({"schema": "gpugate/verdicts/v2", "metrics": []})"), "gpugate/verdicts/v2");
  EXPECT_EQ(SniffSchema("\xEF\xBB\xBF {\"tool\": 1, \"schema\": \"gpugate/device/v1\"}"), "gpugate/device/v1");
  EXPECT_EQ(SniffSchema(R"([{"schema": "x"}])"), "");
  EXPECT_EQ(SniffSchema(R"({"a": {"schema": "x"}})"), "");
}

TEST(IngestBenchmarkFile, DispatchesByContent) {
  std::string dir = std::string(GPUGATE_SOURCE_DIR) + "/tests/data/";
  Result<Results> g = IngestBenchmarkFile(dir + "gbench/gbench_local_repetitions5.json");
  ASSERT_TRUE(g.ok()) << g.error().message;
  EXPECT_EQ(g->run.source_format, "gbench");
  EXPECT_EQ(g->workloads.size(), 3u);

  Result<Results> n = IngestBenchmarkFile(dir + "nvbench/nvbench_test_ref.json");
  ASSERT_TRUE(n.ok()) << n.error().message;
  EXPECT_EQ(n->run.source_format, "nvbench");
  EXPECT_EQ(n->workloads.size(), 126u);

  std::filesystem::path p = std::filesystem::path(::testing::TempDir()) / "gpugate_sniff_results.json";
  std::ofstream(p) << R"({"schema": "gpugate/results/v1"})";
  Result<Results> other = IngestBenchmarkFile(p.string());
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.error().code, ExitCode::kInputError);
  EXPECT_THAT(other.error().message, HasSubstr("is a gpugate results"));

  Result<Results> c = IngestBenchmarkFile(
      dir + "custom/github-action-benchmark_customBiggerIsBetter_output.json");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->run.source_format, "custom");
  EXPECT_TRUE(c->workloads.at(0).lower_is_better);
  IngestOptions bigger;
  bigger.bigger_is_better = true;
  Result<Results> cb = IngestBenchmarkFile(
      dir + "custom/github-action-benchmark_customBiggerIsBetter_output.json", bigger);
  ASSERT_TRUE(cb.ok()) << cb.error().message;
  EXPECT_FALSE(cb->workloads.at(0).lower_is_better);

  Result<Results> py = IngestBenchmarkFile(dir + "pytest/textops_base.json");
  ASSERT_TRUE(py.ok()) << py.error().message;
  EXPECT_EQ(py->run.source_format, "pytest");
  EXPECT_EQ(py->workloads.size(), 6u);

  std::filesystem::path unknown =
      std::filesystem::path(::testing::TempDir()) / "gpugate_sniff_unknown.json";
  std::ofstream(unknown) << R"({"rows": []})";
  Result<Results> u = IngestBenchmarkFile(unknown.string());
  ASSERT_FALSE(u.ok());
  EXPECT_EQ(u.error().code, ExitCode::kInputError);
  EXPECT_THAT(u.error().message, HasSubstr("custom benchmark JSON"));
  EXPECT_THAT(u.error().message, HasSubstr("pytest-benchmark JSON"));

  Result<Results> missing = IngestBenchmarkFile(dir + "gbench/no_such_file.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, ExitCode::kInputError);
}

// A benchmark file holds at most as many benchmarks as a run holds workloads.
TEST(IngestFormat, MoreBenchmarksThanARunHoldsAreRefused) {
  std::string custom = "[";
  for (int64_t i = 0; i <= kMaxWorkloadsPerResult; ++i)
    custom += (i ? ",{\"name\":\"b" : "{\"name\":\"b") + std::to_string(i) + "\",\"unit\":\"ms\",\"value\":1}";
  custom += "]";
  Result<Results> r = IngestBenchmarkText(custom, "many.json", IngestOptions{});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ExitCode::kInputError);
  EXPECT_NE(r.error().message.find("many.json: 100001 benchmarks, more than the 100000 a run may hold"),
            std::string::npos)
      << r.error().message;
}

}  // namespace
}  // namespace gpugate
