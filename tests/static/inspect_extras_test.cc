// What inspect adds to a cubin's own attributes: spills from the ptxas log of
// the same build (--ptxas-log) and each kernel's theoretical occupancy.
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>

#include "static/inspect.h"
#include "static/cubin_data.h"
#include "util/fs.h"
#include "cli/run_binary.h"

namespace gpugate {
namespace {

std::string Data(const std::string& file) { return testing::CubinDataPath(file); }

InspectReport InspectWithLog(const std::string& binary, const std::string& log_path) {
  Result<InspectReport> r = InspectFile(binary);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  if (!r.ok()) return {};
  Result<std::string> text = ReadFile(log_path, InputKind::kData);
  EXPECT_TRUE(text.ok());
  Result<std::vector<PtxasKernel>> log = ParsePtxasLog(text.ok() ? *text : "", log_path);
  EXPECT_TRUE(log.ok()) << (log.ok() ? "" : log.error().message);
  if (log.ok()) {
    Status st = AddPtxasLog(&*r, *log, log_path);
    EXPECT_TRUE(st.ok()) << (st.ok() ? "" : st.error().message);
  }
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

// The same names with other registers: another build's log. Two records of
// one kernel that disagree: the larger spills, said. No record at all: an
// error, not a spill column that silently vanishes.
TEST(InspectExtras, KernelsOfOneNameTakeTheRecordsThatFitThem) {
  // Two files with a static kernel of one name (one mangled name in both
  // cubins): the records go by registers and stack frame, never crosswise.
  Result<InspectReport> r = InspectFile(Data("small_sm90.cubin"));
  ASSERT_TRUE(r.ok());
  InspectReport two = *r;
  two.cubins.push_back(two.cubins[0]);
  size_t at = 0;
  for (size_t i = 0; i < two.cubins[1].cubin.kernels.size(); ++i)
    if (two.cubins[1].cubin.kernels[i].name == "plain_add") at = i;
  two.cubins[1].cubin.kernels[at].registers = 20;
  two.cubins[1].cubin.kernels[at].stack_frame = 8;
  const std::string good = testing::ReadAll(Data("small_sm90.ptxas.txt"));
  const std::string spilling =
      "ptxas info    : Compiling entry function 'plain_add' for 'sm_90'\n"
      "ptxas info    : Function properties for plain_add\n"
      "    8 bytes stack frame, 8 bytes spill stores, 8 bytes spill loads\n"
      "ptxas info    : Used 20 registers, used 0 barriers\n";
  // The spilling record first: order does not decide.
  Result<std::vector<PtxasKernel>> log = ParsePtxasLog(spilling + good, "two.log");
  ASSERT_TRUE(log.ok()) << log.error().message;
  InspectReport a = two;
  ASSERT_TRUE(AddPtxasLog(&a, *log, "two.log").ok());
  EXPECT_EQ(a.cubins[0].extras[at].spill_stores, std::optional<int64_t>(0));
  EXPECT_EQ(a.cubins[1].extras[at].spill_stores, std::optional<int64_t>(8));
  for (const InspectNote& n : a.notes) EXPECT_EQ(n.message.find("another build"), std::string::npos) << n.message;
  // Two kernels whose figures agree and records that differ in spills:
  // which is whose cannot be told, so neither gets a guess.
  InspectReport alike = *r;
  alike.cubins.push_back(alike.cubins[0]);
  std::string other = good;
  other.replace(other.find("0 bytes spill stores", other.find("plain_add")), 20, "4 bytes spill stores");
  Result<std::vector<PtxasKernel>> both = ParsePtxasLog(good + other, "alike.log");
  ASSERT_TRUE(both.ok());
  ASSERT_TRUE(AddPtxasLog(&alike, *both, "alike.log").ok());
  EXPECT_FALSE(alike.cubins[0].extras[at].spill_stores.has_value());
  EXPECT_FALSE(alike.cubins[1].extras[at].spill_stores.has_value());
  std::string notes;
  for (const InspectNote& n : alike.notes) notes += n.message + "\n";
  EXPECT_NE(notes.find("fit 2 kernels of that name alike; their spills are unknown"), std::string::npos) << notes;
}

TEST(InspectExtras, LogsThatCannotBeThisBuildsAreSaid) {
  Result<InspectReport> r = InspectFile(Data("small_sm90.cubin"));
  ASSERT_TRUE(r.ok());
  const std::string good = testing::ReadAll(Data("small_sm90.ptxas.txt"));
  std::string other = good;
  other.replace(other.find("Used 12 registers"), 17, "Used 99 registers");
  Result<std::vector<PtxasKernel>> other_log = ParsePtxasLog(other, "other.log");
  ASSERT_TRUE(other_log.ok());
  InspectReport a = *r;
  ASSERT_TRUE(AddPtxasLog(&a, *other_log, "other.log").ok());
  std::string notes;
  for (const InspectNote& n : a.notes) notes += n.source + ": " + n.message + "\n";
  EXPECT_NE(notes.find("'plain_add' for sm_90 uses 99 registers and a 0-byte stack frame where the binary's has 12 and 0 (a log of another build?)"),
            std::string::npos)
      << notes;
  for (size_t i = 0; i < a.cubins[0].cubin.kernels.size(); ++i) {
    if (a.cubins[0].cubin.kernels[i].name == "plain_add") {
      EXPECT_FALSE(a.cubins[0].extras[i].spill_stores.has_value());
    }
  }

  std::string twice = good + good;
  const size_t second = twice.find("0 bytes spill stores", good.size());
  twice.replace(second, 20, "40 bytes spill stores");
  Result<std::vector<PtxasKernel>> twice_log = ParsePtxasLog(twice, "twice.log");
  ASSERT_TRUE(twice_log.ok());
  InspectReport b = *r;
  ASSERT_TRUE(AddPtxasLog(&b, *twice_log, "twice.log").ok());
  notes.clear();
  for (const InspectNote& n : b.notes) notes += n.message + "\n";
  EXPECT_NE(notes.find("has records at lines 2 and 15 with other spills (0/0 vs 40/0 bytes stored/loaded); the larger are used"), std::string::npos) << notes;
  int64_t most = 0;
  for (const KernelExtras& x : b.cubins[0].extras) most = std::max(most, x.spill_stores.value_or(-1));
  EXPECT_EQ(most, 40);

  InspectReport c = *r;
  Status none = AddPtxasLog(&c, {}, "empty.log");
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().code, ExitCode::kInputError);
  EXPECT_NE(none.error().message.find("empty.log: no ptxas resource lines"), std::string::npos);
}

// nvlink (-Xnvlink -v) prints registers and stack but no spill figures: its
// records leave spills unknown, never 0, and never disagree with ptxas's.
TEST(InspectExtras, NvlinkRecordsLeaveSpillsUnknown) {
  Result<InspectReport> r = InspectFile(Data("heavy_sm90_spill.cubin"));
  ASSERT_TRUE(r.ok());
  const std::string nvlink =
      "nvlink info    : Function properties for '_Z5heavyPKfPfi':\n"
      "nvlink info    : used 24 registers, used 0 barriers, 112 stack, 0 bytes smem, 0 bytes lmem\n";
  auto heavy_spills = [](const InspectReport& report) {
    for (const InspectedCubin& c : report.cubins)
      for (size_t i = 0; i < c.cubin.kernels.size(); ++i)
        if (c.cubin.kernels[i].name == "_Z5heavyPKfPfi")
          return std::make_pair(c.extras[i].spill_stores, c.extras[i].spill_loads);
    ADD_FAILURE() << "no heavy";
    return std::make_pair(std::optional<int64_t>(), std::optional<int64_t>());
  };
  Result<std::vector<PtxasKernel>> link_only = ParsePtxasLog(nvlink, "link.log");
  ASSERT_TRUE(link_only.ok());
  InspectReport a = *r;
  ASSERT_TRUE(AddPtxasLog(&a, *link_only, "link.log").ok());
  EXPECT_FALSE(heavy_spills(a).first.has_value());
  EXPECT_FALSE(heavy_spills(a).second.has_value());

  // Compile and link in one log: ptxas's figures, and no note of a disagreement.
  Result<std::vector<PtxasKernel>> both =
      ParsePtxasLog(testing::ReadAll(Data("heavy_sm90_spill.ptxas.txt")) + nvlink, "build.log");
  ASSERT_TRUE(both.ok());
  InspectReport b = *r;
  ASSERT_TRUE(AddPtxasLog(&b, *both, "build.log").ok());
  EXPECT_EQ(heavy_spills(b).first, 104);
  EXPECT_EQ(heavy_spills(b).second, 132);
  for (const InspectNote& n : b.notes) EXPECT_EQ(n.message.find("another record"), std::string::npos) << n.message;
}

// nvlink's records match the kernel of their own target arch only: a
// kernel with other registers on another arch is not "another build".
TEST(InspectExtras, NvlinkRecordsMatchTheirTargetArch) {
  InspectReport r;
  r.file = "app";
  for (const auto& [arch, registers] : {std::pair{90, 104}, std::pair{100, 55}}) {
    InspectedCubin c;
    c.source = "app: .nv_fatbin: sm_" + std::to_string(arch) + " SASS entry";
    c.cubin.arch = arch;
    KernelInfo k;
    k.name = "_Z7boundedPf";
    k.arch = arch;
    k.registers = registers;
    c.cubin.kernels.push_back(k);
    r.cubins.push_back(c);
  }
  Result<std::vector<PtxasKernel>> log = ParsePtxasLog(
      "nvlink info    : Function properties for '_Z7boundedPf': (target: sm_90)\n"
      "nvlink info    : used 104 registers, used 0 barriers, 0 stack, 0 bytes smem, 0 bytes lmem (target: sm_90)\n"
      "nvlink info    : Function properties for '_Z7boundedPf': (target: sm_100)\n"
      "nvlink info    : used 55 registers, used 0 barriers, 64 stack, 0 bytes smem, 0 bytes lmem (target: sm_100)\n",
      "link.log");
  ASSERT_TRUE(log.ok()) << log.error().message;
  ASSERT_TRUE(AddPtxasLog(&r, *log, "link.log").ok());
  for (const InspectNote& n : r.notes) ADD_FAILURE() << n.source << ": " << n.message;
}

// A fatbin of sm_90 and sm_90a code: each kernel takes its own arch's
// record, never the other's spills; a bare cubin (which reads as the plain
// arch) takes the sm_90a record when it is the only kernel of that number.
TEST(InspectExtras, ArchSpecificRecordsGoToTheirOwnKernel) {
  auto report = [](std::vector<char> variants) {
    InspectReport r;
    r.file = "sp.fatbin";
    for (char variant : variants) {
      InspectedCubin c;
      c.source = "sp.fatbin: sm_90 SASS entry";
      c.cubin.arch = 90;
      c.cubin.arch_variant = variant;
      KernelInfo k;
      k.name = "_Z5heavyPKfPfi";
      k.arch = 90;
      k.arch_variant = variant;
      k.registers = 24;
      c.cubin.kernels.push_back(k);
      r.cubins.push_back(c);
    }
    return r;
  };
  Result<std::vector<PtxasKernel>> log = ParsePtxasLog(
      "ptxas info    : Compiling entry function '_Z5heavyPKfPfi' for 'sm_90'\n"
      "ptxas info    : Function properties for _Z5heavyPKfPfi\n"
      "    72 bytes stack frame, 156 bytes spill stores, 164 bytes spill loads\n"
      "ptxas info    : Used 24 registers, used 0 barriers, 72 bytes cumulative stack size\n"
      "ptxas info    : Compiling entry function '_Z5heavyPKfPfi' for 'sm_90a'\n"
      "ptxas info    : Function properties for _Z5heavyPKfPfi\n"
      "    1552 bytes stack frame, 1848 bytes spill stores, 3952 bytes spill loads\n"
      "ptxas info    : Used 24 registers, used 0 barriers, 1552 bytes cumulative stack size\n",
      "sp.log");
  ASSERT_TRUE(log.ok()) << log.error().message;
  InspectReport both = report({0, 'a'});
  ASSERT_TRUE(AddPtxasLog(&both, *log, "sp.log").ok());
  for (const InspectNote& n : both.notes) ADD_FAILURE() << n.source << ": " << n.message;
  EXPECT_EQ(both.cubins[0].extras[0].spill_stores, 156);
  EXPECT_EQ(both.cubins[0].extras[0].spill_loads, 164);
  EXPECT_EQ(both.cubins[1].extras[0].spill_stores, 1848);
  EXPECT_EQ(both.cubins[1].extras[0].spill_loads, 3952);
  // One kernel that cannot tell: both records fit it, the larger spills are kept, and a note says so.
  InspectReport bare = report({0});
  ASSERT_TRUE(AddPtxasLog(&bare, *log, "sp.log").ok());
  EXPECT_EQ(bare.cubins[0].extras[0].spill_stores, 1848);
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

// bounds.cu: a required block size (__block_size__, .reqntid) is the only
// one the occupancy is computed at; launch bounds of 48 and 16 threads are
// block sizes too, though not multiples of the warp size.
TEST(InspectExtras, OccupancyHonoursRequiredAndOddBlockSizes) {
  if (!OccupancyCalculatorAvailable()) GTEST_SKIP() << "built without cuda_occupancy.h";
  InspectReport r = InspectWithLog(Data("bounds_sm90.cubin"), Data("bounds_sm90.ptxas.txt"));
  ASSERT_EQ(r.cubins.size(), 1u);
  std::map<std::string, Occupancy> by_name;
  for (size_t i = 0; i < r.cubins[0].cubin.kernels.size(); ++i) {
    ASSERT_TRUE(r.cubins[0].extras[i].occupancy.has_value()) << r.cubins[0].extras[i].occupancy_note;
    by_name[r.cubins[0].cubin.kernels[i].name] = *r.cubins[0].extras[i].occupancy;
  }
  ASSERT_EQ(by_name.size(), 3u);
  EXPECT_EQ(by_name["_Z7fixed32Pf"].block_size, 32);  // 32 blocks x 1 warp
  EXPECT_EQ(by_name["_Z7fixed32Pf"].active_warps, 32);
  EXPECT_EQ(by_name["_Z4lb48Pf"].block_size, 48);  // 32 blocks x 2 warps
  EXPECT_EQ(by_name["_Z4lb48Pf"].active_warps, 64);
  EXPECT_EQ(by_name["_Z4lb16Pf"].block_size, 16);
  EXPECT_EQ(by_name["_Z4lb16Pf"].active_warps, 32);
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
