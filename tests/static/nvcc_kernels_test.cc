// gpugate inspect against ptxas -v, on kernels nvcc compiles at build time
// (tests/static/kernels, CMake's gpugate_static_kernels): cubins for sm_80
// and sm_90 (one forced to spill), a cluster kernel, fatbins for sm_80 +
// sm_90 with nvcc's default compression and -compress-mode=size, objects
// (also -rdc), a static and a shared library. Kernel by kernel and
// architecture by architecture: registers, stack frame, shared memory,
// barriers and, where ptxas prints it, cmem[0]. Skips without nvcc.
#include <gtest/gtest.h>

#include <set>

#include "static/inspect.h"
#include "static/ptxas_v_lines.h"
#include "util/fs.h"

namespace gpugate {
namespace {

#ifdef GPUGATE_STATIC_KERNELS_DIR
const std::string kDir = GPUGATE_STATIC_KERNELS_DIR;
#endif

struct Artifact {
  const char* file;
  const char* format;
  std::set<int> archs;
  bool size_compressed;  ///< -compress-mode=size: SASS entries zstd-compressed
};

const Artifact kArtifacts[] = {
    {"kernels_sm80.cubin", "cubin", {80}, false},
    {"kernels_sm90.cubin", "cubin", {90}, false},
    {"kernels_sm90_spill.cubin", "cubin", {90}, false},
    {"cluster_sm90.cubin", "cubin", {90}, false},
    {"kernels_two_arch.fatbin", "fatbin", {80, 90}, false},
    {"kernels_two_arch_size.fatbin", "fatbin", {80, 90}, true},
    {"cluster_two_arch.fatbin", "fatbin", {90, 100}, false},
    {"kernels_two_arch.o", "elf", {80, 90}, false},
    {"kernels_two_arch_size.o", "elf", {80, 90}, true},
    {"kernels_rdc.o", "elf", {80, 90}, false},
    {"kernels_two_arch.so", "elf", {80, 90}, false},
    {"kernels_two_arch.a", "archive", {80, 90}, false},
};

class NvccKernelsTest : public ::testing::TestWithParam<Artifact> {};

TEST_P(NvccKernelsTest, MatchesPtxas) {
#ifndef GPUGATE_STATIC_KERNELS_DIR
  GTEST_SKIP() << "built without nvcc: no kernels compiled at build time (tests/data/cubins covers the reader)";
#else
  const Artifact& a = GetParam();
  const std::string path = kDir + "/" + a.file;
  Result<InspectReport> r = InspectFile(path);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->format, a.format);
  Result<std::string> log = ReadFile(path + ".ptxas.txt");
  ASSERT_TRUE(log.ok()) << log.error().message;
  const testing::PtxasReport ptxas = testing::ParsePtxasV(*log);
  ASSERT_FALSE(ptxas.empty());
  std::set<int> archs;
  size_t kernels = 0;
  for (const InspectedCubin& c : r->cubins) {
    archs.insert(c.cubin.arch);
    if (a.size_compressed) {
      EXPECT_EQ(c.compression, FatbinCompression::kZstd) << c.source;
    }
    for (const KernelInfo& k : c.cubin.kernels) {
      ++kernels;
      SCOPED_TRACE(c.source + ": " + k.name);
      auto it = ptxas.find({k.name, k.arch});
      // -rdc objects and libraries of two objects hold each kernel more than once.
      ASSERT_NE(it, ptxas.end()) << "ptxas did not report this kernel";
      const testing::PtxasKernel& p = it->second;
      EXPECT_EQ(k.registers, p.registers);
      EXPECT_EQ(k.stack_frame, p.stack_frame);
      EXPECT_EQ(k.shared_bytes, p.smem);
      EXPECT_EQ(k.barriers, p.barriers);
      if (p.cmem0) {
        EXPECT_EQ(k.cbank0_bytes, *p.cmem0);
      }
      EXPECT_EQ(k.instructions, k.sass_bytes / 16);
    }
  }
  EXPECT_EQ(archs, a.archs);
  // Every kernel ptxas compiled was found (objects of a library: at least once).
  EXPECT_GE(kernels, ptxas.size());
  for (const auto& [key, p] : ptxas) {
    bool found = false;
    for (const InspectedCubin& c : r->cubins)
      for (const KernelInfo& k : c.cubin.kernels) found = found || (k.name == key.first && k.arch == key.second);
    EXPECT_TRUE(found) << key.first << " sm_" << key.second;
  }
#endif
}

INSTANTIATE_TEST_SUITE_P(Builds, NvccKernelsTest, ::testing::ValuesIn(kArtifacts),
                         [](const ::testing::TestParamInfo<Artifact>& i) {
                           std::string n = i.param.file;
                           for (char& ch : n)
                             if (ch == '.') ch = '_';
                           return n;
                         });

#ifdef GPUGATE_STATIC_KERNELS_DIR
// The spilling build really spills, has a stack frame, and only changes the
// SASS of kernels that were limited.
TEST(NvccKernelsFacts, SpillBuildDiffers) {
  Result<InspectReport> normal = InspectFile(kDir + "/kernels_sm90.cubin");
  Result<InspectReport> spill = InspectFile(kDir + "/kernels_sm90_spill.cubin");
  ASSERT_TRUE(normal.ok() && spill.ok());
  Result<std::string> log = ReadFile(kDir + "/kernels_sm90_spill.cubin.ptxas.txt");
  ASSERT_TRUE(log.ok());
  const testing::PtxasReport p = testing::ParsePtxasV(*log);
  ASSERT_TRUE(p.count({"_Z5heavyPKfPfi", 90}));
  EXPECT_GT(p.at({"_Z5heavyPKfPfi", 90}).spill_stores, 0);
  auto find = [](const InspectReport& r, const std::string& name) -> const KernelInfo* {
    for (const auto& c : r.cubins)
      for (const auto& k : c.cubin.kernels)
        if (k.name == name) return &k;
    return nullptr;
  };
  const KernelInfo* h0 = find(*normal, "_Z5heavyPKfPfi");
  const KernelInfo* h1 = find(*spill, "_Z5heavyPKfPfi");
  ASSERT_TRUE(h0 && h1);
  EXPECT_LE(*h1->registers, 24);  // -maxrregcount=16, raised to ptxas's minimum of 24 on sm_90
  EXPECT_LT(*h1->registers, *h0->registers);
  EXPECT_GT(*h1->stack_frame, 0);
  EXPECT_NE(h0->sass_hash, h1->sass_hash);
  const KernelInfo* b0 = find(*normal, "_Z9big_param3BigPf");
  const KernelInfo* b1 = find(*spill, "_Z9big_param3BigPf");
  ASSERT_TRUE(b0 && b1);
  EXPECT_EQ(b0->param_bytes, 168);  // 40 floats + a pointer
}
#endif

}  // namespace
}  // namespace gpugate
