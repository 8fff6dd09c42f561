// Tests of the results file (`gpugate/results/v1`): exact round-trip of every
// field, version checks, type errors pointing at line:col, sample validation,
// forward compatibility (unknown keys, missing optional fields).
#include "model/results_json.h"
#include "model/limits.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <set>
#include <string>

#include "util/fs.h"
#include "util/json.h"

namespace gpugate {
namespace {

// Bitwise equality, so -0.0 vs 0.0 and the last ulp are checked too.
void ExpectSameDouble(double a, double b, const std::string& what) {
  uint64_t x, y;
  std::memcpy(&x, &a, sizeof x);
  std::memcpy(&y, &b, sizeof y);
  EXPECT_EQ(x, y) << what << ": " << a << " vs " << b;
}

void ExpectSameOptionalDouble(const std::optional<double>& a, const std::optional<double>& b,
                              const std::string& what) {
  ASSERT_EQ(a.has_value(), b.has_value()) << what;
  if (a) ExpectSameDouble(*a, *b, what);
}

void ExpectSameMap(const std::map<std::string, double>& a, const std::map<std::string, double>& b,
                   const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (auto ia = a.begin(), ib = b.begin(); ia != a.end(); ++ia, ++ib) {
    EXPECT_EQ(ia->first, ib->first) << what;
    ExpectSameDouble(ia->second, ib->second, what + "." + ia->first);
  }
}

void ExpectSameResults(const Results& a, const Results& b) {
  EXPECT_EQ(a.schema, b.schema);
  const RunInfo& ra = a.run;
  const RunInfo& rb = b.run;
  EXPECT_EQ(ra.tool_version, rb.tool_version);
  EXPECT_EQ(ra.suite, rb.suite);
  EXPECT_EQ(ra.time_utc, rb.time_utc);
  EXPECT_EQ(ra.time_unix_ns, rb.time_unix_ns);
  EXPECT_EQ(ra.git_sha, rb.git_sha);
  EXPECT_EQ(ra.git_branch, rb.git_branch);
  EXPECT_EQ(ra.git_dirty, rb.git_dirty);
  EXPECT_EQ(ra.shard, rb.shard);
  EXPECT_EQ(ra.run_id, rb.run_id);
  EXPECT_EQ(ra.source_format, rb.source_format);
  EXPECT_EQ(ra.source_context, rb.source_context);
  const Environment& ea = ra.env;
  const Environment& eb = rb.env;
  EXPECT_EQ(ea.host, eb.host);
  EXPECT_EQ(ea.os, eb.os);
  EXPECT_EQ(ea.cpu_model, eb.cpu_model);
  EXPECT_EQ(ea.cpu_cores, eb.cpu_cores);
  EXPECT_EQ(ea.cpu_governor, eb.cpu_governor);
  EXPECT_EQ(ea.compiler, eb.compiler);
  const GpuInfo& ga = ea.gpu;
  const GpuInfo& gb = eb.gpu;
  EXPECT_EQ(ga.name, gb.name);
  EXPECT_EQ(ga.driver_version, gb.driver_version);
  EXPECT_EQ(ga.cuda_version, gb.cuda_version);
  EXPECT_EQ(ga.compute_capability, gb.compute_capability);
  EXPECT_EQ(ga.device_index, gb.device_index);
  EXPECT_EQ(ga.sm_count, gb.sm_count);
  ExpectSameOptionalDouble(ga.sm_clock_hz, gb.sm_clock_hz, "sm_clock_hz");
  ExpectSameOptionalDouble(ga.mem_clock_hz, gb.mem_clock_hz, "mem_clock_hz");
  EXPECT_EQ(ga.memory_bytes, gb.memory_bytes);
  EXPECT_EQ(ga.l2_bytes, gb.l2_bytes);
  EXPECT_EQ(ga.ecc_enabled, gb.ecc_enabled);
  EXPECT_EQ(ga.mig_enabled, gb.mig_enabled);
  EXPECT_EQ(ga.uuid, gb.uuid);
  EXPECT_EQ(ga.persistence_mode, gb.persistence_mode);
  ExpectSameOptionalDouble(ga.power_limit_w, gb.power_limit_w, "power_limit_w");

  ASSERT_EQ(a.workloads.size(), b.workloads.size());
  for (size_t i = 0; i < a.workloads.size(); ++i) {
    const WorkloadResult& wa = a.workloads[i];
    const WorkloadResult& wb = b.workloads[i];
    SCOPED_TRACE("workload " + wa.name);
    EXPECT_EQ(wa.name, wb.name);
    EXPECT_EQ(wa.kind, wb.kind);
    EXPECT_EQ(wa.backend, wb.backend);
    EXPECT_EQ(wa.params, wb.params);
    EXPECT_EQ(wa.tags, wb.tags);
    EXPECT_EQ(wa.status, wb.status);
    EXPECT_EQ(wa.reason, wb.reason);
    ASSERT_EQ(wa.rounds.size(), wb.rounds.size());
    for (size_t r = 0; r < wa.rounds.size(); ++r) {
      ASSERT_EQ(wa.rounds[r].size(), wb.rounds[r].size());
      for (size_t s = 0; s < wa.rounds[r].size(); ++s)
        ExpectSameDouble(wa.rounds[r][s], wb.rounds[r][s], "sample");
    }
    EXPECT_EQ(wa.iterations_per_sample, wb.iterations_per_sample);
    EXPECT_EQ(wa.warmup, wb.warmup);
    EXPECT_EQ(wa.notes, wb.notes);
    EXPECT_EQ(wa.metric, wb.metric);
    EXPECT_EQ(wa.unit, wb.unit);
    EXPECT_EQ(wa.lower_is_better, wb.lower_is_better);
    EXPECT_EQ(wa.deterministic, wb.deterministic);
    const Summary& sa = wa.summary;
    const Summary& sb = wb.summary;
    EXPECT_EQ(sa.n, sb.n);
    ExpectSameDouble(sa.median, sb.median, "median");
    ExpectSameDouble(sa.mean, sb.mean, "mean");
    ExpectSameDouble(sa.min, sb.min, "min");
    ExpectSameDouble(sa.max, sb.max, "max");
    ExpectSameDouble(sa.stddev, sb.stddev, "stddev");
    ExpectSameDouble(sa.mad, sb.mad, "mad");
    ExpectSameDouble(sa.p5, sb.p5, "p5");
    ExpectSameDouble(sa.p95, sb.p95, "p95");
    ExpectSameDouble(sa.cv, sb.cv, "cv");
    ExpectSameDouble(sa.rel_ci_half_width, sb.rel_ci_half_width, "rel_ci_half_width");
    EXPECT_EQ(wa.work.bytes, wb.work.bytes);
    ExpectSameOptionalDouble(wa.work.flops, wb.work.flops, "flops");
    EXPECT_EQ(wa.work.items, wb.work.items);
    ExpectSameOptionalDouble(wa.bytes_per_second, wb.bytes_per_second, "bytes_per_second");
    ExpectSameOptionalDouble(wa.flops_per_second, wb.flops_per_second, "flops_per_second");
    EXPECT_EQ(wa.peak_memory_bytes, wb.peak_memory_bytes);
    ExpectSameOptionalDouble(wa.user_seconds, wb.user_seconds, "user_seconds");
    ExpectSameOptionalDouble(wa.sys_seconds, wb.sys_seconds, "sys_seconds");
    ASSERT_EQ(wa.cycles.size(), wb.cycles.size());
    for (size_t r = 0; r < wa.cycles.size(); ++r) {
      ASSERT_EQ(wa.cycles[r].size(), wb.cycles[r].size());
      for (size_t s = 0; s < wa.cycles[r].size(); ++s)
        ExpectSameDouble(wa.cycles[r][s], wb.cycles[r][s], "cycles");
    }
    ASSERT_EQ(wa.clocks.size(), wb.clocks.size());
    for (size_t c = 0; c < wa.clocks.size(); ++c) {
      EXPECT_EQ(wa.clocks[c].round, wb.clocks[c].round);
      ExpectSameDouble(wa.clocks[c].sm_clock_hz, wb.clocks[c].sm_clock_hz, "clock");
      ExpectSameOptionalDouble(wa.clocks[c].temperature_c, wb.clocks[c].temperature_c, "temp");
      ExpectSameOptionalDouble(wa.clocks[c].power_w, wb.clocks[c].power_w, "power");
      EXPECT_EQ(wa.clocks[c].throttle_reasons, wb.clocks[c].throttle_reasons);
    }
    EXPECT_EQ(wa.throttled, wb.throttled);
    ASSERT_EQ(wa.kernels.size(), wb.kernels.size());
    for (size_t k = 0; k < wa.kernels.size(); ++k) {
      EXPECT_EQ(wa.kernels[k].name, wb.kernels[k].name);
      EXPECT_EQ(wa.kernels[k].count, wb.kernels[k].count);
      ExpectSameDouble(wa.kernels[k].total_s, wb.kernels[k].total_s, "total_s");
      ASSERT_EQ(wa.kernels[k].durations_s.size(), wb.kernels[k].durations_s.size());
      for (size_t d = 0; d < wa.kernels[k].durations_s.size(); ++d)
        ExpectSameDouble(wa.kernels[k].durations_s[d], wb.kernels[k].durations_s[d], "duration");
      ExpectSameMap(wa.kernels[k].metrics, wb.kernels[k].metrics, "metrics");
      EXPECT_EQ(wa.kernels[k].attributes, wb.kernels[k].attributes);
    }
    ExpectSameMap(wa.counters, wb.counters, "counters");
    EXPECT_EQ(wa.confirmation_reruns, wb.confirmation_reruns);
    EXPECT_EQ(wa.code_unchanged, wb.code_unchanged);
  }
}

/// Every field set to a non-default value, plus a second workload whose
/// optional fields are all empty.
Results FullResults() {
  Results r;
  RunInfo& run = r.run;
  run.tool_version = "0.1.0";
  run.suite = "cpu";
  run.time_utc = "2026-11-21T23:59:00Z";
  run.time_unix_ns = 1795305540123456789;  // not representable as a double
  run.git_sha = "0123456789abcdef0123456789abcdef01234567";
  run.git_branch = "feature/\xC3\xBC";
  run.git_dirty = true;
  run.shard = "2/4";
  run.run_id = "7c9e6679f4b14b6c9d4e0a1b2c3d4e5f";
  run.source_format = "gbench";
  run.source_context = {{"library_build_type", "release"}, {"mhz_per_cpu", "2200"}};
  Environment& env = run.env;
  env.host = "ci-runner-7";
  env.os = "Linux 6.1.0-26-amd64 x86_64";
  env.cpu_model = "Intel(R) Xeon(R) CPU @ 2.20GHz";
  env.cpu_cores = 64;
  env.cpu_governor = "performance";
  env.compiler = "GNU 12.2.0";
  GpuInfo& gpu = env.gpu;
  gpu.name = "NVIDIA A100-SXM4-80GB";
  gpu.driver_version = "550.54.15";
  gpu.cuda_version = "13.0";
  gpu.compute_capability = "8.0";
  gpu.device_index = 1;
  gpu.sm_count = 108;
  gpu.sm_clock_hz = 1.41e9;
  gpu.mem_clock_hz = 1.593e9;
  gpu.memory_bytes = 85899345920;
  gpu.l2_bytes = 41943040;
  gpu.ecc_enabled = true;
  gpu.mig_enabled = false;
  gpu.uuid = "GPU-3b3f6a2e-0c51-4e4b-9d1e-8f6a1d2c3b4a";
  gpu.persistence_mode = true;
  gpu.power_limit_w = 400.0;

  WorkloadResult& w = r.workloads.emplace_back();
  w.name = "saxpy/n=16M";
  w.kind = "builtin";
  w.backend = "cuda";
  w.params = {{"n", "16M"}, {"a", "2"}};  // declared order, not sorted
  w.tags = {"gpu", "blas1"};
  w.status = WorkloadStatus::kFailed;
  w.reason = "exit 3: \"oops\"\n\ttail \xE2\x82\xAC";
  w.notes = {"ended 2 processes the workload left behind (pids 123, 130)", "round 2: \"x\"\n\xE2\x82\xAC"};
  // The bounds of a time (model/limits.h) round-trip exactly too.
  w.rounds = {{1.25e-3, 0.1 + 0.2, 1e-15, std::nextafter(1e9, 0.0)},
              {},
              {std::nextafter(1.0, 2.0), 123456.789e-9, 2.0}};
  w.iterations_per_sample = 8;
  w.warmup = 5;
  w.summary = {7, 0.00125, 0.2222, 0.0, 1.0000000000000002, 0.41, 0.0125,
               1e-10, 0.99, 1.85, 0.031};
  w.work.bytes = 201326592;
  w.work.flops = 3.3554432e7;
  w.work.items = 16777216;
  w.bytes_per_second = 1.6106127360000001e11;
  w.flops_per_second = 2.68435456e10;
  w.peak_memory_bytes = 123456789012;
  w.user_seconds = 0.0125;
  w.sys_seconds = 0.003;
  w.clocks = {ClockReading{0, 1.41e9, 61.5, 312.25, "sw_thermal"},
              ClockReading{1, 1.395e9, std::nullopt, std::nullopt, std::nullopt}};
  w.cycles = {{1762500.0, 0.0}, {1.5e6 + 0.25}};
  w.throttled = true;
  KernelResult k;
  k.name = "void saxpy<float>(int, float, float const*, float*)";
  k.count = 3;
  k.total_s = 3.75e-4;
  k.durations_s = {1.25e-4, 1.2e-4, 1.3e-4};
  k.launch_groups = {7, 7, 4294967295u};
  k.metrics = {{"registers", 32}, {"shared_mem_bytes", 0}};
  k.regime = RegimeInfo{"compute-bound", 2.5, 0.75, "Test GPU"};
  w.kernels.push_back(k);
  w.kernels.push_back(KernelResult{"memset", 1, 1e-6, {}, {}, {}, {}, {}});
  KernelResult st;
  st.name = "heavy(float const*, float*, int)@sm_90";
  st.metrics = {{"registers_per_thread", 40}, {"sass_instructions", 768}};
  st.attributes = {{"sass_hash", "0x55fdfb6b06ea8e91"}, {"occupancy_limiter", "registers"}, {"weird \"key\"", "v\n"}};
  w.kernels.push_back(st);
  w.code_unchanged = true;
  w.regime = RegimeInfo{"memory-bound", std::nullopt, 1.25, "Test GPU"};
  w.counters = {{"cache_misses", 1234.5}, {"ipc", 1.75}, {"weird key \"x\"", -1}};
  w.confirmation_reruns = 2;

  WorkloadResult& s = r.workloads.emplace_back();
  s.name = "sgemm/blocked";
  s.kind = "synthetic";
  s.backend = "synthetic";
  s.status = WorkloadStatus::kSkipped;
  s.reason = "no GPU";
  s.metric = "instructions";
  s.unit = "instructions";
  s.lower_is_better = false;
  s.deterministic = true;
  return r;
}

TEST(ResultsJson, RoundTripKeepsEveryFieldExactly) {
  const Results in = FullResults();
  const std::string text = ResultsToJson(in);
  Result<Results> out = ResultsFromJson(text, "r.json");
  ASSERT_TRUE(out.ok()) << out.error().message;
  ExpectSameResults(in, *out);
  // Writing again gives the same bytes.
  EXPECT_EQ(ResultsToJson(*out), text);
}

// A custom benchmark's time in a unit written as a word ("msec") was kept
// as metric "value" in that unit before such units were read as times: read
// back, it is the time it measured, in seconds, so a kept baseline compares
// with a run read now. Other units stay as they are.
TEST(ResultsJson, AKeptCustomValueInATimeWordIsReadAsTheTimeItMeasured) {
  Results in;
  in.run.run_id = "old";
  for (const char* unit : {"msec", "ops/sec"}) {
    WorkloadResult& w = in.workloads.emplace_back();
    w.name = std::string("b ") + unit;
    w.kind = "custom";
    w.backend = "ingest";
    w.metric = "value";
    w.unit = unit;
    w.lower_is_better = false;
    w.rounds = {{1500.0}};
    w.summary.median = w.summary.mean = w.summary.min = w.summary.max = 1500.0;
    w.summary.n = 1;
    w.counters["range"] = 20.0;
  }
  Result<Results> out = ResultsFromJson(ResultsToJson(in), "old.json");
  ASSERT_TRUE(out.ok()) << out.error().message;
  const WorkloadResult& time = out->workloads[0];
  EXPECT_EQ(time.metric, "time");
  EXPECT_EQ(time.unit, "s");
  EXPECT_TRUE(time.lower_is_better);
  EXPECT_DOUBLE_EQ(time.rounds[0][0], 1.5);
  EXPECT_DOUBLE_EQ(time.summary.median, 1.5);
  EXPECT_DOUBLE_EQ(time.counters.at("range"), 0.02);
  const WorkloadResult& rate = out->workloads[1];
  EXPECT_EQ(rate.metric, "value");
  EXPECT_EQ(rate.unit, "ops/sec");
  EXPECT_FALSE(rate.lower_is_better);
  EXPECT_DOUBLE_EQ(rate.rounds[0][0], 1500.0);
  // A kept value no time can be stays a value: read as 2e9 s, the history
  // holding it was written and then refused.
  Results huge = in;
  huge.workloads.resize(1);
  huge.workloads[0].unit = "sec";
  huge.workloads[0].rounds = {{2e9}};
  Result<Results> kept = ResultsFromJson(ResultsToJson(huge), "old.json");
  ASSERT_TRUE(kept.ok()) << kept.error().message;
  EXPECT_EQ(kept->workloads[0].metric, "value");
  EXPECT_DOUBLE_EQ(kept->workloads[0].rounds[0][0], 2e9);
  Result<Results> again = ResultsFromJson(ResultsToJson(*kept), "old.json");
  EXPECT_TRUE(again.ok()) << again.error().message;
  huge.workloads[0].rounds = {{0.0}};  // a kept 0 is no time either
  Result<Results> zero = ResultsFromJson(ResultsToJson(huge), "old.json");
  ASSERT_TRUE(zero.ok()) << zero.error().message;
  EXPECT_EQ(zero->workloads[0].metric, "value");
  EXPECT_TRUE(ResultsFromJson(ResultsToJson(*zero), "old.json").ok());
}

TEST(ResultsJson, EmptyOptionalsAreWrittenAsNullAndReadBackEmpty) {
  Results in = FullResults();
  in.run.git_sha.reset();
  in.run.git_branch.reset();
  in.run.git_dirty.reset();
  in.run.shard.reset();
  in.run.env.cpu_governor.reset();
  in.run.env.gpu = GpuInfo{};
  const std::string text = ResultsToJson(in);
  EXPECT_NE(text.find("\"git_sha\": null"), std::string::npos);
  EXPECT_NE(text.find("\"cpu_governor\": null"), std::string::npos);
  // The GPU fields are present and null without a GPU.
  for (const char* key : {"driver_version", "compute_capability", "sm_count", "memory_bytes",
                          "ecc_enabled", "mig_enabled", "uuid", "persistence_mode", "power_limit_w"}) {
    EXPECT_NE(text.find(std::string("\"") + key + "\": null"), std::string::npos) << key;
  }
  EXPECT_NE(text.find("\"bytes_per_second\": null"), std::string::npos);
  Result<Results> out = ResultsFromJson(text, "r.json");
  ASSERT_TRUE(out.ok()) << out.error().message;
  ExpectSameResults(in, *out);
}

// One schema convention: the file names itself in "schema" and nowhere else.
TEST(ResultsJson, StartsWithItsSchemaAlone) {
  const std::string text = ResultsToJson(Results{});
  const std::string head =
      "{\n"
      "  \"schema\": \"gpugate/results/v1\",\n"
      "  \"run\": {\n";
  EXPECT_EQ(text.substr(0, head.size()), head);
  // A minor version in the schema, or an older file's "version" object.
  Results named;
  named.run.run_id = "r1";
  const std::string whole = ResultsToJson(named);
  const std::string body = whole.substr(whole.find("\"run\""));
  auto read = [&](const std::string& top) { return ResultsFromJson("{" + top + ", " + body, "r.json"); };
  auto v14 = read("\"schema\": \"gpugate/results/v1.4\"");
  ASSERT_TRUE(v14.ok()) << v14.error().message;
  EXPECT_FALSE(v14->newer_minor);
  auto v15 = read("\"schema\": \"gpugate/results/v1.5\"");
  ASSERT_TRUE(v15.ok()) << v15.error().message;
  EXPECT_TRUE(v15->newer_minor);
  auto legacy = read("\"schema\": \"gpugate/results/v1\", \"version\": {\"major\": 1, \"minor\": 9}");
  ASSERT_TRUE(legacy.ok()) << legacy.error().message;
  EXPECT_TRUE(legacy->newer_minor);
  for (const char* bad : {"gpugate/results/v1.", "gpugate/results/v1.x", "gpugate/results/v+1", "gpugate/results/v"}) {
    auto r = read("\"schema\": \"" + std::string(bad) + "\"");
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.error().message.find("unsupported results schema '" + std::string(bad) + "' (this gpugate reads v1)"),
              std::string::npos)
        << r.error().message;
  }
}

TEST(ResultsJson, SamplesAreWrittenOnOneLinePerWorkload) {
  Results r;
  WorkloadResult& w = r.workloads.emplace_back();
  w.name = "w";
  w.rounds = {{0.5, 0.25}, {0.125}};
  const std::string text = ResultsToJson(r);
  EXPECT_NE(text.find("\"rounds\": [[0.5, 0.25], [0.125]],\n"), std::string::npos) << text;
}

TEST(ResultsJson, NanAndInfinityAreNeverWritten) {
  Results r = FullResults();
  WorkloadResult& w = r.workloads[0];
  w.summary.cv = std::numeric_limits<double>::quiet_NaN();
  w.summary.rel_ci_half_width = std::numeric_limits<double>::infinity();
  w.bytes_per_second = std::numeric_limits<double>::quiet_NaN();
  w.counters["inf"] = -std::numeric_limits<double>::infinity();
  const std::string text = ResultsToJson(r);
  EXPECT_EQ(text.find("NaN"), std::string::npos);
  EXPECT_EQ(text.find("nan"), std::string::npos);
  EXPECT_EQ(text.find("Inf"), std::string::npos);
  EXPECT_NE(text.find("\"cv\": null"), std::string::npos);
  Result<Results> out = ResultsFromJson(text, "r.json");
  ASSERT_TRUE(out.ok()) << out.error().message;
  // A required double written as null reads back as NaN; an optional as empty.
  EXPECT_TRUE(std::isnan(out->workloads[0].summary.cv));
  EXPECT_TRUE(std::isnan(out->workloads[0].summary.rel_ci_half_width));
  EXPECT_FALSE(out->workloads[0].bytes_per_second.has_value());
  EXPECT_TRUE(std::isnan(out->workloads[0].counters.at("inf")));
}

// A negative throughput is no throughput: refused where it stands (a
// history would read -1000 to -500 as a step of -50%).
TEST(ResultsJson, ANegativeRateIsRefusedWithItsPlace) {
  Results r = FullResults();
  r.workloads[0].bytes_per_second = -1000.0;
  Result<Results> out = ResultsFromJson(ResultsToJson(r), "r.json");
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.error().message.find("r.json:"), std::string::npos) << out.error().message;
  EXPECT_NE(out.error().message.find("workloads[0].bytes_per_second"), std::string::npos) << out.error().message;
  EXPECT_NE(out.error().message.find("negative"), std::string::npos) << out.error().message;
}

TEST(ResultsJson, InvalidUtf8InStringsIsRepaired) {
  Results r = FullResults();
  r.workloads[0].reason = "stderr: \xFF\xFE bad";
  Result<Results> out = ResultsFromJson(ResultsToJson(r), "r.json");
  ASSERT_TRUE(out.ok()) << out.error().message;
  EXPECT_EQ(out->workloads[0].reason, "stderr: \xEF\xBF\xBD\xEF\xBF\xBD bad");
}

// The writer repairs invalid UTF-8, so two keys that differ only there
// would be written as one key twice (params and counters of an ingested
// program were, and every reader then refused the file `run` had written):
// such results, and a key given twice, are refused before anything is
// written, with the workload and the key.
TEST(ResultsJson, ResultsWhoseKeysWouldRepeatAreNotWritten) {
  char tmpl[] = "/tmp/gpugate_results_json_XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  const std::string path = std::string(tmpl) + "/r.json";
  Results r = FullResults();
  EXPECT_FALSE(RepeatedKeyProblem(r).has_value());
  r.workloads[0].counters["a\xFF"] = 1;
  r.workloads[0].counters["a\xFE"] = 2;
  std::optional<std::string> problem = RepeatedKeyProblem(r);
  ASSERT_TRUE(problem.has_value());
  EXPECT_EQ(*problem, "workload '" + r.workloads[0].name +
                          "': counters: two entries would be written under one key 'a\xEF\xBF\xBD' (a key is "
                          "written as valid UTF-8), which every reader refuses");
  Status st = WriteResultsFile(path, r);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code, ExitCode::kInputError);
  EXPECT_EQ(st.error().message, path + ": not written: " + *problem);
  EXPECT_FALSE(std::filesystem::exists(path));
  r = FullResults();
  r.workloads[0].params.emplace_back("n", "1");
  r.workloads[0].params.emplace_back("n", "2");
  problem = RepeatedKeyProblem(r);
  ASSERT_TRUE(problem.has_value());
  EXPECT_NE(problem->find("params: two entries would be written under one key 'n'"), std::string::npos) << *problem;
  // More workloads than a results file holds (a merge of shards, an A/B
  // side): no reader would take the file, so it is not written.
  r = Results{};
  r.run = FullResults().run;
  r.workloads.resize(static_cast<size_t>(kMaxWorkloadsPerResult) + 1);
  for (size_t i = 0; i < r.workloads.size(); ++i) r.workloads[i].name = "w" + std::to_string(i);
  st = WriteResultsFile(path, r);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code, ExitCode::kInputError);
  EXPECT_NE(st.error().message.find(": not written: 100001 workloads, more than the 100000 a results file holds"),
            std::string::npos)
      << st.error().message;
  EXPECT_FALSE(std::filesystem::exists(path));
  std::filesystem::remove_all(tmpl);
}

// A small hand-written v1 file. Placeholders are replaced per test; the line
// numbers in expected messages refer to this layout.
constexpr const char* kDoc = R"({
  "schema": "@SCHEMA@",
  "version": {"major": @MAJOR@, "minor": 0},
  "run": {"tool_version": "0.1.0", "suite": "s", "run_id": "abc",
          "time_utc": "2026-11-21T23:59:00Z", "time_unix_ns": 1795305540000000000,
          "environment": {"host": "h", "os": "Linux", "cpu_model": "c", "cpu_cores": @CORES@,
                          "compiler": "g"}},
  "workloads": [
    {"name": "w", "kind": "synthetic", "backend": "synthetic", "status": "@STATUS@",@EXTRA@
     "rounds": @ROUNDS@,
     "summary": {"n": 3, "median": 0.2, "mean": 0.2, "min": 0.1, "max": 0.3, "stddev": 0.1,
                 "mad": 0.1, "p5": 0.11, "p95": 0.29, "cv": 0.5, "rel_ci_half_width": 0.5}}
  ]
}
)";

struct DocParts {
  std::string schema = "gpugate/results/v1";
  std::string major = "1";
  std::string cores = "2";
  std::string status = "ok";
  std::string extra;
  std::string rounds = "[[0.1, 0.2], [0.3]]";
};

std::string Doc(const DocParts& p) {
  std::string text = kDoc;
  auto replace = [&](const std::string& key, const std::string& value) {
    size_t at = text.find(key);
    ASSERT_NE(at, std::string::npos) << key;
    text.replace(at, key.size(), value);
  };
  replace("@SCHEMA@", p.schema);
  replace("@MAJOR@", p.major);
  replace("@CORES@", p.cores);
  replace("@STATUS@", p.status);
  replace("@EXTRA@", p.extra);
  replace("@ROUNDS@", p.rounds);
  return text;
}

std::string ErrorOf(const std::string& text) {
  Result<Results> r = ResultsFromJson(text, "r.json");
  EXPECT_FALSE(r.ok());
  if (r.ok()) return "";
  EXPECT_EQ(r.error().code, ExitCode::kInputError);
  return r.error().message;
}

TEST(ResultsJson, HandWrittenMinimalFileReadsWithDefaults) {
  Result<Results> r = ResultsFromJson(Doc({}), "r.json");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->run.suite, "s");
  EXPECT_EQ(r->run.time_unix_ns, 1795305540000000000);
  EXPECT_EQ(r->run.source_format, "gpugate");
  EXPECT_FALSE(r->run.git_sha.has_value());
  EXPECT_FALSE(r->run.env.cpu_governor.has_value());
  EXPECT_FALSE(r->run.env.gpu.name.has_value());
  ASSERT_EQ(r->workloads.size(), 1u);
  const WorkloadResult& w = r->workloads[0];
  EXPECT_EQ(w.rounds, (std::vector<std::vector<double>>{{0.1, 0.2}, {0.3}}));
  EXPECT_EQ(w.iterations_per_sample, 1);
  EXPECT_TRUE(w.params.empty());
  EXPECT_TRUE(w.kernels.empty());
  EXPECT_FALSE(w.work.bytes.has_value());
  EXPECT_EQ(w.summary.p95, 0.29);
}

TEST(ResultsJson, UnknownMajorVersionIsRejected) {
  DocParts p;
  p.schema = "gpugate/results/v2";
  EXPECT_EQ(ErrorOf(Doc(p)),
            "r.json:2:13: schema: unsupported results schema 'gpugate/results/v2' "
            "(this gpugate reads v1)");
  DocParts q;
  q.major = "2";
  EXPECT_EQ(ErrorOf(Doc(q)),
            "r.json:3:24: version.major: unsupported results version 2.0 "
            "(this gpugate reads v1)");
}

TEST(ResultsJson, OtherFilesAreNotMistakenForResults) {
  DocParts p;
  p.schema = "gpugate/verdicts/v2";
  EXPECT_EQ(ErrorOf(Doc(p)),
            "r.json:2:13: schema: not a gpugate results file: schema 'gpugate/verdicts/v2', "
            "expected 'gpugate/results/v1'");
  EXPECT_EQ(ErrorOf("[1, 2]"),
            "r.json:1:1: expected a results object at the top level, got array");
  EXPECT_EQ(ErrorOf("{\"benchmarks\": []}"), "r.json:1:1: missing field 'schema'");
  EXPECT_EQ(ErrorOf(""), "r.json: empty file");
}

TEST(ResultsJson, WrongTypesPointAtTheValue) {
  DocParts p;
  p.rounds = "[[0.1, 0.2], [0.3, \"x\"]]";
  EXPECT_EQ(ErrorOf(Doc(p)),
            "r.json:10:35: workloads[0].rounds[1][1]: expected a number, got string");
  DocParts q;
  q.cores = "\"8\"";
  EXPECT_EQ(ErrorOf(Doc(q)),
            "r.json:6:86: run.environment.cpu_cores: expected an integer, got string");
  DocParts s;
  s.rounds = "[0.1, 0.2]";
  EXPECT_EQ(ErrorOf(Doc(s)),
            "r.json:10:17: workloads[0].rounds[0]: expected an array of samples, got number");
  DocParts t;
  t.extra = " \"iterations_per_sample\": 1.5,";
  EXPECT_EQ(ErrorOf(Doc(t)),
            "r.json:9:105: workloads[0].iterations_per_sample: expected an integer, "
            "got a fractional number");
  DocParts u;
  u.extra = " \"params\": {\"n\": 16},";
  EXPECT_EQ(ErrorOf(Doc(u)), "r.json:9:96: workloads[0].params.n: expected a string, got number");
  DocParts v;
  v.extra = " \"counters\": {\"a b\": true},";
  EXPECT_EQ(ErrorOf(Doc(v)),
            "r.json:9:100: workloads[0].counters[\"a b\"]: expected a number, got bool");
}

TEST(ResultsJson, BadSamplesAreRejected) {
  const std::string prefix = "r.json:10:28: workloads[0].rounds[0][2]: ";
  for (const auto& [literal, message] : std::vector<std::pair<std::string, std::string>>{
           {"-0.5", "sample time is negative (-0.5)"},
           {"NaN", "sample time is NaN"},
           {"Infinity", "sample time is infinite"},
           {"-Infinity", "sample time is infinite"},
           {"0", "sample time is 0"},
           {"5e-324", "sample time is below 1e-15 s (5e-324 s)"},
           {"1e9", "sample time is 1e9 s or more (1e+09 s)"},
           {"1e308", "sample time is 1e9 s or more (1e+308 s)"},
           {"null", "expected a number, got null"}}) {
    DocParts p;
    p.rounds = "[[0.1, 0.2, " + literal + "]]";
    EXPECT_EQ(ErrorOf(Doc(p)), prefix + message) << literal;
  }
}

TEST(ResultsJson, LaunchGroupsMustMatchTheDurations) {
  std::string text = ResultsToJson(FullResults());
  const std::string groups = "\"launch_groups\": [7, 7, 4294967295]";
  const size_t at = text.find(groups);
  ASSERT_NE(at, std::string::npos) << text;
  std::string shorter = text;
  shorter.replace(at, groups.size(), "\"launch_groups\": [7, 7]");
  EXPECT_NE(ErrorOf(shorter).find("launch_groups: expected one launch group per entry of durations_s (3), got 2"),
            std::string::npos)
      << ErrorOf(shorter);
  std::string negative = text;
  negative.replace(at, groups.size(), "\"launch_groups\": [7, 7, -1]");
  EXPECT_NE(ErrorOf(negative).find("launch_groups[2]: expected a launch group from 0 to 4294967295, got -1"),
            std::string::npos)
      << ErrorOf(negative);
}

TEST(ResultsJson, MissingRequiredFieldsAndBadValuesAreNamed) {
  std::string text = Doc({});
  const std::string summary_key = "\"summary\"";
  text.replace(text.find(summary_key), summary_key.size(), "\"summarx\"");
  EXPECT_EQ(ErrorOf(text), "r.json:9:5: workloads[0]: missing field 'summary'");
  DocParts p;
  p.status = "skiped";
  EXPECT_EQ(ErrorOf(Doc(p)),
            "r.json:9:74: workloads[0].status: unknown status 'skiped', expected ok, failed or "
            "skipped (did you mean 'skipped'?)");
  DocParts q;
  q.cores = "-1";
  EXPECT_EQ(ErrorOf(Doc(q)), "r.json:6:86: run.environment.cpu_cores: must be at least 0");
  for (const auto& [literal, message] : std::vector<std::pair<std::string, std::string>>{
           {"3000000000", "integer out of range"},            // beyond int
           {"9223372036854775808", "integer out of range"},   // beyond int64
           {"NaN", "expected an integer, got NaN or Infinity"},
           {"true", "expected an integer, got bool"}}) {
    DocParts c;
    c.cores = literal;
    EXPECT_EQ(ErrorOf(Doc(c)), "r.json:6:86: run.environment.cpu_cores: " + message);
  }
}

TEST(ResultsJson, DuplicateWorkloadNamesAreRejected) {
  Results r = FullResults();
  r.workloads[1].name = r.workloads[0].name;
  const std::string message = ErrorOf(ResultsToJson(r));
  EXPECT_NE(message.find("workloads[1].name: duplicate workload name 'saxpy/n=16M' (first at "
                         "workloads[0])"),
            std::string::npos)
      << message;
}

TEST(ResultsJson, UnknownKeysAndNewerMinorVersionsAreTolerated) {
  DocParts p;
  p.extra = " \"future_field\": {\"nested\": [1, 2]}, \"another\": null,";
  std::string text = Doc(p);
  text.replace(text.find("\"minor\": 0"), 10, "\"minor\": 7");
  text.replace(text.find("\"run\": {"), 8, "\"run\": {\"added_in_1_7\": true, ");
  text.replace(text.find("\"workloads\""), 11, "\"extra_top\": \"x\", \"workloads\"");
  Result<Results> r = ResultsFromJson(text, "r.json");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->workloads.size(), 1u);
  EXPECT_EQ(r->run.tool_version, "0.1.0");
}

TEST(ResultsJson, PrimaryMetricIsWrittenOnlyWhenItIsNotTime) {
  Results r;
  r.run.run_id = "r1";
  r.run.suite = "s";
  r.run.run_id = "r1";
  WorkloadResult& t = r.workloads.emplace_back();
  t.name = "timed";
  t.rounds = {{0.5}};
  WorkloadResult& v = r.workloads.emplace_back();
  v.name = "throughput";
  v.metric = "value";
  v.unit = "ops/sec";
  v.lower_is_better = false;
  v.rounds = {{70.0}};
  WorkloadResult& c = r.workloads.emplace_back();
  c.name = "count";
  c.metric = "instructions";
  c.unit = "instructions";
  c.deterministic = true;
  c.rounds = {{1234567.0}};
  const std::string text = ResultsToJson(r);
  Result<JsonValue> doc = ParseJson(text, "r.json");
  ASSERT_TRUE(doc.ok());
  const JsonValue& workloads = *doc->Find("workloads");
  // Time in seconds keeps the 1.0 layout.
  for (const char* key : {"metric", "unit", "lower_is_better", "deterministic"})
    EXPECT_EQ(workloads.items[0].Find(key), nullptr) << key;
  EXPECT_EQ(workloads.items[1].Find("unit")->string, "ops/sec");
  EXPECT_FALSE(workloads.items[1].Find("lower_is_better")->boolean);
  EXPECT_EQ(workloads.items[1].Find("deterministic"), nullptr);
  EXPECT_TRUE(workloads.items[2].Find("deterministic")->boolean);
  EXPECT_EQ(workloads.items[2].Find("lower_is_better"), nullptr);
  EXPECT_EQ(doc->Find("version"), nullptr);  // the schema names the version, alone
  Result<Results> back = ResultsFromJson(text, "r.json");
  ASSERT_TRUE(back.ok()) << back.error().message;
  ExpectSameResults(r, *back);
  EXPECT_TRUE(HasTimeMetric(back->workloads[0]));
  EXPECT_FALSE(HasTimeMetric(back->workloads[1]));
}

// Runs stored before --bigger-is-better left times alone hold a time as
// bigger-is-better: read smaller-is-better, as every time is, so such a
// history keeps working (it read as a direction conflict with every run).
TEST(ResultsJson, AStoredBiggerIsBetterTimeIsReadSmallerIsBetter) {
  DocParts p;
  p.extra = " \"lower_is_better\": false,";
  Result<Results> r = ResultsFromJson(Doc(p), "r.json");
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->workloads.size(), 1u);
  EXPECT_TRUE(HasTimeMetric(r->workloads[0]));
  EXPECT_TRUE(r->workloads[0].lower_is_better);
}

TEST(ResultsJson, BadPrimaryMetricsAreRejected) {
  DocParts p;
  p.extra = " \"unit\": \"ms\",";
  EXPECT_EQ(ErrorOf(Doc(p)),
            "r.json:9:88: workloads[0].unit: the time metric is in seconds, got unit 'ms'");
  DocParts q;
  q.extra = " \"metric\": \"value\",";
  EXPECT_EQ(ErrorOf(Doc(q)),
            "r.json:9:90: workloads[0].unit: a metric other than time needs its 'unit'");
  DocParts e;
  e.extra = " \"metric\": \"\", \"unit\": \"x\",";
  EXPECT_EQ(ErrorOf(Doc(e)), "r.json:9:90: workloads[0].metric: must not be empty");
  DocParts b;
  b.extra = " \"deterministic\": 1,";
  EXPECT_EQ(ErrorOf(Doc(b)),
            "r.json:9:97: workloads[0].deterministic: expected true or false, got number");
}

TEST(ResultsJson, SchemaAfterWorkloadsIsStillCheckedFirst) {
  // Hand-edited order: workloads before schema. Still read...
  std::string text = Doc({});
  const std::string schema_line = "  \"schema\": \"gpugate/results/v1\",\n";
  text.erase(text.find(schema_line), schema_line.size());
  text.insert(text.rfind("}"), ", \"schema\": \"gpugate/results/v1\"");
  Result<Results> r = ResultsFromJson(text, "r.json");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->workloads.size(), 1u);
  // ...and a v2 file with a workload v1 cannot read reports the version, not the workload.
  DocParts p;
  p.rounds = "\"v2 keeps rounds elsewhere\"";
  std::string v2 = Doc(p);
  v2.erase(v2.find(schema_line), schema_line.size());
  v2.insert(v2.rfind("}"), ", \"schema\": \"gpugate/results/v2\"");
  EXPECT_NE(ErrorOf(v2).find("schema: unsupported results schema 'gpugate/results/v2'"),
            std::string::npos)
      << ErrorOf(v2);
  p.schema = "gpugate/results/v2";
  EXPECT_EQ(ErrorOf(Doc(p)),
            "r.json:2:13: schema: unsupported results schema 'gpugate/results/v2' "
            "(this gpugate reads v1)");
}

TEST(ResultsJson, WorkloadsMustBeAnArray) {
  std::string text = Doc({});
  text.replace(text.find("\"workloads\": ["), 14, "\"workloads\": {\"x\": [");
  text.replace(text.rfind("]"), 1, "]}");
  EXPECT_EQ(ErrorOf(text), "r.json:8:16: workloads: expected an array, got object");
}

TEST(ResultsJson, FilesAreWrittenAndReadBack) {
  char tmpl[] = "/tmp/gpugate_results_json_XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  const std::string path = dir + "/r.json";
  const Results in = FullResults();
  Status st = WriteResultsFile(path, in);
  ASSERT_TRUE(st.ok()) << st.error().message;
  Result<Results> out = ReadResultsFile(path);
  ASSERT_TRUE(out.ok()) << out.error().message;
  ExpectSameResults(in, *out);
  // Errors name the file.
  ASSERT_TRUE(WriteFileAtomic(path, "{\"schema\": 3}").ok());
  Result<Results> bad = ReadResultsFile(path);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, path + ":1:12: schema: expected a string, got number");
  Result<Results> missing = ReadResultsFile(dir + "/missing.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, ExitCode::kInputError);
  std::filesystem::remove_all(dir);
}

std::string SchemaDoc() {
  Result<std::string> doc = ReadFile(std::string(GPUGATE_SOURCE_DIR) + "/docs/results-schema.md");
  EXPECT_TRUE(doc.ok()) << (doc.ok() ? "" : doc.error().message);
  return doc.ok() ? *doc : "";
}

void CollectKeys(const JsonValue& v, std::set<std::string>* keys, bool free_form) {
  for (const auto& [key, child] : v.members) {
    if (!free_form) keys->insert(key);
    // Values of params, counters, metrics, attributes and source_context are
    // data, not schema fields.
    const bool data = key == "params" || key == "counters" || key == "metrics" ||
                      key == "attributes" || key == "source_context";
    CollectKeys(child, keys, data);
  }
  for (const auto& item : v.items) CollectKeys(item, keys, false);
}

TEST(ResultsJson, SchemaDocumentNamesEveryWrittenField) {
  const std::string doc = SchemaDoc();
  Result<JsonValue> written = ParseJson(ResultsToJson(FullResults()), "full.json");
  ASSERT_TRUE(written.ok());
  std::set<std::string> keys;
  CollectKeys(*written, &keys, false);
  EXPECT_GT(keys.size(), 60u);
  for (const std::string& key : keys)
    EXPECT_TRUE(doc.find("| `" + key + "` |") != std::string::npos ||
                doc.find("." + key + "` |") != std::string::npos)
        << "undocumented field " << key;
}

TEST(ResultsJson, SchemaDocumentExampleIsExactWriterOutput) {
  const std::string doc = SchemaDoc();
  const size_t begin = doc.find("```json\n");
  ASSERT_NE(begin, std::string::npos);
  const size_t end = doc.find("```", begin + 8);
  ASSERT_NE(end, std::string::npos);
  const std::string example = doc.substr(begin + 8, end - begin - 8);
  Result<Results> r = ResultsFromJson(example, "results-schema.md");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(ResultsToJson(*r), example);
}

}  // namespace
}  // namespace gpugate

namespace gpugate {
namespace {

// Notes (minor version 3) are written only when there are some; a 1.2 file
// without them reads back with none, and a note that is not a string is an
// error at its position.
// A history keeps each run id once; an empty one is no id at all.
TEST(ResultsJson, AnEmptyRunIdIsRefusedWhereItStands) {
  Results r;
  r.run.run_id = "";
  Result<Results> back = ResultsFromJson(ResultsToJson(r), "r.json");
  ASSERT_FALSE(back.ok());
  EXPECT_NE(back.error().message.find("r.json:"), std::string::npos) << back.error().message;
  EXPECT_NE(back.error().message.find("run.run_id: a run id must not be empty"), std::string::npos)
      << back.error().message;
}

// A file of a newer minor version is read (minor versions only add
// fields), and marked, so a rewrite can say that unknown fields are dropped.
TEST(ResultsJson, ANewerMinorVersionIsReadAndMarked) {
  Results r;
  r.run.run_id = "r1";
  std::string text = ResultsToJson(r);
  Result<Results> same = ResultsFromJson(text, "r.json");
  ASSERT_TRUE(same.ok()) << same.error().message;
  EXPECT_FALSE(same->newer_minor);
  const size_t at = text.find("gpugate/results/v1\"");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 18, "gpugate/results/v1.99");
  Result<Results> newer = ResultsFromJson(text, "r.json");
  ASSERT_TRUE(newer.ok()) << newer.error().message;
  EXPECT_TRUE(newer->newer_minor);
}

TEST(ResultsJson, NotesAreOptionalAndTyped) {
  Results r;
  r.run.run_id = "r1";
  WorkloadResult& quiet = r.workloads.emplace_back();
  quiet.name = "quiet";
  WorkloadResult& noisy = r.workloads.emplace_back();
  noisy.name = "noisy";
  noisy.notes = {"ended 1 process the workload left behind (pids 42)"};
  const std::string text = ResultsToJson(r);
  Result<JsonValue> doc = ParseJson(text, "r.json");
  ASSERT_TRUE(doc.ok());
  const JsonValue& workloads = *doc->Find("workloads");
  EXPECT_EQ(workloads.items[0].Find("notes"), nullptr);
  ASSERT_NE(workloads.items[1].Find("notes"), nullptr);
  EXPECT_EQ(workloads.items[1].Find("notes")->items.at(0).string, noisy.notes[0]);

  std::string older = text;
  older.replace(older.find("gpugate/results/v1\""), 18, "gpugate/results/v1.2");
  Result<Results> back = ResultsFromJson(older, "r.json");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_TRUE(back->workloads[0].notes.empty());
  EXPECT_EQ(back->workloads[1].notes, noisy.notes);

  std::string bad = text;
  const std::string note = "\"" + noisy.notes[0] + "\"";
  bad.replace(bad.find(note), note.size(), "7");
  Result<Results> rejected = ResultsFromJson(bad, "r.json");
  ASSERT_FALSE(rejected.ok());
  EXPECT_NE(rejected.error().message.find("workloads[1].notes[0]: expected a string"), std::string::npos)
      << rejected.error().message;
}

TEST(ResultsModel, AppendNotesPrefixesAndSkipsKnownNotes) {
  WorkloadResult w;
  w.notes = {"a"};
  AppendNotes(w, {"a", "b"});
  AppendNotes(w, {"b"}, "round 2: ");
  AppendNotes(w, {"b"}, "round 2: ");
  EXPECT_EQ(w.notes, (std::vector<std::string>{"a", "b", "round 2: b"}));
}

}  // namespace
}  // namespace gpugate

namespace gpugate {
namespace {

// Cycles (minor version 4) are written only when a sample carried its clock;
// a cycle count must be a finite number >= 0, named by its position.
TEST(ResultsJson, CyclesAreOptionalAndChecked) {
  Results r;
  r.run.run_id = "r1";
  WorkloadResult& cpu = r.workloads.emplace_back();
  cpu.name = "cpu";
  cpu.rounds = {{1e-3}};
  WorkloadResult& gpu = r.workloads.emplace_back();
  gpu.name = "gpu";
  gpu.rounds = {{1e-3, 2e-3}};
  gpu.cycles = {{1762500.0, 0.0}};
  const std::string text = ResultsToJson(r);
  Result<JsonValue> doc = ParseJson(text, "r.json");
  ASSERT_TRUE(doc.ok());
  const JsonValue& workloads = *doc->Find("workloads");
  EXPECT_EQ(workloads.items[0].Find("cycles"), nullptr);
  ASSERT_NE(workloads.items[1].Find("cycles"), nullptr);
  Result<Results> back = ResultsFromJson(text, "r.json");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_TRUE(back->workloads[0].cycles.empty());
  EXPECT_EQ(back->workloads[1].cycles, gpu.cycles);

  std::string bad = text;
  bad.replace(bad.find("1762500.0"), 9, "-1.0");
  Result<Results> rejected = ResultsFromJson(bad, "r.json");
  ASSERT_FALSE(rejected.ok());
  EXPECT_NE(rejected.error().message.find("workloads[1].cycles[0][0]"), std::string::npos)
      << rejected.error().message;
}

TEST(ResultsJson, ALegacyOccupancyPercentIsReadAsAFraction) {
  // Files written before fractions everywhere carried a trace's achieved
  // occupancy as kernel metric "occupancy_pct" (0-100).
  Results r;
  r.run.suite = "s";
  r.run.run_id = "r1";
  WorkloadResult& w = r.workloads.emplace_back();
  w.name = "w";
  w.rounds = {{1.0, 1.1}};
  KernelResult& k = w.kernels.emplace_back();
  k.name = "gemm";
  k.count = 1;
  k.total_s = 0.5;
  k.metrics["occupancy_pct"] = 60;
  k.metrics["registers_per_thread"] = 32;
  Result<Results> back = ResultsFromJson(ResultsToJson(r), "r.json");
  ASSERT_TRUE(back.ok()) << back.error().message;
  const auto& m = back->workloads.at(0).kernels.at(0).metrics;
  EXPECT_FALSE(m.contains("occupancy_pct"));
  EXPECT_DOUBLE_EQ(m.at("achieved_occupancy"), 0.6);
  EXPECT_EQ(m.at("registers_per_thread"), 32);
}

}  // namespace
}  // namespace gpugate
