// Benchmark of the gate's loop around the judge (RunGate) for one Google
// Benchmark program of N benchmarks, every one of them doubtful after the
// first run, and one confirmation re-run. The runner hands back results
// made beforehand, so what is timed is the gate's own work: two judgements
// and the bookkeeping of the re-run (which benchmarks to select, merging the
// re-run's rounds), which looked results up by name with a scan per name
// (BF3: 40,000 doubtful benchmarks cost a minute a step).
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "../tests/compare/synthetic_suite.h"
#include "gate/gate.h"

namespace gpugate {
namespace {

Results Named(Results r) {
  for (WorkloadResult& w : r.workloads) {
    w.name = "prog/BM_Bench/" + w.name;
    w.kind = "gbench";
    w.backend = "process";
  }
  return r;
}

void BM_GateReRunsDoubtfulBenchmarks(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  testing::NoiseModel noise;
  noise.within_cv = 0.05;
  noise.round_cv = 0.05;
  noise.run_cv = 0.10;  // noisy: nothing is unchanged within 3%, every benchmark stays doubtful
  noise.rounds = 3;
  noise.per_round = 3;
  testing::Rng rng(44);
  const std::vector<Results> baseline{Named(testing::MakeRun(rng, n, noise))};
  const Results first = Named(testing::MakeRun(rng, n, noise));
  const Results rerun = Named(testing::MakeRun(rng, n, noise));
  WorkloadSpec program;
  program.name = "prog";
  program.kind = WorkloadKind::kGbench;
  program.argv = {"/opt/bench/prog"};
  GateOptions options;
  options.confirmations = 1;
  options.compare.today = "2026-11-30";
  const Policy policy = DefaultPolicy();
  size_t doubtful = 0;
  for (auto _ : state) {
    int calls = 0;
    SuiteRunner runner = [&](const std::vector<WorkloadSpec>& specs, const RunOptions&, ProgressSink*) {
      if (calls++ > 0 && !specs.empty()) doubtful = specs.front().only_benchmarks.size();
      return calls == 1 ? first : rerun;
    };
    GateOutcome out = RunGate({program}, baseline, policy, options, nullptr, runner);
    benchmark::DoNotOptimize(out.verdicts.metrics.data());
  }
  state.counters["doubtful_selected_by_name"] = static_cast<double>(doubtful);
  state.SetItemsProcessed(state.iterations() * n);
}
BENCHMARK(BM_GateReRunsDoubtfulBenchmarks)->Arg(5000)->Arg(20000)->Unit(benchmark::kMillisecond)->Iterations(2);

}  // namespace
}  // namespace gpugate
