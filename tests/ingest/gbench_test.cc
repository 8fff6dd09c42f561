// Tests of the Google Benchmark JSON reader on real files (tests/data/gbench,
// origin in tests/data/ORIGIN.md) and on small literal documents.
//
// Expected counts (workloads, skipped, samples) were computed independently
// with Debian's Python over the same files:
//   for f in tests/data/gbench/*.json; do /usr/bin/python3 -c "
//   import json,sys; B=json.load(open(sys.argv[1]))['benchmarks']
//   R=[b for b in B if b.get('aggregate_name') not in ('BigO','RMS')]
//   g={}; [g.setdefault(b.get('run_name',b['name']),[]).append(b) for b in R]
//   it=lambda v:[b for b in v if b.get('run_type')!='aggregate']
//   bad=lambda v:any(b.get('error_occurred') or b.get('skipped') for b in v)
//   print(len(g), sum(bad(it(v)) for v in g.values()),
//         sum(0 if bad(it(v)) else (len(it(v)) or 1) for v in g.values()))" $f; done
//   conbench_arrow_tensor_conversion_repetitions3.json  2 0 6
//   gbench_local_nan_error_aggonly.json                 5 1 10
//   gbench_local_repetitions5.json                      3 0 15
//   github-action-benchmark_googlecpp_output.json       2 0 2
// Sample values are real_time * unit scale, printed by
//   /usr/bin/python3 -c "import json; d=json.load(open(F)); print(repr(b['real_time']*1e-9))".
#include "ingest/gbench.h"

#include <cmath>
#include <map>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "model/results_json.h"
#include "util/fs.h"
#include "util/text/escape.h"

namespace gpugate {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string DataPath(const std::string& rel) {
  return std::string(GPUGATE_SOURCE_DIR) + "/tests/data/gbench/" + rel;
}

Results Load(const std::string& rel) {
  Result<std::string> text = ReadFile(DataPath(rel));
  EXPECT_TRUE(text.ok()) << (text.ok() ? "" : text.error().message);
  if (!text.ok()) return Results{};
  Result<Results> r = GbenchFromJson(*text, rel);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return r.ok() ? *r : Results{};
}

size_t TotalSamples(const Results& r) {
  size_t n = 0;
  for (const auto& w : r.workloads) n += AllSamples(w).size();
  return n;
}

size_t CountStatus(const Results& r, WorkloadStatus s) {
  size_t n = 0;
  for (const auto& w : r.workloads) n += w.status == s ? 1 : 0;
  return n;
}

double Counter(const WorkloadResult& w, const std::string& key) {
  auto it = w.counters.find(key);
  return it == w.counters.end() ? -12345.0 : it->second;
}

// A one-row document: line 4 holds the row, whose first 139 characters are
// the fixed prefix below; "real_time": starts the value at column 153
// (positions computed with Python's str.index over the same text).
std::string Doc(const std::string& tail) {
  const std::string row =
      "{\"name\": \"BM_x/8\", \"run_name\": \"BM_x/8\", \"run_type\": \"iteration\", "
      "\"repetitions\": 1, \"repetition_index\": 0, \"threads\": 1, \"iterations\": 10, ";
  return "{\n\"context\": {\"host_name\": \"h\"},\n\"benchmarks\": [\n" + row + tail + "\n]}\n";
}

TEST(GbenchIngest, FileWithoutRepetitionsGivesOneSampleEach) {
  Results r = Load("github-action-benchmark_googlecpp_output.json");
  ASSERT_EQ(r.workloads.size(), 2u);
  EXPECT_EQ(TotalSamples(r), 2u);
  const WorkloadResult& w = r.workloads[0];
  EXPECT_EQ(w.name, "fib_10");
  EXPECT_EQ(w.kind, "gbench");
  EXPECT_EQ(w.backend, "ingest");
  ASSERT_EQ(w.rounds.size(), 1u);
  EXPECT_DOUBLE_EQ(w.rounds[0][0], 2.1498980114547953e-07);
  EXPECT_EQ(w.iterations_per_sample, 3070566);
  EXPECT_EQ(Counter(w, "single_sample"), 1);
  EXPECT_EQ(Counter(w, "gbench_repetitions"), 1);
  EXPECT_DOUBLE_EQ(Counter(w, "cpu_time"), 2.1365507206163295e-07);
  EXPECT_EQ(r.workloads[1].name, "fib_20");
  EXPECT_DOUBLE_EQ(r.workloads[1].rounds[0][0], 2.7455600415007055e-05);
  EXPECT_DOUBLE_EQ(r.workloads[1].summary.median, 2.7455600415007055e-05);

  EXPECT_EQ(r.run.source_format, "gbench");
  EXPECT_EQ(r.run.env.host, "Corgi.local");
  EXPECT_EQ(r.run.env.cpu_cores, 4);
  EXPECT_EQ(r.run.suite, "a.out");  // executable "./a.out": dots are part of a program's name
  // A Windows build's executable is its program's name, not its path; a
  // file without one is its stem, compressed or not.
  const std::string row =
      "{\"name\": \"BM_x\", \"run_type\": \"iteration\", \"iterations\": 10, \"real_time\": 1.0, "
      "\"time_unit\": \"ns\"}";
  Result<Results> win = GbenchFromJson(
      "{\"context\": {\"executable\": \"C:\\\\Users\\\\me\\\\build\\\\Release\\\\bench_core.exe\"},"
      " \"benchmarks\": [" + row + "]}", "w.json");
  ASSERT_TRUE(win.ok()) << win.error().message;
  EXPECT_EQ(win->run.suite, "bench_core");
  Result<Results> gz = GbenchFromJson("{\"context\": {}, \"benchmarks\": [" + row + "]}", "d/perf.json.gz");
  ASSERT_TRUE(gz.ok()) << gz.error().message;
  EXPECT_EQ(gz->run.suite, "perf");
  EXPECT_EQ(r.run.source_context.at("mhz_per_cpu"), "2700");
  EXPECT_EQ(r.run.source_context.at("library_build_type"), "release");
  EXPECT_EQ(r.run.source_context.at("cpu_scaling_enabled"), "false");
  EXPECT_EQ(r.run.source_context.at("date"), "2019-11-29 21:26:59");
  EXPECT_THAT(r.run.source_context.at("caches"), HasSubstr("L3 Unified 3145728 B x4"));
  // A local time without a zone cannot be placed on the UTC axis.
  EXPECT_EQ(r.run.time_utc, "");
  EXPECT_EQ(r.run.time_unix_ns, 0);
  EXPECT_THAT(r.run.run_id, StartsWith("gbench-"));
}

TEST(GbenchIngest, RepetitionsBecomeOneRoundEach) {
  Results r = Load("conbench_arrow_tensor_conversion_repetitions3.json");
  ASSERT_EQ(r.workloads.size(), 2u);
  EXPECT_EQ(TotalSamples(r), 6u);
  const WorkloadResult& w = r.workloads[0];
  EXPECT_EQ(w.name, "Int8RowMajorTensorConversionFixture<Int32Type>/ConvertToSparseCOOTensorInt32");
  ASSERT_EQ(w.rounds.size(), 3u);
  EXPECT_DOUBLE_EQ(w.rounds[0][0], 8.857283803106814e-05);
  EXPECT_DOUBLE_EQ(w.rounds[1][0], 8.765301273132746e-05);
  EXPECT_DOUBLE_EQ(w.rounds[2][0], 8.933275062069818e-05);
  EXPECT_EQ(Counter(w, "gbench_repetitions"), 3);
  EXPECT_EQ(w.counters.count("single_sample"), 0u);
  EXPECT_EQ(w.counters.count("only_aggregates"), 0u);  // raw rows exist: aggregates unused
  ASSERT_TRUE(w.bytes_per_second.has_value());
  EXPECT_DOUBLE_EQ(*w.bytes_per_second, 488408056.6457208);  // median of the three repetitions
  EXPECT_DOUBLE_EQ(Counter(w, "cpu_time"), 8.83988344988345e-05);
  // The second family has no aggregate rows at all; repetitions still count.
  const WorkloadResult& c = r.workloads[1];
  ASSERT_EQ(c.rounds.size(), 3u);
  EXPECT_DOUBLE_EQ(c.rounds[1][0], 9.05697118398229e-05);
  EXPECT_DOUBLE_EQ(*c.bytes_per_second, 475217738.97257483);
  // "2022-09-02T16:11:56-05:00" is 21:11:56 UTC.
  EXPECT_EQ(r.run.time_utc, "2022-09-02T21:11:56Z");
  EXPECT_EQ(r.run.time_unix_ns, 1662153116LL * 1000000000LL);
  EXPECT_EQ(r.run.env.cpu_cores, 10);
}

TEST(GbenchIngest, FiveRepetitionsOfThreeBenchmarks) {
  Results r = Load("gbench_local_repetitions5.json");
  ASSERT_EQ(r.workloads.size(), 3u);
  EXPECT_EQ(TotalSamples(r), 15u);
  EXPECT_EQ(r.workloads[0].name, "BM_VectorSum/1024");
  EXPECT_EQ(r.workloads[1].name, "BM_VectorSum/65536");
  EXPECT_EQ(r.workloads[2].name, "BM_Alloc/4096");
  EXPECT_DOUBLE_EQ(r.workloads[0].rounds[0][0], 8.3850483106984768e-07);
  EXPECT_EQ(r.workloads[0].summary.n, 5);
  // Median of the five repetitions equals the file's own _median row.
  EXPECT_DOUBLE_EQ(r.workloads[0].summary.median, 7.99338124614659e-07);
  EXPECT_FALSE(r.workloads[2].bytes_per_second.has_value());
  EXPECT_EQ(r.run.source_context.at("library_build_type"), "debug");
  EXPECT_EQ(r.run.time_utc, "2026-11-21T22:54:09Z");
}

TEST(GbenchIngest, NanCountersErrorsUnitsAndAggregateOnly) {
  Results r = Load("gbench_local_nan_error_aggonly.json");
  ASSERT_EQ(r.workloads.size(), 5u);
  EXPECT_EQ(TotalSamples(r), 10u);
  EXPECT_EQ(CountStatus(r, WorkloadStatus::kOk), 4u);
  EXPECT_EQ(CountStatus(r, WorkloadStatus::kFailed), 1u);  // SkipWithError

  const WorkloadResult& zero = r.workloads[0];
  EXPECT_EQ(zero.name, "BM_ZeroCounter/8");
  EXPECT_EQ(zero.rounds.size(), 3u);
  EXPECT_EQ(Counter(zero, "misses"), 0.0);  // iteration rows say 0; the cv row's NaN is unused
  EXPECT_DOUBLE_EQ(Counter(zero, "items_per_second"), 4669495942.866813);  // the median

  const WorkloadResult& fails = r.workloads[2];
  EXPECT_EQ(fails.name, "BM_Fails");
  EXPECT_EQ(fails.status, WorkloadStatus::kFailed);
  EXPECT_THAT(fails.reason, HasSubstr("device not available"));
  EXPECT_TRUE(fails.rounds.empty());

  // time_unit "us": 0.05380392232968412 us per iteration.
  const WorkloadResult& us = r.workloads[3];
  EXPECT_EQ(us.name, "BM_Us");
  ASSERT_EQ(us.rounds.size(), 3u);
  EXPECT_DOUBLE_EQ(us.rounds[0][0], 0.05380392232968412e-6);
  EXPECT_EQ(us.iterations_per_sample, 335005);

  // Aggregates only (time_unit "ms"): the median is the sample; the cv row's
  // counter is NaN and simply missing; cv is a fraction, not a time.
  const WorkloadResult& agg = r.workloads[4];
  EXPECT_EQ(agg.name, "BM_AggOnly");
  EXPECT_EQ(agg.status, WorkloadStatus::kOk);
  ASSERT_EQ(agg.rounds.size(), 1u);
  EXPECT_DOUBLE_EQ(agg.rounds[0][0], 3.218612061528352e-05 * 1e-3);
  EXPECT_EQ(Counter(agg, "only_aggregates"), 1);
  EXPECT_EQ(Counter(agg, "single_sample"), 1);
  EXPECT_EQ(Counter(agg, "gbench_repetitions"), 3);
  EXPECT_DOUBLE_EQ(Counter(agg, "mean"), 3.0244660955853363e-05 * 1e-3);
  EXPECT_DOUBLE_EQ(Counter(agg, "stddev"), 3.4227671625938973e-06 * 1e-3);
  EXPECT_DOUBLE_EQ(Counter(agg, "cv"), 0.11316930176833331);
  EXPECT_EQ(Counter(agg, "zero"), 0.0);
}

TEST(GbenchIngest, UnitConversion) {
  for (auto [unit, scale] : {std::pair<const char*, double>{"ns", 1e-9}, {"us", 1e-6},
                             {"ms", 1e-3}, {"s", 1.0}}) {
    std::string text = Doc(std::string("\"real_time\": 2.5, \"cpu_time\": 2.0, \"time_unit\": \"") +
                           unit + "\"}");
    Result<Results> r = GbenchFromJson(text, "u.json");
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_DOUBLE_EQ(r->workloads[0].rounds[0][0], 2.5 * scale) << unit;
    EXPECT_DOUBLE_EQ(r->workloads[0].counters.at("cpu_time"), 2.0 * scale) << unit;
  }
}

TEST(GbenchIngest, NanInfNegativeTimesAreRejectedWithPositionAndName) {
  struct Case {
    const char* value;
    const char* message;
  };
  for (const Case& c : {Case{"NaN", "t.json:4:153: benchmark 'BM_x/8': real_time is NaN"},
                        Case{"Infinity", "t.json:4:153: benchmark 'BM_x/8': real_time is infinite"},
                        Case{"-Infinity", "t.json:4:153: benchmark 'BM_x/8': real_time is infinite"},
                        Case{"-2.5", "t.json:4:153: benchmark 'BM_x/8': real_time is negative (-2.5)"}}) {
    Result<Results> r = GbenchFromJson(
        Doc(std::string("\"real_time\": ") + c.value + ", \"cpu_time\": 1.0, \"time_unit\": \"ns\"}"),
        "t.json");
    ASSERT_FALSE(r.ok()) << c.value;
    EXPECT_EQ(r.error().message, c.message);
    EXPECT_EQ(r.error().code, ExitCode::kInputError);
  }
  // cpu_time is a time too; "-1" starts at column 170.
  Result<Results> r = GbenchFromJson(
      Doc("\"real_time\": 5.0, \"cpu_time\": -1, \"time_unit\": \"ns\"}"), "t.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "t.json:4:170: benchmark 'BM_x/8': cpu_time is negative (-1)");
}

TEST(GbenchIngest, NanInIterationCounterIsMissingNotAnError) {
  Result<Results> r = GbenchFromJson(
      Doc("\"real_time\": 5.0, \"cpu_time\": 5.0, \"time_unit\": \"ns\", \"misses\": NaN, "
          "\"hits\": 3, \"items_per_second\": Infinity}"),
      "t.json");
  ASSERT_TRUE(r.ok()) << r.error().message;
  const WorkloadResult& w = r->workloads[0];
  EXPECT_EQ(w.counters.count("misses"), 0u);
  EXPECT_EQ(w.counters.count("items_per_second"), 0u);
  EXPECT_EQ(w.counters.at("hits"), 3.0);
}

TEST(GbenchIngest, NanAggregatesAreMissingValues) {
  const std::string text = R"({"context": {}, "benchmarks": [
{"name": "BM_a_mean", "run_name": "BM_a", "run_type": "aggregate", "repetitions": 4, "threads": 1,
 "aggregate_name": "mean", "aggregate_unit": "time", "iterations": 4, "real_time": NaN, "cpu_time": NaN, "time_unit": "us"},
{"name": "BM_a_median", "run_name": "BM_a", "run_type": "aggregate", "repetitions": 4, "threads": 1,
 "aggregate_name": "median", "aggregate_unit": "time", "iterations": 4, "real_time": 7.0, "cpu_time": 7.0, "time_unit": "us"},
{"name": "BM_a_stddev", "run_name": "BM_a", "run_type": "aggregate", "repetitions": 4, "threads": 1,
 "aggregate_name": "stddev", "aggregate_unit": "time", "iterations": 4, "real_time": Infinity, "cpu_time": 0, "time_unit": "us"},
{"name": "BM_b_mean", "run_name": "BM_b", "run_type": "aggregate", "repetitions": 4, "threads": 1,
 "aggregate_name": "mean", "aggregate_unit": "time", "iterations": 4, "real_time": NaN, "cpu_time": NaN, "time_unit": "us"}
]})";
  Result<Results> r = GbenchFromJson(text, "agg.json");
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->workloads.size(), 2u);
  const WorkloadResult& a = r->workloads[0];
  EXPECT_EQ(a.status, WorkloadStatus::kOk);
  EXPECT_DOUBLE_EQ(a.rounds[0][0], 7.0e-6);
  EXPECT_EQ(a.counters.count("mean"), 0u);
  EXPECT_EQ(a.counters.count("stddev"), 0u);
  EXPECT_EQ(a.counters.at("gbench_repetitions"), 4.0);
  // Nothing usable for BM_b: skipped with a reason, not a crash or an error.
  EXPECT_EQ(r->workloads[1].status, WorkloadStatus::kSkipped);
  EXPECT_THAT(r->workloads[1].reason, HasSubstr("only aggregate rows"));
}

TEST(GbenchIngest, WrongTypesPointAtTheValue) {
  Result<Results> r = GbenchFromJson(
      Doc("\"real_time\": \"fast\", \"cpu_time\": 1.0, \"time_unit\": \"ns\"}"), "t.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "t.json:4:153: benchmarks[0].real_time: expected a number, got string");

  r = GbenchFromJson(R"({"context": {}, "benchmarks": {}})", "t.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "t.json:1:31: benchmarks: expected an array, got object");

  r = GbenchFromJson(R"({"context": [], "benchmarks": []})", "t.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "t.json:1:13: context: expected an object, got array");

  r = GbenchFromJson(R"({"context": {"num_cpus": "two"}, "benchmarks": []})", "t.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "t.json:1:26: context.num_cpus: expected an integer, got string");

  r = GbenchFromJson(Doc("\"real_time\": 1.0, \"time_unit\": \"nss\"}"), "t.json");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("unknown time unit 'nss'"));
  EXPECT_THAT(r.error().message, HasSubstr("did you mean 'ns'?"));

  r = GbenchFromJson(R"({"benchmarks": [{"name": "x", "iterations": 1.5, "real_time": 1}]})", "t.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "t.json:1:45: benchmarks[0].iterations: expected an integer, got 1.5");

  r = GbenchFromJson(R"({"benchmarks": [{"name": "x", "iterations": 1, "real_time": 1, "error_occurred": "yes"}]})",
                     "t.json");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("benchmarks[0].error_occurred: expected true or false"));
  // A CPU count no machine has would key another machine's history.
  r = GbenchFromJson(R"({"context": {"num_cpus": 4294967298}, "benchmarks": []})", "c.json");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("c.json:1:26: context.num_cpus: expected a count of CPUs up to 1048576"));

  r = GbenchFromJson(R"({"benchmarks": [{"name": "x", "iterations": 1}]})", "t.json");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("benchmark 'x': missing real_time"));
}

TEST(GbenchIngest, EmptyTruncatedAndForeignInput) {
  Result<Results> r = GbenchFromJson("", "empty.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ExitCode::kInputError);
  EXPECT_THAT(r.error().message, StartsWith("empty.json"));

  Result<std::string> full = ReadFile(DataPath("gbench_local_repetitions5.json"));
  ASSERT_TRUE(full.ok());
  r = GbenchFromJson(full->substr(0, 2000), "cut.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ExitCode::kInputError);
  EXPECT_THAT(r.error().message, StartsWith("cut.json:"));

  r = GbenchFromJson(R"({"context": {}})", "nob.json");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("missing \"benchmarks\" array"));

  r = GbenchFromJson("[1, 2]", "arr.json");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, StartsWith("arr.json:1:1: "));
}

// User counters' names are the keys of a workload's "counters": two that
// differ only in invalid UTF-8 ("a\xff", "a\xfe") were written as one key
// twice, so every reader refused the results file `run` had written (exit
// 0); one named "processes" was overwritten by gpugate's own. Both are
// refused where they stand, on the row and in a nested "counters" object.
TEST(GbenchIngest, UserCounterNamesMustBePrintableAndNotGpugatesOwn) {
  auto row = [](const std::string& counters) {
    return "{\"benchmarks\": [\n{\"name\": \"BM_a\", \"run_name\": \"BM_a\", \"run_type\": \"iteration\", "
           "\"repetitions\": 1, \"repetition_index\": 0, \"iterations\": 10, \"real_time\": 100, "
           "\"cpu_time\": 100, \"time_unit\": \"ns\", " + counters + "}]}";
  };
  Result<Results> r = GbenchFromJson(row("\"a\xff\": 1, \"a\xfe\": 2"), "bad.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ExitCode::kInputError);
  EXPECT_THAT(r.error().message, StartsWith("bad.json:2:"));
  EXPECT_THAT(r.error().message, HasSubstr("benchmarks[0]: counter 'a"));
  EXPECT_THAT(r.error().message, HasSubstr("a counter name must be printable text: invalid UTF-8 at byte 1"));
  r = GbenchFromJson(row("\"counters\": {\"b\\u001b\": 1}"), "nested.json");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("benchmarks[0].counters: counter 'b\\x1b': a counter name must be printable text: control character U+001B"));
  for (const char* own : {"processes", "single_sample", "mean", "aggregate_p90"}) {
    r = GbenchFromJson(row("\"" + std::string(own) + "\": 77"), "own.json");
    ASSERT_FALSE(r.ok()) << own;
    EXPECT_THAT(r.error().message, HasSubstr("counter '" + std::string(own) + "': gpugate writes a counter of this name itself"));
  }
  r = GbenchFromJson(row("\"a\": 1, \"counters\": {\"b\": 2}"), "ok.json");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->workloads.at(0).counters.at("a"), 1);
  EXPECT_EQ(r->workloads.at(0).counters.at("b"), 2);
}

// The context's scalars are the keys of the run's "source_context"
// (AddCustomContext): two that differ only in invalid UTF-8 were written as
// one key twice. Context is kept as text and never judged, so no key refuses
// the file (a tab, 2 KB, "(suite)" did, through the name rules): invalid
// UTF-8 is repaired and the last of two keys that then read alike is kept.
TEST(GbenchIngest, AnyContextKeyIsKeptAndNoneWrittenTwice) {
  auto file = [](const std::string& context) {
    return "{\"context\": {\"date\": \"x\", \"host_name\": \"h\",\n" + context +
           "},\n\"benchmarks\": [{\"name\": \"BM_a\", \"run_name\": \"BM_a\", \"run_type\": \"iteration\", "
           "\"iterations\": 10, \"real_time\": 100, \"cpu_time\": 100, \"time_unit\": \"ns\"}]}";
  };
  Result<Results> r = GbenchFromJson(file("\"k\xff\": \"a\", \"k\xfe\": \"b\""), "ctx.json");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->run.source_context.count(RepairUtf8("k\xff")), 1u);
  EXPECT_EQ(RepeatedKeyProblem(*r), std::nullopt);
  const std::string long_key(2048, 'k');
  r = GbenchFromJson(file("\"build\\tvariant\": \"x\", \"(suite)\": \"y\", \"" + long_key + "\": \"z\""), "ok.json");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->run.source_context.at("build\tvariant"), "x");
  EXPECT_EQ(r->run.source_context.at("(suite)"), "y");
  EXPECT_EQ(r->run.source_context.at(long_key), "z");
}

TEST(GbenchIngest, AnErrorRowFailsTheWorkloadAndASkipRowSkipsIt) {
  const std::string text = R"({"benchmarks": [
{"name": "BM_e", "run_name": "BM_e", "run_type": "iteration", "repetitions": 2, "repetition_index": 0,
 "iterations": 5, "real_time": 3, "cpu_time": 3, "time_unit": "ns"},
{"name": "BM_e", "run_name": "BM_e", "run_type": "iteration", "repetitions": 2, "repetition_index": 1,
 "error_occurred": true, "error_message": "lost the GPU", "iterations": 0, "real_time": 0, "cpu_time": 0, "time_unit": "ns"},
{"name": "BM_s", "run_name": "BM_s", "run_type": "iteration", "repetitions": 1, "repetition_index": 0,
 "skipped": true, "skip_message": "needs AVX-512", "iterations": 0, "real_time": 0, "cpu_time": 0, "time_unit": "ns"},
{"name": "BM_z", "run_name": "BM_z", "run_type": "iteration", "repetitions": 1, "repetition_index": 0,
 "iterations": 5, "real_time": 0, "cpu_time": 0, "time_unit": "ns"}
]})";
  Result<Results> r = GbenchFromJson(text, "e.json");
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->workloads.size(), 3u);
  EXPECT_EQ(r->workloads[0].status, WorkloadStatus::kFailed);
  EXPECT_EQ(r->workloads[0].reason, "benchmark reported an error: lost the GPU");
  EXPECT_EQ(r->workloads[1].status, WorkloadStatus::kSkipped);
  EXPECT_EQ(r->workloads[1].reason, "skipped by the benchmark: needs AVX-512");
  EXPECT_EQ(r->workloads[2].status, WorkloadStatus::kSkipped);
  EXPECT_THAT(r->workloads[2].reason, HasSubstr("real_time is 0"));
}

// Rows are read as the array streams past: a file of more values than one
// document may hold at once (2.75 million here) is read, row by row.
TEST(GbenchIngest, AFileOfManyRowsIsReadAsItStreams) {
  std::string text = R"({"context": {"num_cpus": 4}, "benchmarks": [)";
  for (int b = 0; b < 25000; ++b)
    for (int i = 0; i < 10; ++i) {
      if (b || i) text += ",";
      text += R"({"name":"BM_)" + std::to_string(b) + R"(","run_name":"BM_)" + std::to_string(b) +
              R"(","run_type":"iteration","repetitions":10,"repetition_index":)" + std::to_string(i) +
              R"(,"iterations":1,"real_time":)" + std::to_string(100 + i) + R"(,"cpu_time":1,"time_unit":"ns"})";
    }
  text += "]}";
  Result<Results> r = GbenchFromJson(text, "big.json");
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->workloads.size(), 25000u);
  EXPECT_EQ(TotalSamples(*r), 250000u);
  EXPECT_EQ(r->workloads[24999].name, "BM_24999");
}

TEST(GbenchIngest, OldFilesWithoutRunTypeAndComplexityRows) {
  // Before run_type existed, aggregates were known only by their suffix.
  const std::string text = R"({"benchmarks": [
{"name": "BM_old/1", "iterations": 10, "real_time": 4, "cpu_time": 4, "time_unit": "ns"},
{"name": "BM_old/1", "iterations": 10, "real_time": 6, "cpu_time": 6, "time_unit": "ns"},
{"name": "BM_old/1_mean", "iterations": 2, "real_time": 5, "cpu_time": 5, "time_unit": "ns"},
{"name": "BM_old/1_median", "iterations": 2, "real_time": 5, "cpu_time": 5, "time_unit": "ns"},
{"name": "BM_old/1_stddev", "iterations": 2, "real_time": 1, "cpu_time": 1, "time_unit": "ns"},
{"name": "BM_old_BigO", "cpu_coefficient": 1.5, "real_coefficient": 1.5, "big_o": "N", "time_unit": "ns"},
{"name": "BM_old_RMS", "rms": 0.1},
{"name": "BM_cx_BigO", "run_name": "BM_cx", "run_type": "aggregate", "aggregate_name": "BigO",
 "cpu_coefficient": 1.5, "real_coefficient": 1.5, "big_o": "N", "time_unit": "ns"},
{"name": "BM_cx_RMS", "run_name": "BM_cx", "run_type": "aggregate", "aggregate_name": "RMS", "rms": 0.1}
]})";
  Result<Results> r = GbenchFromJson(text, "old.json");
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->workloads.size(), 1u);
  EXPECT_EQ(r->workloads[0].name, "BM_old/1");
  EXPECT_EQ(r->workloads[0].rounds.size(), 2u);
  EXPECT_DOUBLE_EQ(r->workloads[0].summary.mean, 5e-9);
}

TEST(GbenchIngest, OldFilesKeepBenchmarksWhoseOwnNameEndsLikeAnAggregate) {
  // A suffix marks an aggregate only in the shape Google Benchmark 1.4
  // wrote them: mean, median and stddev together; a complexity fit without
  // a time; never cv. Any other suffixed row is a benchmark of its own.
  const std::string text = R"({"benchmarks": [
{"name": "BM_running", "iterations": 10, "real_time": 100, "cpu_time": 100, "time_unit": "ns"},
{"name": "BM_running_median", "iterations": 10, "real_time": 500, "cpu_time": 500, "time_unit": "ns"},
{"name": "BM_geo_mean", "iterations": 10, "real_time": 0.3, "cpu_time": 0.3, "time_unit": "us"},
{"name": "BM_resize_cv", "iterations": 10, "real_time": 50, "cpu_time": 50, "time_unit": "ns"},
{"name": "BM_agg_mean", "iterations": 3, "real_time": 7, "cpu_time": 7, "time_unit": "ns"},
{"name": "BM_agg_median", "iterations": 3, "real_time": 6, "cpu_time": 6, "time_unit": "ns"},
{"name": "BM_agg_stddev", "iterations": 3, "real_time": 1, "cpu_time": 1, "time_unit": "ns"},
{"name": "BM_filter_mean", "iterations": 10, "real_time": 20, "cpu_time": 20, "time_unit": "ns"},
{"name": "BM_filter_median", "iterations": 10, "real_time": 30, "cpu_time": 30, "time_unit": "ns"},
{"name": "BM_rep", "iterations": 10, "real_time": 9, "cpu_time": 9, "time_unit": "ns"},
{"name": "BM_rep", "iterations": 10, "real_time": 11, "cpu_time": 11, "time_unit": "ns"},
{"name": "BM_rep_cv", "iterations": 10, "real_time": 40, "cpu_time": 40, "time_unit": "ns"},
{"name": "BM_signal_RMS", "iterations": 10, "real_time": 60, "cpu_time": 60, "time_unit": "ns"},
{"name": "BM_model_BigO", "iterations": 10, "real_time": 70, "cpu_time": 70, "time_unit": "ns"},
{"name": "BM_v12", "iterations": 10, "real_time": 4, "cpu_time": 4, "time_unit": "ns"},
{"name": "BM_v12", "iterations": 10, "real_time": 6, "cpu_time": 6, "time_unit": "ns"},
{"name": "BM_v12_mean", "iterations": 10, "real_time": 5, "cpu_time": 5, "time_unit": "ns"},
{"name": "BM_v12_stddev", "iterations": 0, "real_time": 1, "cpu_time": 1, "time_unit": "ns"}
]})";
  Result<Results> r = GbenchFromJson(text, "old.json");
  ASSERT_TRUE(r.ok()) << r.error().message;
  std::map<std::string, double> mean;
  for (const WorkloadResult& w : r->workloads) mean[w.name] = w.summary.mean;
  ASSERT_EQ(mean.size(), 12u);
  EXPECT_DOUBLE_EQ(mean["BM_v12"], 5e-9);  // Google Benchmark 1.2: mean and stddev alone
  EXPECT_DOUBLE_EQ(mean["BM_running"], 100e-9);
  EXPECT_DOUBLE_EQ(mean["BM_running_median"], 500e-9);
  EXPECT_DOUBLE_EQ(mean["BM_geo_mean"], 300e-9);
  EXPECT_DOUBLE_EQ(mean["BM_resize_cv"], 50e-9);
  EXPECT_EQ(mean.count("BM_agg"), 1u);  // aggregates only: the median is its value
  EXPECT_DOUBLE_EQ(mean["BM_filter_mean"], 20e-9);
  EXPECT_DOUBLE_EQ(mean["BM_filter_median"], 30e-9);
  EXPECT_DOUBLE_EQ(mean["BM_rep"], 10e-9);
  EXPECT_DOUBLE_EQ(mean["BM_rep_cv"], 40e-9);
  EXPECT_DOUBLE_EQ(mean["BM_signal_RMS"], 60e-9);
  EXPECT_DOUBLE_EQ(mean["BM_model_BigO"], 70e-9);
  // Such a row must then hold what a benchmark's row holds.
  Result<Results> bad = GbenchFromJson(
      R"({"benchmarks": [{"name": "BM_lone_mean", "iterations": 0, "real_time": 5, "time_unit": "ns"}]})",
      "old.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("iterations"), std::string::npos) << bad.error().message;
}

TEST(GbenchIngest, HostileNamesAreRefusedAndMarkupNamesQuoted) {
  // A control character is refused at the name, and the message does not
  // echo it; printable markup stays in the name and is quoted verbatim.
  Result<Results> r = GbenchFromJson(
      "{\"benchmarks\": [{\"name\": \"BM_\\u001b[31mred\\nx\", \"iterations\": 1, \"real_time\": NaN}]}",
      "h.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message,
            "h.json:1:26: benchmarks[0].name: a benchmark name must be printable text: control "
            "character U+001B at byte 3");
  r = GbenchFromJson(
      "{\"benchmarks\": [{\"name\": \"BM_<b>|`x`\", \"iterations\": 1, \"real_time\": NaN}]}", "h.json");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("benchmark 'BM_<b>|`x`': real_time is NaN"));
}

// Rows of one benchmark: distinct repetition_index values are its samples;
// the same repetition twice, a modern row without its index, more rows than
// "repetitions" or an aggregate twice are errors at the second row.
TEST(GbenchIngest, RepeatedRowsAreSamplesOnlyWhenTheFileSaysSo) {
  auto doc = [](const std::string& rows) {
    return "{\"context\": {}, \"benchmarks\": [\n" + rows + "\n]}";
  };
  auto row = [](int index, int reps, const char* extra = "") {
    return "{\"name\": \"BM_a\", \"run_name\": \"BM_a\", \"run_type\": \"iteration\", \"repetitions\": " +
           std::to_string(reps) + ", \"repetition_index\": " + std::to_string(index) +
           ", \"iterations\": 10, \"real_time\": 5, \"time_unit\": \"ns\"" + extra + "}";
  };
  Result<Results> ok = GbenchFromJson(doc(row(0, 3) + ",\n" + row(1, 3) + ",\n" + row(2, 3)), "r.json");
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  ASSERT_EQ(ok->workloads.size(), 1u);
  EXPECT_EQ(ok->workloads[0].rounds.size(), 3u);

  auto error = [&](const std::string& rows) {
    Result<Results> r = GbenchFromJson(doc(rows), "r.json");
    EXPECT_FALSE(r.ok());
    return r.ok() ? std::string() : r.error().message;
  };
  EXPECT_EQ(error(row(0, 2) + ",\n" + row(0, 2)),
            "r.json:3:10: benchmark 'BM_a': repetition 0 appears twice (first at 2:1)");
  EXPECT_THAT(error(row(0, 2) + ",\n" + row(1, 2) + ",\n" + row(2, 3)),
              HasSubstr("more rows than its 2 repetitions"));
  EXPECT_THAT(error(row(0, 1) + ",\n" + row(1, 1)), HasSubstr("more rows than its 1 repetitions"));
  const std::string no_index =
      "{\"name\": \"BM_a\", \"run_type\": \"iteration\", \"iterations\": 1, \"real_time\": 5}";
  EXPECT_THAT(error(no_index + ",\n" + no_index), HasSubstr("row repeated without a repetition_index"));
  // Files from before run_type existed repeat the name for repetitions.
  const std::string old = "{\"name\": \"BM_a\", \"iterations\": 1, \"real_time\": 5}";
  Result<Results> legacy = GbenchFromJson(doc(old + ",\n" + old), "r.json");
  ASSERT_TRUE(legacy.ok()) << legacy.error().message;
  EXPECT_EQ(legacy->workloads[0].rounds.size(), 2u);
  const std::string mean =
      "{\"name\": \"BM_a_mean\", \"run_name\": \"BM_a\", \"run_type\": \"aggregate\", "
      "\"aggregate_name\": \"mean\", \"real_time\": 5}";
  EXPECT_THAT(error(mean + ",\n" + mean), HasSubstr("aggregate 'mean' appears twice"));
}

TEST(GbenchIngest, CountsAndTimesOutsideTheirRangesAreErrors) {
  auto error = [](const std::string& tail) {
    Result<Results> r = GbenchFromJson(Doc(tail), "b.json");
    EXPECT_FALSE(r.ok()) << tail;
    return r.ok() ? std::string() : r.error().message;
  };
  EXPECT_THAT(error("\"real_time\": 1e308, \"time_unit\": \"ns\"}"),
              HasSubstr("real_time is 1e9 s or more (1e+299 s)"));
  EXPECT_THAT(error("\"real_time\": 1e-310, \"time_unit\": \"s\"}"), HasSubstr("real_time is below 1e-15 s"));
  // Not 0 as written, though it underflows to 0 s once scaled from ns.
  EXPECT_THAT(error("\"real_time\": 5e-324, \"time_unit\": \"ns\"}"),
              HasSubstr("real_time is below 1e-15 s (5e-324 in its unit)"));
  EXPECT_THAT(error("\"real_time\": 5, \"cpu_time\": -1}"), HasSubstr("cpu_time is negative (-1)"));
  // A zero time is "not timed": the workload is skipped, not refused.
  Result<Results> zero = GbenchFromJson(Doc("\"real_time\": 0}"), "b.json");
  ASSERT_TRUE(zero.ok()) << zero.error().message;
  EXPECT_EQ(zero->workloads[0].status, WorkloadStatus::kSkipped);
  // The fixed prefix of Doc sets iterations 10; a second "iterations" is a repeated key.
  EXPECT_THAT(error("\"iterations\": -4, \"real_time\": 5}"), HasSubstr("duplicate key 'iterations'"));
}

TEST(GbenchIngest, NamesMustBePrintableText) {
  auto error = [](const std::string& name) {
    Result<Results> r = GbenchFromJson(
        "{\"benchmarks\": [{\"name\": \"" + name + "\", \"real_time\": 5, \"iterations\": 1}]}", "n.json");
    EXPECT_FALSE(r.ok()) << name;
    return r.ok() ? std::string() : r.error().message;
  };
  EXPECT_EQ(error("BM_\\u001b[2J"),
            "n.json:1:26: benchmarks[0].name: a benchmark name must be printable text: control "
            "character U+001B at byte 3");
  EXPECT_THAT(error("BM_\\u202e"), HasSubstr("bidirectional control U+202E"));
  EXPECT_THAT(error("BM_\xff"), HasSubstr("invalid UTF-8 at byte 3"));
}

// Google Benchmark names an aggregate "<name>_stddev": a benchmark name
// within the 1024-byte limit gives aggregate rows past it. Aggregates beside
// iteration rows are not used, so their names do not fail the file; an
// aggregate that is used (no iteration rows) is checked as before.
TEST(GbenchIngest, UnusedAggregatesWithLongNamesDoNotFailTheFile) {
  const std::string base = "BM_" + std::string(1017, 'x');  // 1020 bytes
  auto row = [&](const std::string& name, const std::string& extra) {
    return "{\"name\": \"" + name + "\", \"run_name\": \"" + base + "\", " + extra +
           "\"iterations\": 10, \"real_time\": 5, \"cpu_time\": 5, \"time_unit\": \"ns\"}";
  };
  const std::string iteration = "\"run_type\": \"iteration\", \"repetitions\": 2, ";
  auto aggregate = [](const std::string& which) {
    return "\"run_type\": \"aggregate\", \"repetitions\": 2, \"aggregate_name\": \"" + which + "\", ";
  };
  const std::string aggregates = row(base + "_mean", aggregate("mean")) + ", " +
                                 row(base + "_median", aggregate("median")) + ", " +
                                 row(base + "_stddev", aggregate("stddev"));
  const std::string with_iterations =
      "{\"benchmarks\": [" + row(base, iteration + "\"repetition_index\": 0, ") + ", " +
      row(base, iteration + "\"repetition_index\": 1, ") + ", " + aggregates + "]}";
  Result<Results> r = GbenchFromJson(with_iterations, "long.json");
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->workloads.size(), 1u);
  EXPECT_EQ(r->workloads[0].name, base);
  EXPECT_EQ(r->workloads[0].rounds.size(), 2u);

  // Only aggregates (--benchmark_report_aggregates_only): they are the
  // benchmark's one sample, named by its run name, not by their labels.
  Result<Results> only = GbenchFromJson("{\"benchmarks\": [" + aggregates + "]}", "agg.json");
  ASSERT_TRUE(only.ok()) << only.error().message;
  ASSERT_EQ(only->workloads.size(), 1u);
  EXPECT_EQ(only->workloads[0].name, base);
  // Without a run name the label is the benchmark's name, and is checked.
  const std::string unnamed = "{\"benchmarks\": [{\"name\": \"" + base +
                              "_mean\", \"run_type\": \"aggregate\", \"aggregate_name\": \"mean\", "
                              "\"iterations\": 10, \"real_time\": 5, \"cpu_time\": 5, \"time_unit\": \"ns\"}]}";
  Result<Results> label = GbenchFromJson(unnamed, "label.json");
  ASSERT_FALSE(label.ok());
  EXPECT_THAT(label.error().message, HasSubstr("name: a benchmark name must be printable text: 1025 bytes long"));

  // The benchmark's own name stays checked on every row.
  const std::string too_long = "BM_" + std::string(1022, 'x');
  Result<Results> bad = GbenchFromJson(
      "{\"benchmarks\": [{\"name\": \"" + too_long + "_mean\", \"run_name\": \"" + too_long +
          "\", \"run_type\": \"aggregate\", \"aggregate_name\": \"mean\", \"real_time\": 5}]}",
      "run_name.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.error().message, HasSubstr("run_name: a benchmark name must be printable text: 1025 bytes"));

  // An old file's suffixed row that is no aggregate is a benchmark of its own name.
  Result<Results> old = GbenchFromJson(
      "{\"benchmarks\": [{\"name\": \"" + base + "_mean\", \"iterations\": 1, \"real_time\": 5}]}",
      "old.json");
  ASSERT_FALSE(old.ok());
  EXPECT_THAT(old.error().message, HasSubstr("1025 bytes long"));
}

}  // namespace
}  // namespace gpugate
