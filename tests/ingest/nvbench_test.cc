// Tests of the nvbench JSON reader on NVIDIA's own test files (tests/data/
// nvbench, origin in tests/data/ORIGIN.md) and on small literal documents,
// with --jsonbin sample files written to a temporary folder.
//
// Expected counts were computed independently with Debian's Python:
//   /usr/bin/python3 -c "import json; d=json.load(open(F)); st=[s for b in d['benchmarks']
//     for s in b['states']]; print(len(st), sum(s['is_skipped'] for s in st))"
//   nvbench_test_ref.json: 126 states, 38 skipped -> 126 workloads, 88 samples
//   nvbench_test_cmp.json: 126 states, 38 skipped -> 126 workloads, 88 samples
// (the fixtures carry no sample files, so each measured state is one summary
// sample). Summary values are the strings in the files, e.g.
// benchmarks[0].states[0] nv/cold/time/gpu/mean = "0.0010034715849794225".
// Literal line:col positions were found with Python str.index over the same text.
#include "ingest/nvbench.h"

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "util/fs.h"

namespace gpugate {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;
using ::testing::StartsWith;

Results Load(const std::string& rel) {
  std::string dir = std::string(GPUGATE_SOURCE_DIR) + "/tests/data/nvbench";
  Result<std::string> text = ReadFile(dir + "/" + rel);
  EXPECT_TRUE(text.ok()) << (text.ok() ? "" : text.error().message);
  if (!text.ok()) return Results{};
  Result<Results> r = NvbenchFromJson(*text, rel, dir);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return r.ok() ? *r : Results{};
}

const WorkloadResult* Find(const Results& r, const std::string& name) {
  const WorkloadResult* w = r.Find(name);
  EXPECT_NE(w, nullptr) << name;
  return w;
}

double Counter(const WorkloadResult& w, const std::string& key) {
  auto it = w.counters.find(key);
  return it == w.counters.end() ? -12345.0 : it->second;
}

void Counts(const Results& r, size_t* ok, size_t* skipped, size_t* samples) {
  *ok = *skipped = *samples = 0;
  for (const auto& w : r.workloads) {
    if (w.status == WorkloadStatus::kOk) ++*ok;
    if (w.status == WorkloadStatus::kSkipped) ++*skipped;
    *samples += AllSamples(w).size();
  }
}

// A fresh folder for sidecar files.
std::string TempFolder(const std::string& leaf) {
  std::filesystem::path p = std::filesystem::path(::testing::TempDir()) / ("gpugate_nvbench_" + leaf);
  std::filesystem::remove_all(p);
  std::filesystem::create_directories(p / "r.json-bin");
  std::filesystem::create_directories(p / "r.json-freqs-bin");
  return p.string();
}

// Writes little-endian float32 values, as nvbench --jsonbin does.
void WriteFloats(const std::string& path, const std::vector<float>& values) {
  std::string bytes;
  for (float f : values) {
    uint32_t bits;
    std::memcpy(&bits, &f, sizeof bits);
    for (int i = 0; i < 4; ++i) bytes.push_back(static_cast<char>((bits >> (8 * i)) & 0xff));
  }
  std::ofstream(path, std::ios::binary) << bytes;
}

// One device, one benchmark, one state; `extra` is appended to its summaries.
std::string OneState(const std::string& extra, const std::string& noise = "\"0.02\"") {
  return R"({
"meta": {"argv": ["bin/bench", "--jsonbin", "r.json"], "version": {"json": {"major": 1, "minor": 0, "patch": 0, "string": "1.0.0"}, "nvbench": {"string": "0.1.0"}}},
"devices": [{"id": 0, "name": "NVIDIA RTX A4000", "sm_version": 860, "sm_default_clock_rate": 1560000000, "number_of_sms": 48,
  "global_memory_size": 16887316480, "global_memory_bus_peak_clock_rate": 7001000000, "l2_cache_size": 4194304, "ecc_state": true}],
"benchmarks": [{"name": "reduce", "devices": [0], "states": [
 {"name": "Device=0 T=F32 Elements=2^20", "device": 0,
  "axis_values": [{"name": "T", "type": "string", "value": "F32"}, {"name": "Elements", "type": "int64", "value": "1048576"}],
  "summaries": [
   {"tag": "nv/cold/sample_size", "data": [{"name": "value", "type": "int64", "value": "3"}]},
   {"tag": "nv/cold/time/gpu/mean", "data": [{"name": "value", "type": "float64", "value": "0.002"}]},
   {"tag": "nv/cold/time/gpu/stdev/relative", "data": [{"name": "value", "type": "float64", "value": )" +
         noise + R"(}]})" + extra + R"(],
  "is_skipped": false}]}]
})";
}

std::string SidecarSummaries(const std::string& times_file, int times_size,
                             const std::string& freqs_file, int freqs_size) {
  return R"(,
   {"tag": "nv/json/bin:nv/cold/sample_times", "data": [{"name": "filename", "type": "string", "value": ")" +
         times_file + R"("}, {"name": "size", "type": "int64", "value": ")" +
         std::to_string(times_size) + R"("}]},
   {"tag": "nv/json/freqs-bin:nv/cold/sample_freqs", "data": [{"name": "filename", "type": "string", "value": ")" +
         freqs_file + R"("}, {"name": "size", "type": "int64", "value": ")" +
         std::to_string(freqs_size) + R"("}]})";
}

// A program's name is its argv[0]; one that holds none (an empty string,
// or separators only) leaves the file's stem, not an empty suite (whose
// history took any suite's run and was then unreadable).
TEST(NvbenchIngest, TheSuiteIsTheProgramsNameOrTheFilesStem) {
  std::string doc = OneState("");
  Result<Results> named = NvbenchFromJson(doc, "d/run.json", "/nonexistent");
  ASSERT_TRUE(named.ok()) << named.error().message;
  EXPECT_EQ(named->run.suite, "bench");
  for (const std::string& argv0 : {std::string(""), std::string("/"), std::string("\\\\")}) {
    std::string nameless = doc;
    nameless.replace(nameless.find("\"bin/bench\""), 11, "\"" + argv0 + "\"");
    Result<Results> r = NvbenchFromJson(nameless, "d/run.json.gz", "/nonexistent");
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_EQ(r->run.suite, "run") << argv0;
  }
}

TEST(NvbenchIngest, ReferenceFixtureStatesDevicesAndSummaries) {
  Results r = Load("nvbench_test_ref.json");
  ASSERT_EQ(r.workloads.size(), 126u);
  size_t ok, skipped, samples;
  Counts(r, &ok, &skipped, &samples);
  EXPECT_EQ(ok, 88u);
  EXPECT_EQ(skipped, 38u);
  EXPECT_EQ(samples, 88u);
  std::set<std::string> names;
  for (const auto& w : r.workloads) names.insert(w.name);
  EXPECT_EQ(names.size(), 126u);

  // Two devices: names carry the device, params too.
  EXPECT_EQ(r.workloads[0].name, "simple [dev0]");
  EXPECT_EQ(r.workloads[1].name, "simple [dev1]");
  const WorkloadResult* simple = Find(r, "simple [dev0]");
  ASSERT_NE(simple, nullptr);
  EXPECT_EQ(simple->kind, "nvbench");
  EXPECT_EQ(simple->backend, "ingest");
  ASSERT_EQ(simple->rounds.size(), 1u);
  EXPECT_DOUBLE_EQ(simple->rounds[0][0], 0.0010034715849794225);
  EXPECT_DOUBLE_EQ(Counter(*simple, "stdev_rel"), 0.0005782350585973689);
  EXPECT_EQ(Counter(*simple, "sample_size"), 499);
  EXPECT_EQ(Counter(*simple, "only_summary"), 1);
  EXPECT_DOUBLE_EQ(Counter(*simple, "batch_gpu_time"), 0.001001475909284053);
  EXPECT_EQ(Counter(*simple, "batch_sample_size"), 524);
  EXPECT_DOUBLE_EQ(Counter(*simple, "nv/cold/time/cpu/mean"), 0.0010094458717434867);
  EXPECT_THAT(simple->params, ElementsAre(Pair("device", "0")));
  EXPECT_THAT(simple->tags, ElementsAre("device:Quadro GV100"));

  const WorkloadResult* grid = Find(r, "copy_sweep_grid_shape/BlockSize=2^6 NumBlocks=2^6 [dev0]");
  ASSERT_NE(grid, nullptr);
  EXPECT_THAT(grid->params,
              ElementsAre(Pair("BlockSize", "64"), Pair("NumBlocks", "64"), Pair("device", "0")));
  EXPECT_DOUBLE_EQ(grid->rounds[0][0], 0.006485689823444072);
  EXPECT_EQ(Counter(*grid, "sample_size"), 78);
  ASSERT_TRUE(grid->bytes_per_second.has_value());
  EXPECT_DOUBLE_EQ(*grid->bytes_per_second, 82777765606.2663);

  const WorkloadResult* conv = Find(r, "copy_type_conversion_sweep/In=I8 Out=F64 [dev0]");
  ASSERT_NE(conv, nullptr);
  EXPECT_DOUBLE_EQ(conv->rounds[0][0], 0.001175182694693406);
  EXPECT_EQ(conv->work.items, 67108864);
  EXPECT_EQ(conv->work.bytes, 603979776);  // InSize 67108864 + OutSize 536870912

  const WorkloadResult* same = Find(r, "copy_type_conversion_sweep/In=F64 Out=F64 [dev1]");
  ASSERT_NE(same, nullptr);
  EXPECT_EQ(same->status, WorkloadStatus::kSkipped);
  EXPECT_EQ(same->reason, "skipped by nvbench: Not a conversion: InputType == OutputType.");
  EXPECT_TRUE(same->rounds.empty());

  // Two different GPUs: the environment names both and claims no single clock.
  EXPECT_EQ(r.run.source_format, "nvbench");
  EXPECT_EQ(r.run.env.gpu.name, "Quadro GV100 + Quadro GP100");
  EXPECT_EQ(r.run.env.gpu.compute_capability, "7.0 + 6.0");
  EXPECT_FALSE(r.run.env.gpu.sm_clock_hz.has_value());
  EXPECT_EQ(r.run.suite, "nvbench.example.axes");  // argv[0] "bin/nvbench.example.axes": dots are part of a program's name
  EXPECT_EQ(r.run.source_context.at("nvbench_version"), "0.1.0");
  EXPECT_EQ(r.run.source_context.at("nvbench_json_version"), "1.0.0");
}

TEST(NvbenchIngest, ComparisonFixtureHasTheSameStates) {
  Results ref = Load("nvbench_test_ref.json");
  Results cmp = Load("nvbench_test_cmp.json");
  ASSERT_EQ(cmp.workloads.size(), 126u);
  size_t ok, skipped, samples;
  Counts(cmp, &ok, &skipped, &samples);
  EXPECT_EQ(ok, 88u);
  EXPECT_EQ(skipped, 38u);
  EXPECT_EQ(samples, 88u);
  ASSERT_EQ(ref.workloads.size(), cmp.workloads.size());
  for (size_t i = 0; i < ref.workloads.size(); ++i)
    EXPECT_EQ(ref.workloads[i].name, cmp.workloads[i].name);
  const WorkloadResult* w = Find(cmp, "simple [dev1]");
  ASSERT_NE(w, nullptr);
  EXPECT_DOUBLE_EQ(w->rounds[0][0], 0.0010027929121602258);
}

TEST(NvbenchIngest, OneDeviceFillsTheGpuFingerprintAndKeepsNamesPlain) {
  Result<Results> r = NvbenchFromJson(OneState(""), "r.json", "/nonexistent");
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->workloads.size(), 1u);
  const WorkloadResult& w = r->workloads[0];
  EXPECT_EQ(w.name, "reduce/T=F32 Elements=2^20");
  EXPECT_THAT(w.params, ElementsAre(Pair("T", "F32"), Pair("Elements", "1048576")));
  EXPECT_TRUE(w.tags.empty());
  const GpuInfo& g = r->run.env.gpu;
  EXPECT_EQ(g.name, "NVIDIA RTX A4000");
  EXPECT_EQ(g.compute_capability, "8.6");
  EXPECT_EQ(g.sm_count, 48);
  EXPECT_EQ(g.sm_clock_hz, 1560000000.0);
  EXPECT_EQ(g.mem_clock_hz, 7001000000.0);
  EXPECT_EQ(g.memory_bytes, 16887316480);
  EXPECT_EQ(g.l2_bytes, 4194304);
  EXPECT_EQ(g.ecc_enabled, true);
  EXPECT_EQ(g.device_index, 0);
  EXPECT_EQ(r->run.suite, "bench");
}

TEST(NvbenchIngest, SampleTimesSidecarGivesRawSamples) {
  std::string dir = TempFolder("samples");
  WriteFloats(dir + "/r.json-bin/0.bin", {0.001f, 0.002f, 0.004f});
  WriteFloats(dir + "/r.json-freqs-bin/0.bin", {1.5e9f, 1.4e9f, 1.6e9f});
  Result<Results> r = NvbenchFromJson(
      OneState(SidecarSummaries("r.json-bin/0.bin", 3, "r.json-freqs-bin/0.bin", 3)),
      dir + "/r.json", dir);
  ASSERT_TRUE(r.ok()) << r.error().message;
  const WorkloadResult& w = r->workloads[0];
  ASSERT_EQ(w.rounds.size(), 1u);  // one process: one round
  ASSERT_EQ(w.rounds[0].size(), 3u);
  EXPECT_EQ(w.rounds[0][0], static_cast<double>(0.001f));
  EXPECT_EQ(w.rounds[0][2], static_cast<double>(0.004f));
  EXPECT_EQ(w.counters.count("only_summary"), 0u);
  EXPECT_EQ(w.counters.count("sample_file_missing"), 0u);
  EXPECT_DOUBLE_EQ(w.summary.median, static_cast<double>(0.002f));
  ASSERT_EQ(w.clocks.size(), 1u);
  EXPECT_DOUBLE_EQ(w.clocks[0].sm_clock_hz,
                   (static_cast<double>(1.5e9f) + 1.4e9f + static_cast<double>(1.6e9f)) / 3);
  EXPECT_DOUBLE_EQ(Counter(w, "stdev_rel"), 0.02);
}

TEST(NvbenchIngest, MissingOrBrokenSidecarFallsBackToTheSummary) {
  std::string dir = TempFolder("missing");
  // Named but absent.
  Result<Results> r = NvbenchFromJson(
      OneState(SidecarSummaries("r.json-bin/7.bin", 3, "r.json-freqs-bin/7.bin", 3)),
      dir + "/r.json", dir);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_THAT(r->workloads[0].rounds, ElementsAre(ElementsAre(0.002)));
  EXPECT_EQ(Counter(r->workloads[0], "sample_file_missing"), 1);
  EXPECT_EQ(Counter(r->workloads[0], "only_summary"), 1);
  EXPECT_EQ(Counter(r->workloads[0], "single_sample"), 1);

  // Present but shorter than its declared size.
  WriteFloats(dir + "/r.json-bin/0.bin", {0.001f, 0.002f});
  r = NvbenchFromJson(OneState(SidecarSummaries("r.json-bin/0.bin", 3, "r.json-freqs-bin/0.bin", 3)),
                      dir + "/r.json", dir);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_THAT(r->workloads[0].rounds, ElementsAre(ElementsAre(0.002)));
  EXPECT_EQ(Counter(r->workloads[0], "sample_file_missing"), 1);

  // A negative time inside the file makes it unusable, not the run.
  WriteFloats(dir + "/r.json-bin/0.bin", {0.001f, -0.002f, 0.003f});
  r = NvbenchFromJson(OneState(SidecarSummaries("r.json-bin/0.bin", 3, "r.json-freqs-bin/0.bin", 3)),
                      dir + "/r.json", dir);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_THAT(r->workloads[0].rounds, ElementsAre(ElementsAre(0.002)));
}

TEST(NvbenchIngest, SampleFilesAreReadOnlyNextToTheJson) {
  // A sample file name is data: a name outside the JSON's folder and its
  // parent (absolute, or up with "..") is not followed there. A moved
  // artifact's absolute name is found by its last two parts next to the JSON.
  const std::string root = TempFolder("confined");
  const std::string dir = root + "/run/out";
  std::filesystem::create_directories(dir + "/r.json-bin");
  WriteFloats(root + "/secret.bin", {0.5f, 0.5f, 0.5f});
  WriteFloats(dir + "/r.json-bin/0.bin", {0.001f, 0.002f, 0.004f});
  for (const std::string& name : {root + "/secret.bin", std::string("../../secret.bin"), std::string("../../../secret.bin")}) {
    Result<Results> r = NvbenchFromJson(OneState(SidecarSummaries(name, 3, "f.bin", 3)), dir + "/r.json", dir);
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_THAT(r->workloads[0].rounds, ElementsAre(ElementsAre(0.002))) << name;
    EXPECT_EQ(Counter(r->workloads[0], "sample_file_missing"), 1) << name;
  }
  for (const std::string& name : {dir + "/r.json-bin/0.bin", std::string("/gone/build/r.json-bin/0.bin")}) {
    Result<Results> r = NvbenchFromJson(OneState(SidecarSummaries(name, 3, "f.bin", 3)), dir + "/r.json", dir);
    ASSERT_TRUE(r.ok()) << r.error().message;
    ASSERT_EQ(r->workloads[0].rounds.size(), 1u);
    EXPECT_EQ(r->workloads[0].rounds[0].size(), 3u) << name;
  }
}

TEST(NvbenchIngest, InfiniteNoiseWrittenAsNullOrTextIsMissing) {
  for (const char* noise : {"null", "\"inf\"", "\"nan\""}) {
    Result<Results> r = NvbenchFromJson(OneState("", noise), "r.json", ".");
    ASSERT_TRUE(r.ok()) << noise << ": " << r.error().message;
    EXPECT_EQ(r->workloads[0].counters.count("stdev_rel"), 0u) << noise;
    EXPECT_EQ(r->workloads[0].status, WorkloadStatus::kOk);
  }
}

TEST(NvbenchIngest, WrongTypesPointAtTheValue) {
  std::string text = OneState("", "\"0.02\"");
  std::string bad = text;
  bad.replace(bad.find("\"device\": 0"), 11, "\"device\": \"zero\"");
  Result<Results> r = NvbenchFromJson(bad, "r.json", ".");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, StartsWith("r.json:6:"));
  EXPECT_THAT(r.error().message,
              HasSubstr("benchmarks[0].states[0].device: expected an integer, got string"));

  r = NvbenchFromJson(OneState("", "\"noisy\""), "r.json", ".");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("summaries[2].data[0].value: expected a number in a string, got 'noisy'"));

  bad = text;
  bad.replace(bad.find("\"number_of_sms\": 48"), 19, "\"number_of_sms\": [48]");
  r = NvbenchFromJson(bad, "r.json", ".");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("devices[0].number_of_sms: expected an integer, got array"));

  // Values no device has would switch the environment checks off.
  bad = text;
  bad.replace(bad.find("\"number_of_sms\": 48"), 19, "\"number_of_sms\": -48");
  r = NvbenchFromJson(bad, "r.json", ".");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("devices[0].number_of_sms: expected a positive count, got -48"));

  bad = text;
  bad.replace(bad.find("\"major\": 1"), 10, "\"major\": 2");
  r = NvbenchFromJson(bad, "r.json", ".");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("nvbench JSON format 2.x is not supported"));

  r = NvbenchFromJson(R"({"devices": [], "benchmarks": [{"name": "b", "states": {}}]})", "r.json", ".");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "r.json:1:56: benchmarks[0].states: expected an array, got object");
}

TEST(NvbenchIngest, ElementAndByteCountsAreWholeNumbersInRange) {
  auto count = [](const std::string& tag, const std::string& value) {
    return ",\n   {\"tag\": \"" + tag + "\", \"data\": [{\"name\": \"value\", \"type\": \"int64\", \"value\": \"" +
           value + "\"}]}";
  };
  Result<Results> ok = NvbenchFromJson(
      OneState(count("nv/element_count/Elements", "1048576") + count("nv/gmem/reads/A", "4194304") +
               count("nv/gmem/writes/B", "4194304")),
      "r.json", ".");
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_EQ(ok->workloads[0].work.items, 1048576);
  EXPECT_EQ(ok->workloads[0].work.bytes, 8388608);
  // A history keeps no negative or overflowing count: each is refused where
  // it is written.
  for (const auto& [extra, want] : std::vector<std::pair<std::string, std::string>>{
           {count("nv/element_count/Elements", "-5"), "summary 'nv/element_count/Elements': count is negative (-5)"},
           {count("nv/gmem/reads/A", "1e300"), "summary 'nv/gmem/reads/A': count is 1e18 or more (1e+300)"},
           {count("nv/gmem/reads/A", "2.5"), "summary 'nv/gmem/reads/A': count is not a whole number (2.5)"},
           {count("nv/gmem/reads/A", "6e17") + count("nv/gmem/writes/B", "6e17"),
            "summary 'nv/gmem/writes/B': count makes the state's byte count 1e18 or more"}}) {
    Result<Results> r = NvbenchFromJson(OneState(extra), "r.json", ".");
    ASSERT_FALSE(r.ok()) << extra;
    EXPECT_THAT(r.error().message, StartsWith("r.json:"));
    EXPECT_THAT(r.error().message, HasSubstr(want));
  }
}

TEST(NvbenchIngest, EmptyTruncatedAndForeignInput) {
  Result<Results> r = NvbenchFromJson("  \n", "e.json", ".");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ExitCode::kInputError);
  EXPECT_THAT(r.error().message, StartsWith("e.json"));

  std::string text = OneState("");
  r = NvbenchFromJson(text.substr(0, text.size() / 2), "cut.json", ".");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ExitCode::kInputError);
  EXPECT_THAT(r.error().message, StartsWith("cut.json:"));

  r = NvbenchFromJson(R"({"devices": []})", "x.json", ".");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("missing \"benchmarks\" array"));
}

TEST(NvbenchIngest, StateWithoutTimeIsSkippedWithAReason) {
  const std::string text = R"({"devices": [], "benchmarks": [{"name": "b", "states": [
    {"name": "Device=0", "device": 0, "axis_values": null, "summaries": [], "is_skipped": false}]}]})";
  Result<Results> r = NvbenchFromJson(text, "r.json", ".");
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->workloads.size(), 1u);
  EXPECT_EQ(r->workloads[0].name, "b");
  EXPECT_EQ(r->workloads[0].status, WorkloadStatus::kSkipped);
  EXPECT_THAT(r->workloads[0].reason, HasSubstr("no time summary"));
}

// Axis names become the keys of a workload's "params" and summary tags those
// of its "counters": text a writer would repair (invalid UTF-8: "a\xff" and
// "a\xfe" were both written "a\uFFFD", one key twice, and every reader
// refused the results file `run` had written) is refused where it stands,
// as is an axis named twice and a tag that is one of gpugate's own counters.
TEST(NvbenchIngest, AxisNamesAndSummaryTagsAreKeysAndMustBePrintableAndUnique) {
  auto with_axes = [](const std::string& axes) {
    std::string text = OneState("");
    const std::string old = R"([{"name": "T", "type": "string", "value": "F32"}, {"name": "Elements", "type": "int64", "value": "1048576"}])";
    text.replace(text.find(old), old.size(), axes);
    return text;
  };
  Result<Results> r = NvbenchFromJson(
      with_axes("[{\"name\": \"a\xff\", \"type\": \"string\", \"value\": \"1\"}, "
                "{\"name\": \"a\xfe\", \"type\": \"string\", \"value\": \"2\"}]"),
      "bad.json", "/nonexistent");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ExitCode::kInputError);
  EXPECT_THAT(r.error().message, StartsWith("bad.json:7:"));
  EXPECT_THAT(r.error().message, HasSubstr("axis_values[0].name: an axis name must be printable text: invalid UTF-8 at byte 1"));
  r = NvbenchFromJson(with_axes(R"([{"name": "n", "type": "int64", "value": "1"}, {"name": "n", "type": "int64", "value": "2"}])"),
                      "twice.json", "/nonexistent");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("axis_values[1].name: axis 'n' is named twice in this state"));
  r = NvbenchFromJson(OneState(R"(, {"tag": "a)" "\xff" R"(", "data": [{"name": "value", "type": "float64", "value": "1"}]})"),
                      "tag.json", "/nonexistent");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("summaries[3].tag: a summary tag must be printable text: invalid UTF-8"));
  r = NvbenchFromJson(OneState(R"(, {"tag": "processes", "data": [{"name": "value", "type": "float64", "value": "1"}]})"),
                      "own.json", "/nonexistent");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("tag 'processes': gpugate writes a counter of this name itself"));
}

}  // namespace
}  // namespace gpugate
