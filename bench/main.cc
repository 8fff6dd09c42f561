// Entry point of gpugate_bench (Google Benchmark microbenchmarks of gpugate).
#include <benchmark/benchmark.h>

BENCHMARK_MAIN();
