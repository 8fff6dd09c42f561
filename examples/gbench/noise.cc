// A small Google Benchmark program for measuring real noise between runs
// (scripts/gbench_real_noise.sh): memory-bound sums, a sort, an allocation
// and string appends. Build with -DSTRING_APPENDS=200 for a variant whose
// BM_String does twice the work and everything else is the same.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#ifndef STRING_APPENDS
#define STRING_APPENDS 100
#endif

static void BM_VectorSum(benchmark::State& state) {
  std::vector<float> v(static_cast<size_t>(state.range(0)), 1.0f);
  for (auto _ : state) benchmark::DoNotOptimize(std::accumulate(v.begin(), v.end(), 0.0f));
}
BENCHMARK(BM_VectorSum)->Arg(1 << 10)->Arg(1 << 16)->Arg(1 << 20);

static void BM_Sort(benchmark::State& state) {
  std::vector<uint32_t> v(static_cast<size_t>(state.range(0)));
  uint32_t x = 2463534242u;  // xorshift32
  for (auto& e : v) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    e = x;
  }
  for (auto _ : state) {
    std::vector<uint32_t> w = v;
    std::sort(w.begin(), w.end());
    benchmark::DoNotOptimize(w.data());
  }
}
BENCHMARK(BM_Sort)->Arg(1 << 12);

static void BM_Alloc(benchmark::State& state) {
  for (auto _ : state) {
    std::vector<char> v(static_cast<size_t>(state.range(0)));
    benchmark::DoNotOptimize(v.data());
  }
}
BENCHMARK(BM_Alloc)->Arg(4096);

static void BM_String(benchmark::State& state) {
  for (auto _ : state) {
    std::string s;
    for (int i = 0; i < STRING_APPENDS; ++i) s += "abc";
    benchmark::DoNotOptimize(s.data());
  }
}
BENCHMARK(BM_String);

BENCHMARK_MAIN();
