// Tests of the builtin CPU kernels and the cpu backend's batching.
#include "harness/backends/cpu_kernels.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "config/suite.h"
#include "harness/backends/cpu_backend.h"

namespace gpugate {
namespace {

std::unique_ptr<CpuKernel> Make(const std::string& name, int64_t n) {
  auto k = MakeCpuKernel(name, {{"n", n}});
  EXPECT_TRUE(k.ok()) << (k.ok() ? "" : k.error().message);
  return k.ok() ? std::move(k).value() : nullptr;
}

TEST(CpuKernelsTest, NamesMatchTheSuiteVocabulary) {
  std::vector<std::string> ours = CpuKernelNames();
  std::vector<std::string> config = BuiltinKernelNames();
  std::sort(ours.begin(), ours.end());
  std::sort(config.begin(), config.end());
  EXPECT_EQ(ours, config);
}

TEST(CpuKernelsTest, EveryKernelVerifiesAfterRunning) {
  // Sizes that are not multiples of the vector width or the sgemm blocks.
  for (const std::string& name : CpuKernelNames()) {
    for (int64_t n : {1, 37, 1001, 300}) {
      if (n == 1001 && name.rfind("sgemm", 0) == 0) continue;
      auto k = Make(name, n);
      ASSERT_NE(k, nullptr);
      EXPECT_EQ(k->Name(), name);
      k->Run();
      Status st = k->Verify();
      EXPECT_TRUE(st.ok()) << name << " n=" << n << ": " << st.error().message;
    }
  }
}

TEST(CpuKernelsTest, VerifyFailsBeforeTheKernelRan) {
  // Outputs start at zero, inputs are non-trivial: Verify must notice.
  for (const std::string& name : CpuKernelNames()) {
    auto k = Make(name, 64);
    ASSERT_NE(k, nullptr);
    EXPECT_FALSE(k->Verify().ok()) << name;
  }
}

TEST(CpuKernelsTest, RepeatedCallsStayVerifiable) {
  for (const std::string& name : CpuKernelNames()) {
    auto k = Make(name, 64);
    for (int calls = 1; calls <= 5; ++calls) {
      k->Run();
      Status st = k->Verify();
      EXPECT_TRUE(st.ok()) << name << " after " << calls << " calls: " << st.error().message;
    }
  }
  auto saxpy = Make("saxpy", 1000);
  for (int i = 0; i < 10001; ++i) saxpy->Run();
  EXPECT_TRUE(saxpy->Verify().ok());
}

TEST(CpuKernelsTest, LargeReduceVerifies) {
  // 16Mi floats: the worst-case rounding bound is vacuous here (n*u ~ 1), the
  // verification must still accept a correct float sum.
  auto k = Make("reduce", int64_t{1} << 24);
  k->Run();
  Status st = k->Verify();
  EXPECT_TRUE(st.ok()) << st.error().message;
}

TEST(CpuKernelsTest, WorkCountsFollowStreamConvention) {
  struct Case {
    const char* name;
    int64_t n;
    int64_t bytes;
    double flops;
    int64_t items;
  };
  const Case cases[] = {
      {"copy", 1000, 8000, 0, 1000},     {"triad", 1000, 12000, 2000, 1000},
      {"saxpy", 1000, 12000, 2000, 1000}, {"reduce", 1000, 4000, 1000, 1000},
      {"sgemm_naive", 10, 1200, 2000, 100}, {"sgemm_blocked", 10, 1200, 2000, 100},
  };
  for (const Case& c : cases) {
    auto k = Make(c.name, c.n);
    WorkCounts w = k->Work();
    EXPECT_EQ(w.bytes, c.bytes) << c.name;
    EXPECT_EQ(w.flops, c.flops) << c.name;
    EXPECT_EQ(w.items, c.items) << c.name;
  }
}

TEST(CpuKernelsTest, DefaultSizes) {
  EXPECT_EQ(DefaultKernelSize("triad"), 8388608);
  EXPECT_EQ(DefaultKernelSize("sgemm_blocked"), 256);
  auto k = MakeCpuKernel("sgemm_naive", {});
  ASSERT_TRUE(k.ok());
  EXPECT_EQ((*k)->Work().items, 256 * 256);
}

TEST(CpuKernelsTest, BadNamesAndSizesAreInputErrors) {
  auto typo = MakeCpuKernel("sgemm_blokced", {});
  ASSERT_FALSE(typo.ok());
  EXPECT_EQ(typo.error().code, ExitCode::kInputError);
  EXPECT_EQ(typo.error().message,
            "unknown builtin kernel 'sgemm_blokced' (did you mean 'sgemm_blocked'?)");
  auto zero = MakeCpuKernel("copy", {{"n", 0}});
  ASSERT_FALSE(zero.ok());
  EXPECT_EQ(zero.error().message, "kernel copy: size n must be positive, got 0");
  auto huge = MakeCpuKernel("sgemm_naive", {{"n", 1 << 20}});
  ASSERT_FALSE(huge.ok());
  EXPECT_NE(huge.error().message.find("16 GiB"), std::string::npos);
}

TEST(CpuKernelsTest, FillIsDeterministicAndSpread) {
  std::vector<float> a(10000), b(10000);
  detail::FillPseudoRandom(a.data(), 10000, 5, -1.0f, 1.0f);
  detail::FillPseudoRandom(b.data(), 10000, 5, -1.0f, 1.0f);
  EXPECT_EQ(a, b);
  double sum = 0;
  for (float v : a) {
    ASSERT_GE(v, -1.0f);
    ASSERT_LT(v, 1.0f);
    sum += v;
  }
  EXPECT_NEAR(sum / 10000, 0.0, 0.03);  // sd of the mean of U(-1,1): 0.0058
  detail::FillPseudoRandom(b.data(), 10000, 6, -1.0f, 1.0f);
  EXPECT_NE(a, b);
}

TEST(CpuBackendTest, CalibrateIterations) {
  EXPECT_EQ(detail::CalibrateIterations(1e-3, 1e-3, 1 << 20), 1);
  EXPECT_EQ(detail::CalibrateIterations(2e-3, 1e-3, 1 << 20), 1);
  EXPECT_EQ(detail::CalibrateIterations(1e-6, 1e-3, 1 << 20), 1024);  // 1000 calls -> 1024
  EXPECT_EQ(detail::CalibrateIterations(1e-6, 1e-3, 100), 100);
  EXPECT_EQ(detail::CalibrateIterations(0.0, 1e-3, 1 << 30), 1 << 20);  // counts as 1 ns
  EXPECT_EQ(detail::CalibrateIterations(1e-6, 0.0, 1 << 20), 1);
}

TEST(CpuBackendTest, BatchesTinyKernelsAndTimesWholeBatch) {
  WorkloadSpec spec;
  spec.kind = WorkloadKind::kBuiltin;
  spec.kernel = "copy";
  spec.sizes = {{"n", 64}};
  CpuBackend batched(CpuBackendOptions{1e-3, int64_t{1} << 30});
  auto inst = batched.Prepare(spec);
  ASSERT_TRUE(inst.ok());
  EXPECT_GT((*inst)->IterationsPerSample(), 16);
  auto s = (*inst)->RunSample();
  ASSERT_TRUE(s.ok());
  EXPECT_GT(s->seconds, 0.2e-3);  // the batch, not one ~20 ns call
  EXPECT_TRUE((*inst)->Verify().ok());

  CpuBackend single(CpuBackendOptions{0.0, int64_t{1} << 30});
  auto one = single.Prepare(spec);
  ASSERT_TRUE(one.ok());
  EXPECT_EQ((*one)->IterationsPerSample(), 1);
}

TEST(CpuBackendTest, OnlyBuiltinAndUnknownKernelFailsPrepare) {
  CpuBackend backend;
  WorkloadSpec spec;
  spec.kind = WorkloadKind::kCommand;
  EXPECT_TRUE(backend.Unsupported(spec).has_value());
  spec.kind = WorkloadKind::kBuiltin;
  spec.kernel = "fft";
  EXPECT_FALSE(backend.Unsupported(spec).has_value());
  auto r = backend.Prepare(spec);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ExitCode::kInputError);
}

}  // namespace
}  // namespace gpugate
