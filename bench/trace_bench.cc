// Benchmarks of the streaming trace reader and analyses. The in-memory cases
// run on a synthetic Kineto-style trace built here (~32 MiB); set
// GPUGATE_TRACE_BENCH_FILE to a large generated file (scripts/gen_trace.py) to
// also time one full `analyze` pass over it. Throughput is reported as
// bytes/second of JSON text.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <sys/stat.h>

#include "trace/analysis.h"
#include "trace/trace_reader.h"

namespace {

class NullSink : public gpugate::TraceEventSink {
 public:
  void OnEvent(const gpugate::TraceEvent& e) override { benchmark::DoNotOptimize(e.ts_ns); }
};

/// A Kineto-like trace: per iteration a CPU op, a nested op, a launch, a flow
/// pair and a kernel with Kineto's args (same shapes as scripts/gen_trace.py).
const std::string& SyntheticTrace() {
  static const std::string text = [] {
    std::string t = "{\"schemaVersion\": 1, \"deviceProperties\": [{\"id\": 0, \"name\": \"GPU\"}],\n\"traceEvents\": [\n";
    char buf[1024];
    long long ns = 1712195495000000000LL;
    const char* kernels[] = {
        "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
        "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)",
        "ampere_sgemm_128x64_tn", "void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, int, 512, true, 1>"};
    for (int i = 1; t.size() < (32u << 20); ++i) {
      auto us = [](long long v) {
        char b[40];
        std::snprintf(b, sizeof b, "%lld.%03lld", v / 1000, v % 1000);
        return std::string(b);
      };
      std::snprintf(buf, sizeof buf,
                    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::add\", \"pid\": 1, \"tid\": 1, "
                    "\"ts\": %s, \"dur\": 20.500, \"args\": {\"External id\": %d, \"Ev Idx\": %d}},\n"
                    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, "
                    "\"tid\": 1, \"ts\": %s, \"dur\": 8.250, \"args\": {\"External id\": %d, \"cbid\": 211, "
                    "\"correlation\": %d}},\n"
                    "{\"ph\": \"s\", \"id\": %d, \"pid\": 1, \"tid\": 1, \"ts\": %s, \"cat\": \"ac2g\", "
                    "\"name\": \"ac2g\"},\n",
                    us(ns).c_str(), i, i, us(ns + 2000).c_str(), i, i, i, us(ns + 2000).c_str());
      t += buf;
      std::snprintf(buf, sizeof buf,
                    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": 0, \"tid\": 7, \"ts\": %s, "
                    "\"dur\": 5.125, \"args\": {\"External id\": %d, \"queued\": 0, \"device\": 0, "
                    "\"context\": 1, \"stream\": 7, \"correlation\": %d, \"registers per thread\": 32, "
                    "\"shared memory\": 0, \"grid\": [128, 1, 1], \"block\": [256, 1, 1], "
                    "\"est. achieved occupancy %%\": 50}},\n"
                    "{\"ph\": \"f\", \"id\": %d, \"pid\": 0, \"tid\": 7, \"ts\": %s, \"cat\": \"ac2g\", "
                    "\"name\": \"ac2g\", \"bp\": \"e\"},\n",
                    kernels[i % 3], us(ns + 15000).c_str(), i, i, i, us(ns + 15000).c_str());
      t += buf;
      ns += 25000;
    }
    t += "{\"ph\": \"i\", \"name\": \"end\", \"pid\": 1, \"tid\": 1, \"ts\": 1, \"s\": \"g\"}\n]}\n";
    return t;
  }();
  return text;
}

void BM_TraceReaderParse(benchmark::State& state) {
  const std::string& text = SyntheticTrace();
  for (auto _ : state) {
    NullSink sink;
    auto info = gpugate::ReadTraceFromString(text, "synthetic.json", sink);
    if (!info.ok()) state.SkipWithError(info.error().message.c_str());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(text.size()));
}
BENCHMARK(BM_TraceReaderParse)->Unit(benchmark::kMillisecond);

void BM_TraceAnalyze(benchmark::State& state) {
  const std::string& text = SyntheticTrace();
  for (auto _ : state) {
    gpugate::TraceAnalyzer analyzer({});
    auto info = gpugate::ReadTraceFromString(text, "synthetic.json", analyzer);
    if (!info.ok()) {
      state.SkipWithError(info.error().message.c_str());
      break;
    }
    gpugate::TraceReport report = analyzer.Finish(*info);
    benchmark::DoNotOptimize(report.gpu_idle_share);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(text.size()));
}
BENCHMARK(BM_TraceAnalyze)->Unit(benchmark::kMillisecond);

/// One analysis of the file named by GPUGATE_TRACE_BENCH_FILE (skipped when unset).
void BM_TraceAnalyzeFile(benchmark::State& state) {
  const char* path = std::getenv("GPUGATE_TRACE_BENCH_FILE");
  if (!path) {
    state.SkipWithError("set GPUGATE_TRACE_BENCH_FILE to a trace from scripts/gen_trace.py");
    return;
  }
  struct stat st {};
  if (::stat(path, &st) != 0) {
    state.SkipWithError("GPUGATE_TRACE_BENCH_FILE does not exist");
    return;
  }
  for (auto _ : state) {
    auto report = gpugate::AnalyzeTrace(path, {});
    if (!report.ok()) {
      state.SkipWithError(report.error().message.c_str());
      break;
    }
    benchmark::DoNotOptimize(report->gpu_idle_share);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(st.st_size));
}
BENCHMARK(BM_TraceAnalyzeFile)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace
