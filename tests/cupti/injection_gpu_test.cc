// Device test of the injection library: `gpugate run` runs a command workload
// with profile: cupti whose command is gpugate itself running the builtin
// saxpy kernel on the GPU, so the traced program is an unmodified CUDA
// program. Skips with the reason when no device is present.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "cupti/tracer.h"
#include "harness/backends/cuda_backend.h"
#include "model/results_json.h"

namespace gpugate {
namespace {

namespace fs = std::filesystem;

TEST(CuptiInjectionGpuTest, CommandUnderTheInjectionLibraryRecordsItsKernels) {
  if (auto why = CudaUnavailableReason()) GTEST_SKIP() << *why;
  char tmpl[] = "/tmp/gpugate-cupti-gpu-XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  const fs::path dir = tmpl;
  {
    std::ofstream inner(dir / "inner.yaml");
    inner << "version: 1\nworkloads:\n  - name: saxpy\n    kind: builtin\n    kernel: saxpy\n"
             "    backend: cuda\n    params: {n: [1M]}\n    warmup: 1\n    min_samples: 3\n"
             "    max_samples: 3\n    rounds: 1\n    min_time: 0s\n";
    std::ofstream outer(dir / "outer.yaml");
    outer << "version: 1\nworkloads:\n  - name: traced\n    kind: command\n    argv: ['" << GPUGATE_BINARY
          << "', run, '" << (dir / "inner.yaml").string() << "', -o, '" << (dir / "inner.json").string()
          << "']\n    profile: cupti\n    warmup: 0\n    min_samples: 2\n    max_samples: 2\n"
             "    rounds: 1\n    min_time: 0s\n    timeout: 300s\n";
  }
  const std::string cmd = std::string(GPUGATE_BINARY) + " run '" + (dir / "outer.yaml").string() + "' -o '" +
                          (dir / "outer.json").string() + "'";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  auto results = ReadResultsFile((dir / "outer.json").string());
  ASSERT_TRUE(results.ok()) << results.error().message;
  ASSERT_EQ(results->workloads.size(), 1u);
  const WorkloadResult& w = results->workloads[0];
  ASSERT_EQ(w.status, WorkloadStatus::kOk) << w.reason;
  bool saxpy = false;
  // The backend's kernel is gpugate::(anonymous namespace)::SaxpyKernel(...).
  for (const KernelResult& k : w.kernels) saxpy = saxpy || k.name.find("SaxpyKernel") != std::string::npos;
  EXPECT_TRUE(saxpy) << "no saxpy kernel among " << w.kernels.size() << " kernels";
  for (const std::string& n : w.notes) EXPECT_EQ(n.find("recorded no GPU activity"), std::string::npos) << n;
  std::error_code ec;
  fs::remove_all(dir, ec);
}

}  // namespace
}  // namespace gpugate
