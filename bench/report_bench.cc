// Benchmarks of the Markdown report and of the one function that fits it to
// GitHub's limits (RenderMarkdownFitted): a pull-request comment (60,000
// bytes) and the step summary (1,000,000 bytes) of 100,000 results, half of
// them regressions. Fitting searches the number of rows that fit, rendering
// the view once per step of the search.
#include <benchmark/benchmark.h>

#include <string>

#include "model/verdicts.h"
#include "report/github.h"
#include "report/markdown.h"

namespace gpugate {
namespace {

Verdicts ManyVerdicts(int n) {
  Verdicts v;
  v.outcome = Outcome::kFail;
  v.policy_name = "default";
  for (int i = 0; i < n; ++i) {
    MetricVerdict m;
    m.workload = "suite/bench_" + std::to_string(i) + "/size:" + std::to_string(1 << (i % 20));
    m.metric = "time";
    m.verdict = i % 2 ? Verdict::kRegression : Verdict::kUnchanged;
    m.reason = i % 2 ? Reason::kSignificantAboveThreshold : Reason::kWithinThreshold;
    m.ratio = i % 2 ? 1.12 : 1.001;
    m.ci_low = *m.ratio - 0.02;
    m.ci_high = *m.ratio + 0.02;
    m.p_value = 1e-4;
    m.p_adjusted = 2e-4;
    m.mde = 0.05;
    m.threshold = 0.03;
    m.baseline_value = 1e-3;
    m.current_value = 1e-3 * *m.ratio;
    m.baseline_n = m.current_n = 20;
    m.baseline_rounds = m.current_rounds = 5;
    m.sentence = "+12.0% [+10.0%, +14.0%] exceeds the 3% threshold; 20 vs 20 samples over 5 rounds";
    v.metrics.push_back(std::move(m));
  }
  return v;
}

/// Times one renderer over `state.range(0)` results; counts its bytes.
void RenderLoop(benchmark::State& state, std::string (*render)(const Verdicts&, const ReportOptions&)) {
  const Verdicts v = ManyVerdicts(static_cast<int>(state.range(0)));
  size_t bytes = 0;
  for (auto _ : state) {
    const std::string md = render(v, ReportOptions{});
    bytes = md.size();
    benchmark::DoNotOptimize(md.data());
  }
  state.counters["bytes"] = static_cast<double>(bytes);
}

void BM_RenderMarkdown(benchmark::State& state) { RenderLoop(state, &RenderMarkdown); }
void BM_RenderGithubComment(benchmark::State& state) { RenderLoop(state, &RenderGithubComment); }
void BM_RenderGithubStepSummary(benchmark::State& state) { RenderLoop(state, &RenderGithubStepSummary); }
BENCHMARK(BM_RenderMarkdown)->Arg(100000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RenderGithubComment)->Arg(100000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RenderGithubStepSummary)->Arg(100000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace gpugate
