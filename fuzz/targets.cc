// The fuzz targets (targets.h). Inputs name no real file: nvbench sample
// files are looked up under a folder that does not exist, so no input reaches
// a file on this machine (nor "../" out of it) and runs stay repeatable.
#include "targets.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>

#include "config/policy.h"
#include "config/suite.h"
#include "ingest/format.h"
#include "ingest/gbench.h"
#include "ingest/nvbench.h"
#include "model/baseline.h"
#include "model/merge.h"
#include "model/results_json.h"
#include "report/json.h"
#include "static/inspect.h"
#include "static/inspect_render.h"
#include "trace/analysis.h"
#include "trace/report_render.h"
#include "trace/to_results.h"
#include "trace/trace_reader.h"
#include "util/json.h"

namespace gpugate::fuzz {
namespace {

constexpr const char* kNoDir = "/nonexistent-gpugate-fuzz/dir";

std::string Text(const uint8_t* data, size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

void Check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "fuzz check failed: %s\n", what);
    std::abort();
  }
}

// A reader that rejects its input says why, with the exit code for bad input
// (2): exit 3 would say gpugate itself failed.
template <class T>
void CheckOutcome(const Result<T>& result) {
  if (result.ok()) return;
  Check(!result.error().message.empty(), "a rejection carries a message");
  Check(result.error().code == ExitCode::kInputError, "a rejected input is an input error (exit 2)");
}

// Suite YAML: the parser behind `run` and `gate` (LoadSuiteFile reads the file
// and calls LoadSuiteFromString).
void SuiteYaml(const uint8_t* data, size_t size) {
  CheckOutcome(LoadSuiteFromString(Text(data, size), "fuzz.yaml"));
}

// Policy YAML: the parser behind --policy.
void PolicyYaml(const uint8_t* data, size_t size) {
  CheckOutcome(LoadPolicyFromString(Text(data, size), "fuzz.yaml"));
}

// Results JSON (ReadResultsFile's parser). What the reader accepts, the
// writer writes back readably: merge and baseline update write what they read.
void ResultsJson(const uint8_t* data, size_t size) {
  Result<Results> results = ResultsFromJson(Text(data, size), "fuzz.json");
  CheckOutcome(results);
  if (!results.ok()) return;
  Result<Results> again = ResultsFromJson(ResultsToJson(*results), "rewritten.json");
  Check(again.ok(), "results the reader accepted are read back after writing");
}

// Baseline history JSON (ReadBaselineFile's parser), with the write-back check.
void BaselineJson(const uint8_t* data, size_t size) {
  Result<Baseline> baseline = BaselineFromJson(Text(data, size), "fuzz.json");
  CheckOutcome(baseline);
  if (!baseline.ok()) return;
  Result<Baseline> again = BaselineFromJson(BaselineToJson(*baseline), "rewritten.json");
  Check(again.ok(), "a baseline the reader accepted is read back after writing");
}

// Verdicts JSON (the reader of --json output), with the write-back check.
void VerdictsJson(const uint8_t* data, size_t size) {
  Result<Verdicts> verdicts = VerdictsFromJson(Text(data, size), "fuzz.json");
  CheckOutcome(verdicts);
  if (!verdicts.ok()) return;
  Result<Verdicts> again = VerdictsFromJson(RenderJson(*verdicts), "rewritten.json");
  Check(again.ok(), "verdicts the reader accepted are read back after rendering");
}

// Google Benchmark JSON (what IngestBenchmarkFile calls for gbench files).
void GbenchJson(const uint8_t* data, size_t size) {
  CheckOutcome(GbenchFromJson(Text(data, size), "fuzz.json"));
}

// nvbench JSON (what IngestBenchmarkFile calls for nvbench files).
void NvbenchJson(const uint8_t* data, size_t size) {
  CheckOutcome(NvbenchFromJson(Text(data, size), "fuzz.json", kNoDir));
}

// Any benchmark file as `compare` reads it: content detection, then the
// custom, pytest-benchmark, gbench or nvbench reader (IngestBenchmarkText,
// the body of IngestBenchmarkFile). Its corpus is custom and pytest JSON.
void BenchmarkFile(const uint8_t* data, size_t size) {
  IngestOptions options;
  options.bigger_is_better = size % 2 == 1;
  CheckOutcome(IngestBenchmarkText(Text(data, size), "fuzz.json", kNoDir, options));
}

// Chrome/Kineto traces (plain or gzip) as `analyze` and `compare` read them:
// the streaming reader feeding the analysis (flame graph, memory timeline and
// kernel samples on, small windows so short inputs reach the eviction
// paths), the console report, the conversion to results.
void Trace(const uint8_t* data, size_t size) {
  AnalysisOptions options;
  options.keep_kernel_samples = true;
  options.collect_flame = true;
  options.collect_memory_timeline = true;
  options.launch_window = 8;
  options.gpu_reorder_window = 8;
  TraceAnalyzer analyzer(options);
  Result<TraceInfo> info = ReadTraceFromString(Text(data, size), "fuzz.json", analyzer);
  CheckOutcome(info);
  if (!info.ok()) return;
  TraceReport report = analyzer.Finish(*info);
  (void)RenderTraceConsole(report);
  if (!report.devices.empty()) (void)TraceReportToResults(report);
}

// `gpugate merge`: up to four shard files separated by a line
// "--- shard ---" (tests/data/fuzz_seeds/merge), each read by
// ResultsFromJson (the command stops at the first that does not parse), then
// MergeShards, whose output must read back after writing.
void Merge(const uint8_t* data, size_t size) {
  constexpr std::string_view kSeparator = "\n--- shard ---\n";
  const std::string text = Text(data, size);
  std::vector<Results> shards;
  std::vector<std::string> names;
  size_t begin = 0;
  while (shards.size() < 4) {
    size_t end = text.find(kSeparator, begin);
    std::string name = "shard" + std::to_string(shards.size() + 1) + ".json";
    Result<Results> shard = ResultsFromJson(
        text.substr(begin, end == std::string::npos ? std::string::npos : end - begin), name);
    CheckOutcome(shard);
    if (!shard.ok()) return;
    shards.push_back(std::move(shard).value());
    names.push_back(name);
    if (end == std::string::npos) break;
    begin = end + kSeparator.size();
  }
  MergeOptions options;
  options.allow_partial = size % 2 == 1;
  Result<Results> merged = MergeShards(shards, names, options);
  CheckOutcome(merged);
  if (!merged.ok()) return;
  Result<Results> again = ResultsFromJson(ResultsToJson(*merged), "merged.json");
  Check(again.ok(), "a merged run is read back after writing");
}

// `gpugate inspect`: cubins, fatbins, ELF objects and ar archives, with a
// small decompression cap so zstd entries stay cheap. An inspected file
// renders to JSON that parses back.
void Inspect(const uint8_t* data, size_t size) {
  FatbinLimits limits;
  limits.max_decompressed = 1 << 20;
  Result<InspectReport> report = InspectBytes(Text(data, size), "input.bin", limits);
  CheckOutcome(report);
  if (!report.ok()) return;
  Check(!report->format.empty(), "an inspected file has a format");
  Result<JsonValue> json = ParseJson(InspectToJson(*report), "inspect.json");
  Check(json.ok(), "inspect JSON parses back");
  (void)RenderInspectTable(*report);
}

}  // namespace

const std::vector<Target>& Targets() {
  static const std::vector<Target> targets = {
      {"suite_yaml", SuiteYaml},       {"policy_yaml", PolicyYaml},
      {"results_json", ResultsJson},   {"baseline_json", BaselineJson},
      {"verdicts_json", VerdictsJson}, {"gbench_json", GbenchJson},
      {"nvbench_json", NvbenchJson},   {"benchmark_file", BenchmarkFile},
      {"trace", Trace},                {"merge", Merge},
      {"inspect", Inspect},
  };
  return targets;
}

const Target* FindTarget(std::string_view name) {
  for (const Target& t : Targets())
    if (name == t.name) return &t;
  return nullptr;
}

}  // namespace gpugate::fuzz
