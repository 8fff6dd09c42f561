// Harness overhead: what the runner and the backends add on top of the work
// they measure. Compare BM_CpuKernelDirect with BM_CpuRunSample (one call per
// sample, no batching) for the per-sample cost of the cpu backend, and
// BM_RunWorkloadPerSample for the whole recipe's cost per sample.
// BM_ProcessSpawnTrue is the cost of one execution of /bin/true through the
// process backend (posix_spawn, pipe, pidfd, wait4).
#include <benchmark/benchmark.h>

#include "harness/backends/cpu_backend.h"
#include "harness/backends/cpu_kernels.h"
#include "harness/backends/process_backend.h"
#include "harness/backends/synthetic_backend.h"
#include "harness/runner.h"

namespace gpugate {
namespace {

constexpr int64_t kTinyN = 64;  // 64 floats: the kernel itself takes ~10 ns

WorkloadSpec TinyCopy() {
  WorkloadSpec spec;
  spec.name = "copy/64";
  spec.kind = WorkloadKind::kBuiltin;
  spec.kernel = "copy";
  spec.sizes = {{"n", kTinyN}};
  return spec;
}

void BM_CpuKernelDirect(benchmark::State& state) {
  auto k = MakeCpuKernel("copy", {{"n", kTinyN}});
  if (!k.ok()) {
    state.SkipWithError(k.error().message.c_str());
    return;
  }
  CpuKernel& kernel = **k;
  for (auto _ : state) kernel.Run();
}
BENCHMARK(BM_CpuKernelDirect);

void BM_CpuRunSample(benchmark::State& state) {
  CpuBackend backend(CpuBackendOptions{0.0, 1});  // one call per sample
  auto inst = backend.Prepare(TinyCopy());
  if (!inst.ok()) {
    state.SkipWithError(inst.error().message.c_str());
    return;
  }
  WorkloadInstance& instance = **inst;
  for (auto _ : state) {
    auto s = instance.RunSample();
    benchmark::DoNotOptimize(s);
  }
}
BENCHMARK(BM_CpuRunSample);

// The whole recipe (Prepare, rounds, per-sample bookkeeping, Verify,
// Summarize) for 1000 unbatched samples of the tiny kernel; the reported
// time is per sample.
void BM_RunWorkloadPerSample(benchmark::State& state) {
  WorkloadSpec spec = TinyCopy();
  spec.sampling.warmup = 0;
  spec.sampling.min_samples = 1000;
  spec.sampling.max_samples = 1000;
  spec.sampling.min_time = 0;
  spec.sampling.rounds = 5;
  CpuBackend backend(CpuBackendOptions{0.0, 1});
  for (auto _ : state) {
    WorkloadResult r = RunWorkload(spec, backend);
    benchmark::DoNotOptimize(r.summary.median);
  }
  state.SetItemsProcessed(state.iterations() * 1000);
  state.counters["per_sample"] = benchmark::Counter(
      static_cast<double>(state.iterations()) * 1000, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_RunWorkloadPerSample)->Unit(benchmark::kMicrosecond);

// The same recipe over the synthetic backend (no kernel at all): the floor
// of the runner's own cost per sample, including the adaptive CI checks.
void BM_RunWorkloadSyntheticPerSample(benchmark::State& state) {
  WorkloadSpec spec;
  spec.name = "synthetic/bench";
  spec.kind = WorkloadKind::kSynthetic;
  spec.synthetic.cv = 0.2;
  spec.sampling.warmup = 0;
  spec.sampling.min_samples = 10;
  spec.sampling.max_samples = 200;
  spec.sampling.min_time = 0;
  spec.sampling.target_rel_ci = 0.0;  // never converges: 200 samples, 100 rounds
  SyntheticBackend backend;
  for (auto _ : state) {
    WorkloadResult r = RunWorkload(spec, backend);
    benchmark::DoNotOptimize(r.summary.median);
  }
  state.counters["per_sample"] = benchmark::Counter(
      static_cast<double>(state.iterations()) * 200, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_RunWorkloadSyntheticPerSample)->Unit(benchmark::kMicrosecond);

// The adaptive phase at scale: one-sample rounds up to max_samples = N that
// never converge. The cost per sample must not grow with N (a check that
// merged or inserted into every sample taken so far would make it linear).
void BM_RunWorkloadAdaptiveScaling(benchmark::State& state) {
  const int64_t n = state.range(0);
  WorkloadSpec spec;
  spec.name = "synthetic/adaptive";
  spec.kind = WorkloadKind::kSynthetic;
  spec.synthetic.cv = 0.02;
  spec.sampling.warmup = 0;
  spec.sampling.min_samples = 10;
  spec.sampling.max_samples = n;
  spec.sampling.rounds = 10;
  spec.sampling.min_time = 0;
  spec.sampling.max_time = 1e6;
  spec.sampling.timeout = 1e6;
  spec.sampling.target_rel_ci = 1e-9;  // never converges: N samples, one per extra round
  SyntheticBackend backend;
  for (auto _ : state) {
    WorkloadResult r = RunWorkload(spec, backend);
    benchmark::DoNotOptimize(r.summary.median);
  }
  state.counters["per_sample"] = benchmark::Counter(
      static_cast<double>(state.iterations()) * static_cast<double>(n),
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_RunWorkloadAdaptiveScaling)->Arg(20000)->Arg(200000)->Unit(benchmark::kMillisecond);

void BM_ProcessSpawnTrue(benchmark::State& state) {
  WorkloadSpec spec;
  spec.name = "true";
  spec.kind = WorkloadKind::kCommand;
  spec.argv = {"/bin/true"};
  spec.sampling.timeout = 1e9;
  ProcessBackend backend;
  auto inst = backend.Prepare(spec);
  if (!inst.ok()) {
    state.SkipWithError(inst.error().message.c_str());
    return;
  }
  double wall = 0;
  for (auto _ : state) {
    auto s = (*inst)->RunSample();
    if (!s.ok()) {
      state.SkipWithError(s.error().message.c_str());
      return;
    }
    wall += s->seconds;
  }
  state.counters["measured_wall"] =
      benchmark::Counter(wall / static_cast<double>(state.iterations()));
}
BENCHMARK(BM_ProcessSpawnTrue)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace gpugate
