// A Google Benchmark program for `kind: gbench` (examples/gbench/suite.yaml):
// six small benchmarks, memory- and compute-bound. The project's CMake builds
// it twice, as build/examples/gbench/base/gbench_kernels and as
// build/examples/gbench/head/gbench_kernels, whose BM_HashChain does 30% more
// iterations of its loop per benchmark iteration (extra_work.cc, built with
// -DHASH_EXTRA_WORK_PERCENT=30) -- a genuine slowdown of one benchmark, the
// others the same machine code.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <numeric>
#include <string>
#include <vector>

int HashExtraWorkPercent();  // extra_work.cc

namespace {

uint32_t XorShift(uint32_t& x) {
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  return x;
}

void BM_VectorSum(benchmark::State& state) {
  std::vector<float> v(static_cast<size_t>(state.range(0)), 1.0f);
  for (auto _ : state) benchmark::DoNotOptimize(std::accumulate(v.begin(), v.end(), 0.0f));
  state.SetBytesProcessed(state.iterations() * state.range(0) * static_cast<int64_t>(sizeof(float)));
}
BENCHMARK(BM_VectorSum)->Arg(1 << 16);

void BM_Sort(benchmark::State& state) {
  std::vector<uint32_t> data(static_cast<size_t>(state.range(0)));
  uint32_t x = 2463534242u;
  for (auto& e : data) e = XorShift(x);
  std::vector<uint32_t> v;
  for (auto _ : state) {
    v = data;
    std::sort(v.begin(), v.end());
    benchmark::DoNotOptimize(v.data());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_Sort)->Arg(1 << 12);

// The benchmark the head build slows down.
void BM_HashChain(benchmark::State& state) {
  const int64_t steps = state.range(0) + state.range(0) * HashExtraWorkPercent() / 100;
  uint64_t h = 1469598103934665603ull;
  for (auto _ : state) {
    for (int64_t i = 0; i < steps; ++i) h = (h ^ static_cast<uint64_t>(i)) * 1099511628211ull;
    benchmark::DoNotOptimize(h);
  }
}
BENCHMARK(BM_HashChain)->Arg(4096);

void BM_StringAppend(benchmark::State& state) {
  for (auto _ : state) {
    std::string s;
    for (int64_t i = 0; i < state.range(0); ++i) s += "gpugate";
    benchmark::DoNotOptimize(s.data());
  }
}
BENCHMARK(BM_StringAppend)->Arg(256);

void BM_MapInsert(benchmark::State& state) {
  for (auto _ : state) {
    std::map<uint32_t, uint32_t> m;
    uint32_t x = 88172645u;
    for (int64_t i = 0; i < state.range(0); ++i) m[XorShift(x)] = static_cast<uint32_t>(i);
    benchmark::DoNotOptimize(m.size());
  }
}
BENCHMARK(BM_MapInsert)->Arg(512);

void BM_Matmul(benchmark::State& state) {
  const size_t n = static_cast<size_t>(state.range(0));
  std::vector<float> a(n * n, 1.0f), b(n * n, 0.5f), c(n * n);
  for (auto _ : state) {
    for (size_t i = 0; i < n; ++i)
      for (size_t j = 0; j < n; ++j) {
        float acc = 0;
        for (size_t k = 0; k < n; ++k) acc += a[i * n + k] * b[k * n + j];
        c[i * n + j] = acc;
      }
    benchmark::DoNotOptimize(c.data());
  }
  state.counters["flops"] = benchmark::Counter(2.0 * static_cast<double>(n * n * n),
                                               benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_Matmul)->Arg(48);

}  // namespace

BENCHMARK_MAIN();
