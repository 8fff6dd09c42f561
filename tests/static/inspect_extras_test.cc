// What inspect adds to a cubin's own attributes: spills from the ptxas log of
// the same build (--ptxas-log) and each kernel's theoretical occupancy.
#include <gtest/gtest.h>

#include <string>

#include "static/inspect.h"
#include "util/fs.h"

namespace gpugate {
namespace {

std::string Data(const std::string& f) { return std::string(GPUGATE_SOURCE_DIR) + "/tests/data/cubins/" + f; }

InspectReport InspectWithLog(const std::string& binary, const std::string& log_path) {
  Result<InspectReport> r = InspectFile(binary);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  if (!r.ok()) return {};
  Result<std::string> text = ReadFile(log_path, InputKind::kData);
  EXPECT_TRUE(text.ok());
  Result<std::vector<PtxasKernel>> log = ParsePtxasLog(text.ok() ? *text : "", log_path);
  EXPECT_TRUE(log.ok()) << (log.ok() ? "" : log.error().message);
  if (log.ok()) AddPtxasLog(&*r, *log, log_path);
  AddOccupancy(&*r);
  return std::move(r).value();
}

TEST(InspectExtras, EveryKernelOfTheFatbinGetsItsLogsSpills) {
  InspectReport r = InspectWithLog(Data("small_sm80_sm90_zstd.fatbin"), Data("small_sm80_sm90_zstd.ptxas.txt"));
  int kernels = 0;
  for (const InspectedCubin& c : r.cubins) {
    ASSERT_EQ(c.extras.size(), c.cubin.kernels.size());
    for (const KernelExtras& x : c.extras) {
      ++kernels;
      ASSERT_TRUE(x.spill_stores.has_value());
      EXPECT_EQ(*x.spill_stores, 0);
      EXPECT_EQ(*x.spill_loads, 0);
    }
  }
  EXPECT_GE(kernels, 6);
  for (const InspectNote& n : r.notes) EXPECT_EQ(n.message.find("is not in this file"), std::string::npos) << n.message;
}

TEST(InspectExtras, ALogOfAnotherBuildIsANoteNotASilentMatch) {
  InspectReport r = InspectWithLog(Data("small_sm90.cubin"), Data("cluster_sm90.ptxas.txt"));
  bool noted = false;
  for (const InspectNote& n : r.notes) noted = noted || n.message.find("is not in this file") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(InspectExtras, OccupancyPerKernelOrItsReason) {
  InspectReport r = InspectWithLog(Data("small_sm90.cubin"), Data("small_sm90.ptxas.txt"));
  ASSERT_FALSE(r.cubins.empty());
  for (const KernelExtras& x : r.cubins[0].extras) {
    if (!OccupancyCalculatorAvailable()) {
      EXPECT_FALSE(x.occupancy.has_value());
      EXPECT_NE(x.occupancy_note.find("cuda_occupancy.h"), std::string::npos) << x.occupancy_note;
      continue;
    }
    ASSERT_TRUE(x.occupancy.has_value()) << x.occupancy_note;
    EXPECT_GT(x.occupancy->fraction, 0.0);
    EXPECT_LE(x.occupancy->fraction, 1.0);
    EXPECT_EQ(x.occupancy->block_size % 32, 0);
  }
}

// The kernel built with -maxrregcount=16 at build time spills; the log of the
// same build says how much, and inspect reports exactly that.
TEST(InspectExtras, SpillsOfTheForcedSpillBuild) {
#ifndef GPUGATE_STATIC_KERNELS_DIR
  GTEST_SKIP() << "built without nvcc: no kernels compiled at build time";
#else
  const std::string dir = GPUGATE_STATIC_KERNELS_DIR;
  InspectReport r = InspectWithLog(dir + "/kernels_sm90_spill.cubin", dir + "/kernels_sm90_spill.cubin.ptxas.txt");
  bool heavy = false;
  for (const InspectedCubin& c : r.cubins)
    for (size_t i = 0; i < c.cubin.kernels.size(); ++i) {
      if (c.cubin.kernels[i].name != "_Z5heavyPKfPfi") continue;
      heavy = true;
      ASSERT_TRUE(c.extras[i].spill_stores.has_value());
      EXPECT_GT(*c.extras[i].spill_stores, 0);
      EXPECT_GT(*c.extras[i].spill_loads, 0);
    }
  EXPECT_TRUE(heavy);
  // Without the cap the same kernel does not spill, and sm_80 needs 48
  // registers: occupancy is limited by registers.
  InspectReport two = InspectWithLog(dir + "/kernels_two_arch.fatbin", dir + "/kernels_two_arch.fatbin.ptxas.txt");
  for (const InspectedCubin& c : two.cubins)
    for (size_t i = 0; i < c.cubin.kernels.size(); ++i) {
      if (c.cubin.kernels[i].name != "_Z5heavyPKfPfi") continue;
      ASSERT_TRUE(c.extras[i].spill_stores.has_value());
      EXPECT_EQ(*c.extras[i].spill_stores, 0);
      if (OccupancyCalculatorAvailable() && c.cubin.arch == 80) {
        ASSERT_TRUE(c.extras[i].occupancy.has_value());
        EXPECT_EQ(c.extras[i].occupancy->limiter, "registers");
        EXPECT_LT(c.extras[i].occupancy->fraction, 1.0);
      }
    }
#endif
}

}  // namespace
}  // namespace gpugate
