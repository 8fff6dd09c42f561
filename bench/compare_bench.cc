// Benchmark of Compare(): a suite of 10,000 workloads x 100 samples per side,
// the size with a 1 s budget, as 5 rounds x 20 and as 20 rounds x 5 (the
// default round count). Also a history of 10 baseline runs. The samples
// follow the synthetic backend's model.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "../tests/compare/synthetic_suite.h"
#include "compare/compare.h"
#include "model/static_code.h"
#include "stats/change_point.h"
#include "stats/hodges_lehmann.h"

namespace gpugate {
namespace {

testing::NoiseModel BenchNoise(int rounds = 5) {
  testing::NoiseModel m;
  m.within_cv = 0.03;
  m.round_cv = 0.01;
  m.run_cv = 0.02;
  m.rounds = rounds;
  m.per_round = 100 / rounds;
  return m;
}

/// Times Compare() of `cur` against `base` under the default policy.
void CompareLoop(benchmark::State& state, const std::vector<Results>& base, const Results& cur) {
  CompareOptions options;
  options.today = "2026-11-22";
  const Policy policy = DefaultPolicy();
  for (auto _ : state) {
    Verdicts v = Compare(base, cur, policy, options);
    benchmark::DoNotOptimize(v.metrics.data());
  }
}

void BM_Compare10kWorkloads(benchmark::State& state) {
  testing::Rng rng(42);
  const int workloads = static_cast<int>(state.range(0));
  const int rounds = static_cast<int>(state.range(1));
  std::vector<Results> base{testing::MakeRun(rng, workloads, BenchNoise(rounds))};
  Results cur = testing::MakeRun(rng, workloads, BenchNoise(rounds), 1.1, {1, 7, 99});
  CompareLoop(state, base, cur);
  state.SetItemsProcessed(state.iterations() * workloads);
}
BENCHMARK(BM_Compare10kWorkloads)
    ->Args({10000, 5})
    ->Args({10000, 20})
    ->Args({256, 5})  // the largest family whose between-run noise leaves each workload out exactly
    ->Unit(benchmark::kMillisecond);

void BM_CompareHistory10Runs(benchmark::State& state) {
  testing::Rng rng(43);
  const int workloads = static_cast<int>(state.range(0));
  std::vector<Results> base;
  for (int i = 0; i < 10; ++i) base.push_back(testing::MakeRun(rng, workloads, BenchNoise()));
  Results cur = testing::MakeRun(rng, workloads, BenchNoise());
  CompareLoop(state, base, cur);
  state.SetItemsProcessed(state.iterations() * workloads);
}
BENCHMARK(BM_CompareHistory10Runs)->Arg(10000)->Unit(benchmark::kMillisecond);

/// Change-point detection over one workload's history of `n` runs with a
/// +8% step at run n/2 (the split is kept, so its permutation test draws all
/// 499 permutations, and the halves are searched again): what `gpugate
/// history` and the dashboard do per workload.
void BM_DetectChangePoints(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  std::vector<double> v;
  uint64_t s = 12345;
  for (int i = 0; i < n; ++i) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    const double u = static_cast<double>(s >> 11) / 9007199254740992.0 - 0.5;
    v.push_back(-7.0 + 0.04 * u + (i >= n / 2 ? 0.077 : 0.0));
  }
  for (auto _ : state) {
    std::vector<ChangePoint> cps = DetectChangePoints(v, ChangePointOptions{});
    benchmark::DoNotOptimize(cps);
  }
}
// The Hodges-Lehmann shift and Moses interval of two samples of n values
// each: what a one-round workload (nvbench --jsonbin samples,
// pytest-benchmark's stats.data) costs per test.
void BM_HodgesLehmannShift(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  std::vector<double> x, y;
  uint64_t seed = 88172645463325252ull;
  auto next = [&] {
    seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
    return static_cast<double>(seed >> 11) * 0x1.0p-53;
  };
  for (int i = 0; i < n; ++i) x.push_back(std::log(1e-3 * (1 + 0.05 * next())));
  for (int i = 0; i < n; ++i) y.push_back(std::log(1.1e-3 * (1 + 0.05 * next())));
  for (auto _ : state) {
    ShiftEstimate e = HodgesLehmannShift(x, y, 0.95);
    benchmark::DoNotOptimize(e.shift);
  }
}
BENCHMARK(BM_HodgesLehmannShift)->Arg(2500)->Arg(40000)->Unit(benchmark::kMillisecond);

BENCHMARK(BM_DetectChangePoints)->Arg(100)->Arg(1000)->Unit(benchmark::kMillisecond);

// Per-kernel comparison of one workload with N distinct kernels (a trace of
// many kernels, each launched a few times): time per kernel must stay flat
// as N grows (each kernel is looked up by name, never by a scan).
void BM_CompareKernels(benchmark::State& state) {
  const int kernels = static_cast<int>(state.range(0));
  auto make = [kernels](double factor) {
    Results r;
    r.run.suite = "trace";
    r.run.run_id = factor == 1 ? "base" : "cur";
    WorkloadResult w;
    w.name = "gpu0";
    w.kind = "trace";
    w.backend = "ingest";
    w.rounds = {{1.0 * factor}};
    for (int i = 0; i < kernels; ++i) {
      KernelResult k;
      k.name = "void kernel_" + std::to_string(i) + "<float, 128>(float const*, float*, int)";
      k.count = 3;
      const double d = 1e-5 * (1 + i % 17) * factor;
      k.durations_s = {d, d * 1.01, d * 0.99};
      k.total_s = 3 * d;
      w.kernels.push_back(std::move(k));
    }
    r.workloads.push_back(std::move(w));
    return r;
  };
  std::vector<Results> base{make(1.0)};
  const Results cur = make(1.02);
  CompareLoop(state, base, cur);
  state.SetItemsProcessed(state.iterations() * kernels);
}
BENCHMARK(BM_CompareKernels)->Arg(3000)->Arg(30000)->Unit(benchmark::kMillisecond);

// A static workload whose binary holds N kernels of one name ("k@sm_90",
// "k@sm_90 #2", ...), half of them changed: pairing the numbered kernels by
// their code must stay near-linear, since the binary comes from the pull
// request under test (pairwise scans took minutes at 20,000).
void BM_PairNumberedStaticKernels(benchmark::State& state) {
  const int kernels = static_cast<int>(state.range(0));
  auto make = [kernels](bool changed) {
    WorkloadResult w;
    w.name = "kernels";
    w.kind = kStaticKind;
    w.backend = "static";
    for (int i = 0; i < kernels; ++i) {
      KernelResult k;
      k.name = i == 0 ? std::string("k@sm_90") : "k@sm_90 #" + std::to_string(i + 1);
      const int code = changed && i % 2 == 1 ? i + kernels : i;
      k.attributes[kSassHashAttribute] = "0x" + std::to_string(1000000000000000 + code);
      k.attributes[kStableMangledNameAttribute] = "_Z1kv";
      k.metrics["registers_per_thread"] = 32;
      w.kernels.push_back(std::move(k));
    }
    return w;
  };
  const WorkloadResult base = make(false), head = make(true);
  for (auto _ : state) {
    WorkloadResult paired = head;
    PairNumberedKernels(base, &paired);
    benchmark::DoNotOptimize(SameStaticCode(base, paired));
  }
  state.SetItemsProcessed(state.iterations() * kernels);
}
BENCHMARK(BM_PairNumberedStaticKernels)->Arg(2000)->Arg(20000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace gpugate
