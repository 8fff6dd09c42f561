// Cost of writing and reading a large results file: 10,000 workloads x 100
// samples (5 rounds of 20), the size `compare` must handle in under a second.
#include <benchmark/benchmark.h>

#include <random>
#include <string>

#include "ingest/custom.h"
#include "model/results_json.h"
#include "util/json.h"

namespace gpugate {
namespace {

constexpr int kWorkloads = 10000;
constexpr int kRounds = 5;
constexpr int kSamplesPerRound = 20;

/// Results shaped like a real run: log-normal-ish sample times with full
/// 17-digit mantissas (the worst case for formatting and parsing).
Results LargeResults() {
  std::mt19937_64 rng(42);
  std::lognormal_distribution<double> time(-7.0, 0.05);
  Results r;
  r.run.tool_version = "0.1.0";
  r.run.suite = "bench";
  r.run.time_utc = "2026-11-21T23:59:00Z";
  r.run.run_id = "0123456789abcdef0123456789abcdef";
  r.run.env.host = "host";
  r.run.env.os = "Linux";
  r.run.env.cpu_model = "cpu";
  r.run.env.cpu_cores = 2;
  r.run.env.compiler = "GNU";
  r.workloads.reserve(kWorkloads);
  for (int i = 0; i < kWorkloads; ++i) {
    WorkloadResult& w = r.workloads.emplace_back();
    w.name = "kernel/" + std::to_string(i);
    w.kind = "builtin";
    w.backend = "cpu";
    w.params = {{"n", std::to_string(i)}};
    w.tags = {"cpu"};
    w.rounds.assign(kRounds, {});
    for (auto& round : w.rounds)
      for (int s = 0; s < kSamplesPerRound; ++s) round.push_back(time(rng));
    w.summary.n = kRounds * kSamplesPerRound;
    w.summary.median = w.rounds[0][0];
    w.summary.mean = w.rounds[0][1];
    w.summary.min = w.rounds[0][2];
    w.summary.max = w.rounds[0][3];
    w.work.bytes = 1 << 24;
    w.bytes_per_second = 1e10 + i;
  }
  return r;
}

const Results& SharedResults() {
  static const Results results = LargeResults();
  return results;
}

const std::string& SharedText() {
  static const std::string text = ResultsToJson(SharedResults());
  return text;
}

void BM_ResultsToJson_10kx100(benchmark::State& state) {
  const Results& r = SharedResults();
  size_t bytes = 0;
  for (auto _ : state) {
    std::string text = ResultsToJson(r);
    bytes = text.size();
    benchmark::DoNotOptimize(text.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
  state.counters["file_MB"] = static_cast<double>(bytes) / 1e6;
}
BENCHMARK(BM_ResultsToJson_10kx100)->Unit(benchmark::kMillisecond);

void BM_ParseJsonDom_10kx100(benchmark::State& state) {
  const std::string& text = SharedText();
  for (auto _ : state) {
    Result<JsonValue> doc = ParseJson(text, "bench.json");
    if (!doc.ok()) state.SkipWithError(doc.error().message.c_str());
    benchmark::DoNotOptimize(doc);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_ParseJsonDom_10kx100)->Unit(benchmark::kMillisecond);

void BM_ResultsFromJson_10kx100(benchmark::State& state) {
  const std::string& text = SharedText();
  for (auto _ : state) {
    Result<Results> r = ResultsFromJson(text, "bench.json");
    if (!r.ok()) state.SkipWithError(r.error().message.c_str());
    benchmark::DoNotOptimize(r);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_ResultsFromJson_10kx100)->Unit(benchmark::kMillisecond);

void BM_ResultsRoundTrip_10kx100(benchmark::State& state) {
  const Results& r = SharedResults();
  for (auto _ : state) {
    Result<Results> back = ResultsFromJson(ResultsToJson(r), "bench.json");
    if (!back.ok()) state.SkipWithError(back.error().message.c_str());
    benchmark::DoNotOptimize(back);
  }
}
BENCHMARK(BM_ResultsRoundTrip_10kx100)->Unit(benchmark::kMillisecond);

/// The custom benchmark-file reader on an array of state.range(0) entries:
/// the time per entry must stay flat as the array grows (BigO reported).
void BM_CustomIngest(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  std::string text = "[\n";
  for (int i = 0; i < n; ++i)
    text += "{\"name\": \"bench/" + std::to_string(i) + "\", \"unit\": \"ns\", \"value\": " +
            std::to_string(i + 1) + "},\n";
  text += "{\"name\": \"last\", \"unit\": \"ns\", \"value\": 1}\n]";
  for (auto _ : state) {
    Result<Results> r = CustomFromJson(text, "bench.json", false);
    if (!r.ok()) state.SkipWithError(r.error().message.c_str());
    benchmark::DoNotOptimize(r);
  }
  state.SetComplexityN(n);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_CustomIngest)->RangeMultiplier(4)->Range(12500, 200000)->Complexity()->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace gpugate
