// Tests of `profile: cupti` on the gpugate side without a GPU: finding the
// injection library, reading the trace an execution leaves, pooling kernels
// over executions, the suite keys, and the process backend and gbench runner
// with a stand-in for the injection library (a command that writes the trace
// to $GPUGATE_CUPTI_TRACE itself — the seam between gpugate and the library).
#include "cupti/profile.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "config/suite.h"
#include "cupti/chrome_trace.h"
#include "cupti/records.h"
#include "harness/backends/process_backend.h"
#include "harness/program_runner.h"
#include "harness/runner.h"

namespace gpugate {
namespace {

namespace fs = std::filesystem;

KernelRecord MakeKernel(const std::string& name, int64_t start, int64_t dur) {
  KernelRecord k;
  k.name = name;
  k.start_ns = 1'700'000'000'000'000'000 + start;
  k.end_ns = k.start_ns + dur;
  k.stream = 7;
  k.registers_per_thread = 40;
  return k;
}

void WriteText(const fs::path& p, const std::string& text) {
  std::ofstream out(p);
  out << text;
}

// Sets an environment variable for one test, restoring it afterwards.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_) {
      ::setenv(name_, old_->c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

class CuptiProfileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/gpugate-cupti-test-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    // A trace as the injection library writes it: two kernels.
    TraceRecords r;
    r.process_id = 99;
    r.kernels.push_back(MakeKernel("gemm", 0, 5000));
    r.kernels.push_back(MakeKernel("gemm", 6000, 5100));
    r.kernels.push_back(MakeKernel("relu", 12000, 700));
    trace_fixture_ = dir_ / "fixture.json";
    WriteText(trace_fixture_, WriteChromeTrace(r));
    // Any existing file stands for the library here: nothing loads it.
    fake_library_ = dir_ / "libgpugate_inject.so";
    WriteText(fake_library_, "not a library");
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  WorkloadSpec Command(const std::string& shell_line) {
    WorkloadSpec spec;
    spec.name = "traced";
    spec.kind = WorkloadKind::kCommand;
    spec.shell = true;
    spec.argv = {shell_line};
    spec.profile = "cupti";
    spec.sampling.warmup = 1;
    spec.sampling.min_samples = 3;
    spec.sampling.max_samples = 3;
    spec.sampling.rounds = 1;
    spec.sampling.min_time = 0;
    spec.sampling.timeout = 60;
    return spec;
  }

  fs::path dir_, trace_fixture_, fake_library_;
};

TEST_F(CuptiProfileTest, FindsTheLibraryNextToTheExecutableOrInTheInstallLibdir) {
  fs::create_directories(dir_ / "bin");
  fs::create_directories(dir_ / "lib");
  const std::string exe = (dir_ / "bin" / "gpugate").string();
  auto missing = FindInjectionLibrary(exe);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, ExitCode::kToolError);
  EXPECT_NE(missing.error().message.find("libgpugate_inject.so is not installed"), std::string::npos);
  EXPECT_NE(missing.error().message.find((dir_ / "bin" / "libgpugate_inject.so").string()), std::string::npos);
  EXPECT_NE(missing.error().message.find("GPUGATE_CUPTI_LIBRARY"), std::string::npos);

  WriteText(dir_ / "lib" / "libgpugate_inject.so", "x");
  auto installed = FindInjectionLibrary(exe);
  ASSERT_TRUE(installed.ok()) << installed.error().message;
  EXPECT_EQ(*installed, fs::canonical(dir_ / "lib" / "libgpugate_inject.so").string());

  WriteText(dir_ / "bin" / "libgpugate_inject.so", "x");
  auto beside = FindInjectionLibrary(exe);
  ASSERT_TRUE(beside.ok());
  EXPECT_EQ(*beside, fs::canonical(dir_ / "bin" / "libgpugate_inject.so").string());
}

TEST_F(CuptiProfileTest, LibraryEnvironmentVariableMustNameAFile) {
  ScopedEnv env(kCuptiLibraryEnv, (dir_ / "nope.so").string());
  auto r = FindInjectionLibrary();
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("nope.so', which is not a file"), std::string::npos);
}

TEST_F(CuptiProfileTest, ReadsKernelsOfOneExecution) {
  auto e = ReadCuptiExecution(trace_fixture_.string());
  ASSERT_TRUE(e.ok()) << e.error().message;
  EXPECT_TRUE(e->traced);
  EXPECT_TRUE(e->gpu_activity);
  ASSERT_EQ(e->kernels.size(), 2u);
  EXPECT_EQ(e->kernels[0].name, "gemm");
  EXPECT_EQ(e->kernels[0].count, 2);
  ASSERT_EQ(e->kernels[0].durations_s.size(), 2u);
  EXPECT_DOUBLE_EQ(e->kernels[0].durations_s[1], 5100e-9);
}

TEST_F(CuptiProfileTest, NoTraceMeansCudaWasNeverInitialised) {
  auto e = ReadCuptiExecution((dir_ / "absent.json").string());
  ASSERT_TRUE(e.ok());
  EXPECT_FALSE(e->traced);
  EXPECT_FALSE(e->gpu_activity);
}

TEST_F(CuptiProfileTest, ATraceThatWasStartedButNeverWrittenIsSaid) {
  // The injection library writes "<trace>.started" as tracing starts; a
  // program that then ends through _exit or os._exit runs no exit handler
  // and writes no trace. That is not "never initialised CUDA".
  const fs::path trace = dir_ / "t.json";
  WriteText(fs::path(trace.string() + ".started"), "4242\n");
  auto e = ReadCuptiExecution(trace.string());
  ASSERT_TRUE(e.ok());
  EXPECT_FALSE(e->traced);
  EXPECT_TRUE(e->unwritten);
  CuptiKernelPool pool;
  pool.Add(*e);
  pool.Add(CuptiExecution{});
  WorkloadResult w;
  pool.Annotate(w);
  ASSERT_EQ(w.notes.size(), 1u);
  EXPECT_EQ(w.notes[0],
            "profile: cupti recorded no GPU activity (1 of 2 executions initialised CUDA but ended without "
            "running their exit handlers (_exit, os._exit or a signal), so their traces were never written)");
  EXPECT_EQ(w.notes[0].find("never initialised CUDA"), std::string::npos);
  // Beside executions that were traced, it is a note of its own.
  Result<CuptiExecution> traced = ReadCuptiExecution(trace_fixture_.string());
  ASSERT_TRUE(traced.ok());
  CuptiKernelPool mixed;
  mixed.Add(*traced);
  mixed.Add(*e);
  WorkloadResult m;
  mixed.Annotate(m);
  EXPECT_EQ(m.kernels.size(), 2u);
  bool said = false;
  for (const std::string& n : m.notes)
    said = said || n == "profile: cupti: 1 of 2 executions initialised CUDA but ended without running their exit "
                        "handlers (_exit, os._exit or a signal), so their traces were never written";
  EXPECT_TRUE(said);
}

// Pooled over executions, the launches a CUDA graph made add up like
// `count` (one execution's value made 2,400 of 3,600 graph-launched kernels
// read as host launches), and the launch configuration is that of the
// execution in which the kernel took the most time, whatever their order.
TEST_F(CuptiProfileTest, PoolingAddsGraphLaunchesAndKeepsTheLargestExecutionsConfiguration) {
  auto execution = [](double total_s, double grid, double graph_launches) {
    CuptiExecution e;
    e.traced = e.gpu_activity = true;
    KernelResult k;
    k.name = "tiny";
    k.count = 1200;
    k.total_s = total_s;
    k.durations_s.assign(1200, total_s / 1200);
    k.metrics = {{"grid_blocks", grid}, {"block_threads", 128}};
    if (graph_launches > 0) k.metrics["graph_launches"] = graph_launches;
    e.kernels = {k};
    return e;
  };
  for (bool largest_first : {true, false}) {
    CuptiKernelPool pool;
    if (largest_first) pool.Add(execution(9e-3, 64, 1200));
    pool.Add(execution(3e-3, 8, 1200));
    pool.Add(execution(3.6e-3, 8, 0));
    if (!largest_first) pool.Add(execution(9e-3, 64, 1200));
    WorkloadResult w;
    pool.Annotate(w);
    ASSERT_EQ(w.kernels.size(), 1u);
    EXPECT_EQ(w.kernels[0].count, 3600);
    EXPECT_EQ(w.kernels[0].metrics.at("graph_launches"), 2400) << largest_first;
    EXPECT_EQ(w.kernels[0].metrics.at("grid_blocks"), 64) << largest_first;
  }
  CuptiKernelPool none;
  none.Add(execution(1e-3, 8, 0));
  none.Add(execution(1e-3, 8, 0));
  WorkloadResult w;
  none.Annotate(w);
  ASSERT_EQ(w.kernels.size(), 1u);
  EXPECT_EQ(w.kernels[0].metrics.count("graph_launches"), 0u);
}

TEST_F(CuptiProfileTest, TheEnvironmentNamesTheLibraryToCudaAndNvtx) {
  const auto env = CuptiExecutionEnvironment("/lib/x.so", "/tmp/t.json");
  const std::vector<std::pair<std::string, std::string>> want = {
      {"CUDA_INJECTION64_PATH", "/lib/x.so"}, {"NVTX_INJECTION64_PATH", "/lib/x.so"}, {"GPUGATE_CUPTI_TRACE", "/tmp/t.json"}};
  EXPECT_EQ(env, want);
}

TEST_F(CuptiProfileTest, ErrorFileNamesTheOtherProfiler) {
  const fs::path trace = dir_ / "t.json";
  WriteText(fs::path(trace.string() + ".error"),
            "another profiler is attached to this process ('CUPTI for Nsight Systems'; ...)\n");
  auto e = ReadCuptiExecution(trace.string());
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().code, ExitCode::kToolError);
  EXPECT_EQ(e.error().message,
            "profile: cupti: another profiler is attached to this process ('CUPTI for Nsight Systems'; ...)");
}

TEST_F(CuptiProfileTest, UnreadableTraceIsAnError) {
  const fs::path trace = dir_ / "t.json";
  WriteText(trace, "{\"traceEvents\": [");
  auto e = ReadCuptiExecution(trace.string());
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().message.find("unreadable"), std::string::npos);
}

TEST_F(CuptiProfileTest, PoolWithoutGpuActivityCarriesAnHonestNote) {
  CuptiKernelPool pool;
  WorkloadResult failed_first;  // no execution measured: nothing to say
  pool.Annotate(failed_first);
  EXPECT_TRUE(failed_first.notes.empty());
  EXPECT_TRUE(failed_first.counters.empty());
  pool.Add(CuptiExecution{});
  pool.Add(CuptiExecution{});
  WorkloadResult w;
  pool.Annotate(w);
  EXPECT_TRUE(w.kernels.empty());
  ASSERT_EQ(w.notes.size(), 1u);
  EXPECT_EQ(w.notes[0].rfind("profile: cupti recorded no GPU activity (the program never initialised CUDA", 0), 0u)
      << w.notes[0];
  EXPECT_EQ(w.counters.at("cupti_executions"), 2);
  EXPECT_EQ(w.counters.at("cupti_executions_with_gpu_activity"), 0);
}

TEST_F(CuptiProfileTest, ProcessBackendPoolsKernelsOfMeasuredExecutionsOnly) {
  ScopedEnv lib(kCuptiLibraryEnv, fake_library_.string());
  // Stands in for the library: checks CUDA_INJECTION64_PATH and
  // NVTX_INJECTION64_PATH (NVTX reaches CUPTI only through the library it
  // names), writes the trace.
  const std::string line = "test \"$CUDA_INJECTION64_PATH\" = '" + fake_library_.string() +
                           "' && test \"$NVTX_INJECTION64_PATH\" = '" + fake_library_.string() +
                           "' && cp '" + trace_fixture_.string() + "' \"$GPUGATE_CUPTI_TRACE\"";
  ProcessBackend backend;
  WorkloadResult r = RunWorkload(Command(line), backend);
  ASSERT_EQ(r.status, WorkloadStatus::kOk) << r.reason;
  ASSERT_EQ(AllSamples(r).size(), 3u);
  ASSERT_EQ(r.kernels.size(), 2u);
  // 3 measured executions x 2 instances (the warmup execution is left out).
  EXPECT_EQ(r.kernels[0].name, "gemm");
  EXPECT_EQ(r.kernels[0].count, 6);
  EXPECT_EQ(r.kernels[0].durations_s.size(), 6u);
  EXPECT_EQ(r.kernels[1].count, 3);
  EXPECT_EQ(r.counters.at("cupti_executions"), 3);
  bool noted = false;
  for (const std::string& n : r.notes) noted = noted || n.find("3 of 3 measured executions pooled") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST_F(CuptiProfileTest, ProcessBackendWithoutCudaWorkNotesNoGpuActivity) {
  ScopedEnv lib(kCuptiLibraryEnv, fake_library_.string());
  ProcessBackend backend;
  WorkloadResult r = RunWorkload(Command("true"), backend);
  ASSERT_EQ(r.status, WorkloadStatus::kOk) << r.reason;
  EXPECT_TRUE(r.kernels.empty());
  bool noted = false;
  for (const std::string& n : r.notes) noted = noted || n.rfind("profile: cupti recorded no GPU activity", 0) == 0;
  EXPECT_TRUE(noted);
}

TEST_F(CuptiProfileTest, ProcessBackendFailsWhenAnotherProfilerHoldsCupti) {
  ScopedEnv lib(kCuptiLibraryEnv, fake_library_.string());
  ProcessBackend backend;
  WorkloadResult r = RunWorkload(
      Command("echo \"another profiler is attached to this process ('CUPTI for Nsight Compute')\" > "
              "\"$GPUGATE_CUPTI_TRACE.error\""),
      backend);
  EXPECT_EQ(r.status, WorkloadStatus::kFailed);
  EXPECT_NE(r.reason.find("profile: cupti: another profiler is attached to this process ('CUPTI for Nsight Compute')"),
            std::string::npos)
      << r.reason;
}

TEST_F(CuptiProfileTest, ProcessBackendFailsClearlyWithoutTheLibrary) {
  ScopedEnv lib(kCuptiLibraryEnv, (dir_ / "missing.so").string());
  ProcessBackend backend;
  WorkloadResult r = RunWorkload(Command("true"), backend);
  EXPECT_NE(r.status, WorkloadStatus::kOk);
  EXPECT_NE(r.reason.find("GPUGATE_CUPTI_LIBRARY names"), std::string::npos) << r.reason;
}

TEST_F(CuptiProfileTest, GbenchProcessKernelsGoToEveryBenchmarkWithANote) {
  ScopedEnv lib(kCuptiLibraryEnv, fake_library_.string());
  // A Google Benchmark stand-in: writes its JSON to --benchmark_out and the trace.
  const fs::path program = dir_ / "fake_gbench.sh";
  WriteText(program,
            "#!/bin/sh\n"
            "for a in \"$@\"; do case \"$a\" in --benchmark_out=*) out=\"${a#--benchmark_out=}\";; esac; done\n"
            "cp '" + trace_fixture_.string() + "' \"$GPUGATE_CUPTI_TRACE\"\n"
            "cat > \"$out\" <<'JSON'\n"
            "{\"context\": {\"date\": \"2026-01-01\", \"num_cpus\": 1, \"mhz_per_cpu\": 1000,\n"
            " \"cpu_scaling_enabled\": false, \"library_build_type\": \"release\"},\n"
            " \"benchmarks\": [\n"
            "  {\"name\": \"BM_A\", \"run_name\": \"BM_A\", \"run_type\": \"iteration\", \"repetitions\": 1,\n"
            "   \"repetition_index\": 0, \"threads\": 1, \"iterations\": 10, \"real_time\": 100,\n"
            "   \"cpu_time\": 100, \"time_unit\": \"ns\"},\n"
            "  {\"name\": \"BM_B\", \"run_name\": \"BM_B\", \"run_type\": \"iteration\", \"repetitions\": 1,\n"
            "   \"repetition_index\": 0, \"threads\": 1, \"iterations\": 10, \"real_time\": 200,\n"
            "   \"cpu_time\": 200, \"time_unit\": \"ns\"}]}\n"
            "JSON\n");
  fs::permissions(program, fs::perms::owner_all);
  WorkloadSpec spec;
  spec.name = "gb";
  spec.kind = WorkloadKind::kGbench;
  spec.argv = {program.string()};
  spec.profile = "cupti";
  spec.sampling.rounds = 2;
  spec.sampling.max_time = 60;
  spec.sampling.timeout = 60;
  std::vector<WorkloadResult> out = RunProgramWorkload(spec);
  ASSERT_EQ(out.size(), 2u);
  for (const WorkloadResult& w : out) {
    ASSERT_EQ(w.status, WorkloadStatus::kOk) << w.reason;
    ASSERT_EQ(w.kernels.size(), 2u) << w.name;
    EXPECT_EQ(w.kernels[0].count, 4);  // 2 processes x 2 instances
    bool noted = false;
    for (const std::string& n : w.notes) noted = noted || n.find("the kernels are those of the whole process") != std::string::npos;
    EXPECT_TRUE(noted) << w.name;
  }
}

std::string SuiteWith(const std::string& workload) {
  return "version: 1\nworkloads:\n" + workload;
}

TEST(CuptiSuiteTest, ProfileKeyFollowsTheBuild) {
  auto s = LoadSuiteFromString(SuiteWith("  - name: t\n    kind: command\n    argv: [/bin/true]\n    profile: cupti\n"),
                               "s.yaml");
  auto g = LoadSuiteFromString(SuiteWith("  - name: g\n    kind: gbench\n    argv: [/bin/true]\n    profile: cupti\n"),
                               "s.yaml");
  if (CuptiProfileBuilt()) {
    ASSERT_TRUE(s.ok()) << s.error().message;
    EXPECT_EQ(s->workloads[0].profile, "cupti");
    ASSERT_TRUE(g.ok()) << g.error().message;
    EXPECT_EQ(g->workloads[0].profile, "cupti");
  } else {
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.error().message.find("s.yaml:6:14: profile 'cupti' is not built in this gpugate"), std::string::npos)
        << s.error().message;
    ASSERT_FALSE(g.ok());
  }
}

TEST(CuptiSuiteTest, ProfileRejectsCombinationsItCannotRecord) {
  if (!CuptiProfileBuilt()) GTEST_SKIP() << "this build has no CUDA: profile: cupti is refused before these checks";
  auto m = LoadSuiteFromString(
      SuiteWith("  - name: t\n    kind: command\n    argv: [/bin/true]\n    measure: instructions\n    profile: cupti\n"),
      "s.yaml");
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.error().message.find("profile: cupti and measure: instructions do not go together"), std::string::npos)
      << m.error().message;
  auto nv = LoadSuiteFromString(SuiteWith("  - name: t\n    kind: nvbench\n    argv: [/bin/true]\n    profile: cupti\n"),
                                "s.yaml");
  ASSERT_FALSE(nv.ok());
  EXPECT_NE(nv.error().message.find("profile"), std::string::npos) << nv.error().message;
  auto bad = LoadSuiteFromString(SuiteWith("  - name: t\n    kind: command\n    argv: [/bin/true]\n    profile: nsys\n"),
                                 "s.yaml");
  ASSERT_FALSE(bad.ok());
}

}  // namespace
}  // namespace gpugate
