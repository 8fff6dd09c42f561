// Tests of the pytest-benchmark JSON reader on files made with the real tool
// (tests/data/pytest/textops_*.json, from examples/pytest; origin in
// tests/data/ORIGIN.md), on third-party files, and on literal documents.
//
// Expected numbers were read from the same files with Debian's Python:
//   /usr/bin/python3 -c "import json; d=json.load(open(F)); b=d['benchmarks'][I]['stats'];
//     print(b['rounds'], b['iterations'], repr(b['median']), repr(b['mean']),
//           repr(b['stddev']), repr(b.get('data', ['-'])[0]))"
// Malformed files are in tests/data/bad_ingest (bad_ingest_test.cc).
#include "ingest/pytest.h"

#include <cmath>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "compare/compare.h"
#include "util/fs.h"

namespace gpugate {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::string DataPath(const std::string& file) {
  return std::string(GPUGATE_SOURCE_DIR) + "/tests/data/pytest/" + file;
}

Results Load(const std::string& file) {
  Result<std::string> text = ReadFile(DataPath(file));
  EXPECT_TRUE(text.ok()) << file;
  if (!text.ok()) return Results{};
  Result<Results> r = PytestFromJson(*text, file);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return r.ok() ? *r : Results{};
}

Results Parse(const std::string& text) {
  Result<Results> r = PytestFromJson(text, "p.json");
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return r.ok() ? *r : Results{};
}

double Counter(const WorkloadResult& w, const std::string& key) {
  auto it = w.counters.find(key);
  return it == w.counters.end() ? -12345.0 : it->second;
}

TEST(PytestIngest, RawRoundTimesAreOneRoundOfSamples) {
  Results r = Load("textops_base.json");
  EXPECT_EQ(r.run.source_format, "pytest");
  EXPECT_EQ(r.run.suite, "textops");  // commit_info.project, not the file name
  ASSERT_EQ(r.workloads.size(), 6u);
  const char* names[] = {"test_sort_words",  "test_split_text",   "test_count_letters",
                         "test_join_words",  "test_set_of_words", "test_word_lookup"};
  const size_t rounds[] = {13, 44, 5, 123, 45, 1524};
  for (size_t i = 0; i < 6; ++i) {
    const WorkloadResult& w = r.workloads[i];
    SCOPED_TRACE(w.name);
    EXPECT_EQ(w.name, std::string("test_textops.py::") + names[i]);
    EXPECT_EQ(w.kind, "pytest");
    EXPECT_EQ(w.backend, "ingest");
    EXPECT_TRUE(HasTimeMetric(w));
    ASSERT_EQ(w.rounds.size(), 1u);  // one process
    EXPECT_EQ(w.rounds[0].size(), rounds[i]);
    EXPECT_EQ(w.counters.count("only_summary"), 0u);
  }
  const WorkloadResult& sort = r.workloads[0];
  EXPECT_EQ(sort.rounds[0][0], 0.0007603400008520111);
  EXPECT_EQ(sort.rounds[0].back(), 0.0007043759997031884);
  EXPECT_EQ(sort.iterations_per_sample, 1);
  // The median over the raw values is pytest-benchmark's own.
  EXPECT_DOUBLE_EQ(sort.summary.median, 0.0007224399996630382);
}

TEST(PytestIngest, DataIsAlreadyPerCallWhenRoundsTimeSeveralCalls) {
  // test_word_lookup ran 100 calls per round; pytest-benchmark stores each
  // round's time divided by 100, so the values are taken as they are.
  Results r = Load("textops_base.json");
  const WorkloadResult& w = r.workloads[5];
  EXPECT_EQ(w.iterations_per_sample, 100);
  EXPECT_EQ(w.rounds[0][0], 7.082999218255281e-08);
  EXPECT_DOUBLE_EQ(w.summary.median, 7.553999239462428e-08);
}

TEST(PytestIngest, EnvironmentAndDateFromTheFile) {
  Results r = Load("textops_base.json");
  EXPECT_EQ(r.run.env.host, "vm");
  EXPECT_EQ(r.run.env.os, "Linux 6.18.44-fc-v657 x86_64");
  EXPECT_EQ(r.run.env.cpu_model, "AMD EPYC");
  // datetime.utcnow().isoformat(): UTC without a zone.
  EXPECT_EQ(r.run.time_utc, "2026-11-23T22:50:49Z");
  EXPECT_EQ(r.run.time_unix_ns, 1795474249032658000);
  EXPECT_EQ(r.run.source_context.at("pytest_benchmark_version"), "3.2.2");
  EXPECT_EQ(r.run.source_context.at("machine_info.python_version"), "3.11.2");
  EXPECT_EQ(r.run.source_context.at("commit_info.id"), "unversioned");
  // Outside a repository: no commit, no branch.
  EXPECT_FALSE(r.run.git_sha.has_value());
  EXPECT_FALSE(r.run.git_branch.has_value());
  EXPECT_FALSE(r.run.git_dirty.has_value());
}

TEST(PytestIngest, SavedFileWithoutDataGivesTheMedianAndItsReportedNoise) {
  Results r = Load("textops_base_saved.json");
  ASSERT_EQ(r.workloads.size(), 6u);
  const WorkloadResult& sort = r.workloads[0];
  EXPECT_EQ(sort.rounds, (std::vector<std::vector<double>>{{0.0007224399996630382}}));
  EXPECT_EQ(Counter(sort, "only_summary"), 1);
  EXPECT_EQ(Counter(sort, "single_sample"), 1);
  EXPECT_EQ(Counter(sort, "sample_size"), 13);
  EXPECT_DOUBLE_EQ(Counter(sort, "stdev_rel"), 0.003068099837381844 / 0.001979060231091213);
  EXPECT_EQ(Counter(sort, "mean"), 0.001979060231091213);
  EXPECT_EQ(Counter(sort, "stddev"), 0.003068099837381844);
  const WorkloadResult& lookup = r.workloads[5];
  EXPECT_EQ(lookup.iterations_per_sample, 100);
  EXPECT_EQ(Counter(lookup, "sample_size"), 1524);
}

TEST(PytestIngest, SummariesAreJudgedWithTheirReportedNoise) {
  // No zero-width interval from one value per side: the Welch t on the two
  // medians uses stddev / mean over the rounds of each file.
  Verdicts v = Compare({Load("textops_base_saved.json")}, Load("textops_slow_saved.json"),
                       DefaultPolicy(), CompareOptions{});
  int tested = 0;
  for (const MetricVerdict& m : v.metrics) {
    if (m.workload == kCommonWorkload) continue;
    SCOPED_TRACE(m.workload);
    EXPECT_NE(m.reason, Reason::kNoReplication);
    ASSERT_TRUE(m.ci_low && m.ci_high);
    EXPECT_LT(*m.ci_low, *m.ci_high);
    EXPECT_THAT(m.sentence, HasSubstr("one summary per side"));
    ++tested;
  }
  EXPECT_EQ(tested, 6);
}

// pytest-benchmark 2.5.0 saved a stddev of 0 over 11009 rounds whose min
// and max differ: its one value has no noise, and the sentence says why
// rather than "without repetitions".
TEST(PytestIngest, ASummaryStatingNoSpreadIsSaidSo) {
  Results base = Load("textops_base_saved.json");
  Results cur = Load("textops_slow_saved.json");
  WorkloadResult& w = cur.workloads[0];
  w.counters["stdev_rel"] = 0;
  w.counters["stddev"] = 0;
  Verdicts v = Compare({base}, cur, DefaultPolicy(), CompareOptions{});
  const MetricVerdict* m = nullptr;
  for (const MetricVerdict& x : v.metrics)
    if (x.workload == w.name && x.metric == "time") m = &x;
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->reason, Reason::kNoReplication);
  EXPECT_THAT(m->sentence, HasSubstr("the current run summarises 10 samples but states a spread of 0 although its "
                                     "min and max differ: no noise can be measured"));
  EXPECT_THAT(m->sentence, Not(HasSubstr("without repetitions")));
  // A file that states no spread at all is not said to state 0.
  w.counters.erase("stdev_rel");
  w.counters.erase("stddev");
  Verdicts none = Compare({base}, cur, DefaultPolicy(), CompareOptions{});
  for (const MetricVerdict& x : none.metrics) {
    if (x.workload == w.name && x.metric == "time") {
      EXPECT_THAT(x.sentence, HasSubstr("summarises 10 samples but states no spread although"));
    }
  }
}

TEST(PytestIngest, TruncatedThirdPartyDataIsAnError) {
  // github-action-benchmark keeps 4 of 38523 rounds and a note in "data".
  Result<std::string> text = ReadFile(DataPath("github-action-benchmark_pytest_output.json"));
  ASSERT_TRUE(text.ok());
  Result<Results> r = PytestFromJson(*text, "gab.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ExitCode::kInputError);
  EXPECT_EQ(r.error().message,
            "gab.json:63:25: benchmarks[0].stats.data: holds 5 values but stats.rounds is 38523 "
            "(a truncated or edited file?)");
}

TEST(PytestIngest, ThirdPartyStatsWithoutTheirDataAreRead) {
  // The same file with its edited "data" removed: the 2019 layout, macOS, a
  // git commit.
  Result<std::string> text = ReadFile(DataPath("github-action-benchmark_pytest_several_units.json"));
  ASSERT_TRUE(text.ok());
  std::string t = *text;
  for (size_t at = t.find("\"data\": ["); at != std::string::npos; at = t.find("\"data\": [")) {
    const size_t end = t.find(']', at);
    t.erase(at, end + 2 - at);  // the array and its trailing comma
  }
  Results r = Parse(t);
  ASSERT_EQ(r.workloads.size(), 4u);
  EXPECT_EQ(r.workloads[0].name, "bench.py::test_fib_1");
  EXPECT_EQ(r.workloads[0].iterations_per_sample, 100);
  EXPECT_EQ(r.workloads[0].rounds[0][0], 1.437600000020467e-07);
  EXPECT_EQ(r.workloads[3].rounds[0][0], 2.005124842999999);
  EXPECT_EQ(Counter(r.workloads[3], "sample_size"), 5);
  EXPECT_EQ(r.run.env.os, "Darwin 16.7.0 x86_64");
  EXPECT_EQ(r.run.env.cpu_model, "Intel(R) Core(TM) i5-5257U CPU @ 2.70GHz");
  EXPECT_EQ(r.run.git_sha, "b8e9e2af2493a1ee2f3fa758a9572cd9972e6db7");
  EXPECT_EQ(r.run.git_branch, "master");
  EXPECT_EQ(r.run.git_dirty, true);
}

TEST(PytestIngest, ParamsGroupsExtraInfoAndBenchmarksWithoutStats) {
  Results r = Parse(R"json({
    "machine_info": {"node": "h", "cpu": {"brand_raw": "Raw CPU", "brand": "old", "count": 8}},
    "commit_info": {"id": "0123456789abcdef0123456789abcdef01234567", "dirty": false,
                    "branch": "(detached head)"},
    "benchmarks": [
      {"name": "test_p[10-fast]", "fullname": "t.py::test_p[10-fast]", "group": "parse",
       "params": {"n": 10, "mode": "fast", "on": true, "obj": {"x": 1}},
       "extra_info": {"bytes": 4096, "note": "text"},
       "stats": {"median": 0.5, "mean": 0.5, "stddev": 0, "rounds": 1, "data": [0.5]}},
      {"name": "test_error", "stats": null},
      {"name": "test_zero", "stats": {"median": 0, "rounds": 5}}
    ],
    "datetime": "2026-01-02T03:04:05+00:00"
  })json");
  EXPECT_EQ(r.run.env.cpu_model, "Raw CPU");
  EXPECT_EQ(r.run.env.cpu_cores, 8);
  EXPECT_EQ(r.run.git_sha, "0123456789abcdef0123456789abcdef01234567");
  EXPECT_EQ(r.run.git_dirty, false);
  EXPECT_FALSE(r.run.git_branch.has_value());
  EXPECT_EQ(r.run.time_utc, "2026-01-02T03:04:05Z");
  ASSERT_EQ(r.workloads.size(), 3u);
  const WorkloadResult& p = r.workloads[0];
  EXPECT_EQ(p.name, "t.py::test_p[10-fast]");
  EXPECT_EQ(p.params, (std::vector<std::pair<std::string, std::string>>{
                          {"n", "10"}, {"mode", "fast"}, {"on", "true"}}));
  EXPECT_EQ(p.tags, std::vector<std::string>{"group:parse"});
  EXPECT_EQ(Counter(p, "extra_info/bytes"), 4096);
  EXPECT_EQ(p.counters.count("extra_info/note"), 0u);
  EXPECT_EQ(Counter(p, "single_sample"), 1);  // one round in the data
  EXPECT_EQ(r.workloads[1].name, "test_error");  // no fullname: the name
  EXPECT_EQ(r.workloads[1].status, WorkloadStatus::kSkipped);
  EXPECT_THAT(r.workloads[1].reason, HasSubstr("no stats"));
  EXPECT_EQ(r.workloads[2].status, WorkloadStatus::kSkipped);
  EXPECT_THAT(r.workloads[2].reason, HasSubstr("median is 0"));
}

TEST(PytestIngest, LongDataArraysAreRead) {
  std::string data;
  const int n = 1000000;
  data.reserve(static_cast<size_t>(n) * 8);
  for (int i = 0; i < n; ++i) data += (i ? ",1e-" : "1e-") + std::to_string(3 + i % 3);
  Results r = Parse(R"({"machine_info": {}, "benchmarks": [{"name": "big", "stats": {"median": 1e-4, "rounds": )" +
                    std::to_string(n) + ", \"data\": [" + data + "]}}]}");
  ASSERT_EQ(r.workloads.size(), 1u);
  EXPECT_EQ(r.workloads[0].rounds[0].size(), static_cast<size_t>(n));
  EXPECT_EQ(r.workloads[0].summary.median, 1e-4);
}

TEST(PytestIngest, NotAnObjectOrNoBenchmarks) {
  Result<Results> array = PytestFromJson("[1]", "p.json");
  ASSERT_FALSE(array.ok());
  EXPECT_EQ(array.error().message,
            "p.json:1:1: document: expected an object with \"machine_info\" and \"benchmarks\", "
            "got array");
  Result<Results> none = PytestFromJson(R"({"machine_info": {}})", "p.json");
  ASSERT_FALSE(none.ok());
  EXPECT_THAT(none.error().message, HasSubstr("missing \"benchmarks\" array"));
  EXPECT_TRUE(Parse(R"({"machine_info": {}, "benchmarks": []})").workloads.empty());
}

}  // namespace
}  // namespace gpugate
