// Overhead of the in-process profiler's scopes (include/gpugate/profiler.h):
// an empty region, disabled (a branch on a flag) and enabled (two
// steady_clock reads, a lookup of the name in the thread's buffer and a
// Welford update under the buffer's uncontended mutex). Figures: bench/README.md.
#include <benchmark/benchmark.h>

#include <gpugate/profiler.h>

namespace {

void BM_ProfilerScopeDisabled(benchmark::State& state) {
  gpugate::Profiler profiler(gpugate::ProfilerOptions{.enabled = false});
  for (auto _ : state) {
    auto s = profiler.Scope("region");
    benchmark::DoNotOptimize(s);
  }
}
BENCHMARK(BM_ProfilerScopeDisabled);

void BM_ProfilerScopeEnabled(benchmark::State& state) {
  // Samples are not kept (statistics only), so memory stays flat however
  // many iterations the library picks; keeping them adds a vector append.
  // One profiler shared by the benchmark's threads (Threads(2): two buffers).
  static gpugate::Profiler profiler(gpugate::ProfilerOptions{.max_samples_per_operation = 0});
  for (auto _ : state) {
    auto s = profiler.Scope("region");
    benchmark::DoNotOptimize(s);
  }
}
BENCHMARK(BM_ProfilerScopeEnabled)->Threads(1)->Threads(2);

void BM_ProfilerScopeEnabledKeepingSamples(benchmark::State& state) {
  gpugate::Profiler profiler(gpugate::ProfilerOptions{.max_samples_per_operation = 100000});
  for (auto _ : state) {
    auto s = profiler.Scope("region");
    benchmark::DoNotOptimize(s);
  }
}
BENCHMARK(BM_ProfilerScopeEnabledKeepingSamples);

void BM_SteadyClockNow(benchmark::State& state) {  // the floor: one of the two clock reads
  for (auto _ : state) benchmark::DoNotOptimize(std::chrono::steady_clock::now());
}
BENCHMARK(BM_SteadyClockNow);

}  // namespace
