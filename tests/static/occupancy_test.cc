// Theoretical occupancy: hand-computed cases per arch and per limiter, a
// cross-check against the CUDA Occupancy Calculator's published formula, the
// per-arch table against cuda_occupancy.h, and the input errors.
#include "static/occupancy.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <climits>

namespace gpugate {
namespace {

class OccupancyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!OccupancyCalculatorAvailable()) {
      GTEST_SKIP() << "built without cuda_occupancy.h: occupancy figures are not computed";
    }
  }
};

KernelResources Kernel(int registers, int64_t static_shared = 0, int64_t dynamic_shared = 0) {
  KernelResources k;
  k.registers = registers;
  k.static_shared = static_shared;
  k.dynamic_shared = dynamic_shared;
  return k;
}

TEST(ArchLimitsTest, CoversThePublishedArchs) {
  for (int sm : {50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86, 87, 89, 90, 100, 103, 120, 121}) {
    std::optional<ArchLimits> arch = LimitsForArch(sm);
    ASSERT_TRUE(arch.has_value()) << sm;
    EXPECT_EQ(arch->sm, sm);
    EXPECT_EQ(arch->warp_size, 32);
    EXPECT_EQ(arch->max_threads_per_block, 1024);
    EXPECT_EQ(arch->regs_per_sm, 65536);
    EXPECT_EQ(arch->max_regs_per_thread, 255);
    EXPECT_GE(arch->shared_per_block_optin, arch->shared_per_block);
    EXPECT_LE(arch->shared_per_block_optin + arch->reserved_shared_per_block, arch->shared_per_sm);
  }
  EXPECT_EQ(KnownArchs().size(), 18u);
  EXPECT_FALSE(LimitsForArch(35).has_value());
  EXPECT_FALSE(LimitsForArch(91).has_value());
  EXPECT_FALSE(LimitsForArch(0).has_value());
}

TEST(ArchLimitsTest, SpotValuesFromTheProgrammingGuide) {
  EXPECT_EQ(LimitsForArch(75)->max_threads_per_sm, 1024);  // Turing: 32 warps
  EXPECT_EQ(LimitsForArch(86)->max_threads_per_sm, 1536);  // GA10x: 48 warps
  EXPECT_EQ(LimitsForArch(89)->max_blocks_per_sm, 24);
  EXPECT_EQ(LimitsForArch(53)->max_regs_per_block, 32768);
  EXPECT_EQ(LimitsForArch(80)->shared_per_block_optin, 163 * 1024);
  EXPECT_EQ(LimitsForArch(90)->shared_per_sm, 228 * 1024);
  EXPECT_EQ(LimitsForArch(70)->reserved_shared_per_block, 0);
  EXPECT_EQ(LimitsForArch(120)->reserved_shared_per_block, 1024);
}

// The table and cuda_occupancy.h agree on resident blocks (a one-warp block
// with nothing else limiting it) and on the largest shared memory a block
// may take (one such block fits an SM; two on sm_52/61 with 96 KiB per SM).
TEST_F(OccupancyTest, TableAgreesWithTheCalculator) {
  for (int sm : KnownArchs()) {
    const ArchLimits arch = *LimitsForArch(sm);
    KernelResources tiny = Kernel(0);
    tiny.barriers = 0;
    Result<Occupancy> occ = TheoreticalOccupancy(sm, tiny, 32);
    ASSERT_TRUE(occ.ok()) << sm << ": " << occ.error().message;
    EXPECT_EQ(occ->blocks_per_sm, arch.max_blocks_per_sm) << sm;
    EXPECT_EQ(occ->max_warps, arch.max_threads_per_sm / 32) << sm;

    Result<Occupancy> biggest =
        TheoreticalOccupancy(sm, Kernel(32, 0, arch.shared_per_block_optin), 128);
    ASSERT_TRUE(biggest.ok()) << sm << ": " << biggest.error().message;
    // Sizes here are multiples of the allocation unit.
    EXPECT_EQ(biggest->blocks_per_sm,
              arch.shared_per_sm / (arch.shared_per_block_optin + arch.reserved_shared_per_block))
        << sm;
  }
}

// sm_80, 64 registers x 256 threads: a warp takes 64 x 32 = 2048 registers
// (already a multiple of the 256-register unit); each of the 4 sub-partitions
// has 65536 / 4 = 16384, room for 8 warps, so 32 warps per SM = 4 blocks of 8
// warps. Warps alone would allow 64 / 8 = 8 blocks, blocks 32. 4 blocks = 32
// of 64 warps = 50%, limited by registers.
TEST_F(OccupancyTest, Sm80RegisterLimited) {
  Result<Occupancy> occ = TheoreticalOccupancy(80, Kernel(64), 256);
  ASSERT_TRUE(occ.ok()) << occ.error().message;
  EXPECT_EQ(occ->blocks_per_sm, 4);
  EXPECT_EQ(occ->active_warps, 32);
  EXPECT_EQ(occ->max_warps, 64);
  EXPECT_DOUBLE_EQ(occ->fraction, 0.5);
  EXPECT_EQ(occ->limiter, "registers");
  EXPECT_EQ(occ->limits.registers, 4);
  EXPECT_EQ(occ->limits.warps, 8);
  EXPECT_EQ(occ->limits.blocks, 32);
  EXPECT_EQ(occ->allocated_registers_per_block, 2048 * 8);
  EXPECT_EQ(occ->sentence, "50% (32 of 64 warps), limited by registers: 64 per thread");
}

// sm_86 (48 warp slots), same kernel: 32 warps by registers = 4 blocks;
// 32 of 48 = 66.7%.
TEST_F(OccupancyTest, Sm86RegisterLimitedOf48Warps) {
  Result<Occupancy> occ = TheoreticalOccupancy(86, Kernel(64), 256);
  ASSERT_TRUE(occ.ok()) << occ.error().message;
  EXPECT_EQ(occ->blocks_per_sm, 4);
  EXPECT_EQ(occ->max_warps, 48);
  EXPECT_EQ(occ->limiter, "registers");
  EXPECT_EQ(occ->sentence, "66.7% (32 of 48 warps), limited by registers: 64 per thread");
}

// sm_80, 32 registers, 128 threads, 48 KiB static shared memory: a block takes
// 49152 + 1024 reserved = 50176 bytes (a multiple of the 128-byte unit); the
// default carveout gives the SM's 164 KiB = 167936 bytes, 167936 / 50176 =
// 3 blocks. Registers: 1024 per warp, 16 warps per sub-partition, 64 warps =
// 16 blocks; warps: 64 / 4 = 16. 3 blocks x 4 warps = 12 of 64 = 18.75%.
TEST_F(OccupancyTest, Sm80SharedMemoryLimited) {
  Result<Occupancy> occ = TheoreticalOccupancy(80, Kernel(32, 48 * 1024), 128);
  ASSERT_TRUE(occ.ok()) << occ.error().message;
  EXPECT_EQ(occ->blocks_per_sm, 3);
  EXPECT_EQ(occ->active_warps, 12);
  EXPECT_EQ(occ->limiter, "shared_memory");
  EXPECT_EQ(occ->allocated_shared_per_block, 50176);
  EXPECT_EQ(occ->sentence,
            "18.8% (12 of 64 warps), limited by shared memory: 48.0 KiB per block");
}

// sm_61 (no reserve, 256-byte unit, 96 KiB per SM): 8 KiB per block ->
// 98304 / 8192 = 12 blocks x 4 warps = 48 of 64 = 75%; registers and warps
// would allow 16.
TEST_F(OccupancyTest, Sm61SharedMemoryLimited) {
  Result<Occupancy> occ = TheoreticalOccupancy(61, Kernel(32, 8192), 128);
  ASSERT_TRUE(occ.ok()) << occ.error().message;
  EXPECT_EQ(occ->blocks_per_sm, 12);
  EXPECT_DOUBLE_EQ(occ->fraction, 0.75);
  EXPECT_EQ(occ->limiter, "shared_memory");
}

// sm_90, 100 KiB dynamic shared memory (above 48 KiB: opted in): 102400 +
// 1024 reserved = 103424 per block; 228 KiB = 233472 per SM -> 2 blocks of 8
// warps = 16 of 64 = 25%.
TEST_F(OccupancyTest, Sm90DynamicSharedMemoryOptIn) {
  Result<Occupancy> occ = TheoreticalOccupancy(90, Kernel(32, 0, 100 * 1024), 256);
  ASSERT_TRUE(occ.ok()) << occ.error().message;
  EXPECT_EQ(occ->blocks_per_sm, 2);
  EXPECT_DOUBLE_EQ(occ->fraction, 0.25);
  EXPECT_EQ(occ->limiter, "shared_memory");
  EXPECT_EQ(occ->sentence, "25% (16 of 64 warps), limited by shared memory: 100 KiB per block");
}

// sm_75, 16 registers, one-warp blocks: at most 16 resident blocks = 16 of 32
// warps = 50%, limited by blocks (warps would allow 32, registers 128).
TEST_F(OccupancyTest, Sm75BlockLimited) {
  Result<Occupancy> occ = TheoreticalOccupancy(75, Kernel(16), 32);
  ASSERT_TRUE(occ.ok()) << occ.error().message;
  EXPECT_EQ(occ->blocks_per_sm, 16);
  EXPECT_EQ(occ->max_warps, 32);
  EXPECT_EQ(occ->limiter, "blocks");
  EXPECT_EQ(occ->sentence, "50% (16 of 32 warps), limited by blocks: at most 16 per SM");
}

// sm_120: 24 resident blocks, and 24 barriers (1 per block): the tie is
// reported as blocks. 24 of 48 warps = 50%.
TEST_F(OccupancyTest, Sm120BlocksTieWithBarriers) {
  Result<Occupancy> occ = TheoreticalOccupancy(120, Kernel(16), 32);
  ASSERT_TRUE(occ.ok()) << occ.error().message;
  EXPECT_EQ(occ->blocks_per_sm, 24);
  EXPECT_EQ(occ->limits.barriers, 24);
  EXPECT_EQ(occ->limiter, "blocks");
  EXPECT_DOUBLE_EQ(occ->fraction, 0.5);
}

// sm_90 with 16 named barriers per block: 32 blocks x 2 = 64 barriers per SM,
// 64 / 16 = 4 blocks of one warp = 4 of 64 = 6.25%.
TEST_F(OccupancyTest, Sm90BarrierLimited) {
  KernelResources k = Kernel(16);
  k.barriers = 16;
  Result<Occupancy> occ = TheoreticalOccupancy(90, k, 32);
  ASSERT_TRUE(occ.ok()) << occ.error().message;
  EXPECT_EQ(occ->blocks_per_sm, 4);
  EXPECT_EQ(occ->limiter, "barriers");
  EXPECT_EQ(occ->sentence, "6.3% (4 of 64 warps), limited by barriers: 16 per block");
}

// sm_80, 16 registers, 96 threads = 3 warps: 64 / 3 = 21 blocks = 63 of 64
// warps (registers would allow 42, blocks 32) = 98.4%, limited by warps.
TEST_F(OccupancyTest, Sm80WarpLimited) {
  Result<Occupancy> occ = TheoreticalOccupancy(80, Kernel(16), 96);
  ASSERT_TRUE(occ.ok()) << occ.error().message;
  EXPECT_EQ(occ->blocks_per_sm, 21);
  EXPECT_EQ(occ->active_warps, 63);
  EXPECT_EQ(occ->limiter, "warps");
  EXPECT_EQ(occ->sentence, "98.4% (63 of 64 warps), limited by warps: 3 per block");
}

// sm_80, 32 registers x 256 threads: registers and warps both allow 8 blocks,
// every warp slot is used.
TEST_F(OccupancyTest, FullOccupancy) {
  Result<Occupancy> occ = TheoreticalOccupancy(80, Kernel(32), 256);
  ASSERT_TRUE(occ.ok()) << occ.error().message;
  EXPECT_EQ(occ->blocks_per_sm, 8);
  EXPECT_DOUBLE_EQ(occ->fraction, 1.0);
  EXPECT_EQ(occ->limiter, "warps");
  EXPECT_EQ(occ->sentence, "100% (64 of 64 warps)");
}

TEST_F(OccupancyTest, BelowTheLaunchBoundsMinimumBlocksIsSaid) {
  KernelResources k = Kernel(64);
  k.min_blocks_per_sm = 6;
  Result<Occupancy> occ = TheoreticalOccupancy(80, k, 256);
  ASSERT_TRUE(occ.ok()) << occ.error().message;
  EXPECT_EQ(occ->sentence,
            "50% (32 of 64 warps), limited by registers: 64 per thread; 4 blocks per SM, "
            "below the launch bound's 6");
}

// sm_53 allows 32768 registers per block: 64 x 32 = 2048 per warp x 32 warps
// = 65536 does not fit one block.
TEST_F(OccupancyTest, BlockThatCannotRunIsAnError) {
  Result<Occupancy> occ = TheoreticalOccupancy(53, Kernel(64), 1024);
  ASSERT_FALSE(occ.ok());
  EXPECT_EQ(occ.error().code, ExitCode::kInputError);
  EXPECT_NE(occ.error().message.find("cannot run on sm_53: not enough registers"),
            std::string::npos)
      << occ.error().message;
}

// The CUDA Occupancy Calculator's formula (the CUDA_Occupancy_Calculator.xls
// spreadsheet of CUDA <= 11, now Nsight Compute's occupancy calculator):
//   warps per block   W = ceil(threads / 32)
//   by warps          floor(max warps per SM / W), capped by max blocks per SM
//   registers / warp  R = ceil(regs x 32, 256)            (allocation unit)
//   warps by regs     floor(floor(regs per SM / R), 4)    (warp allocation granularity)
//   by registers      floor(warps by regs / W); 0 if R x W > registers per block
int CalculatorFormulaBlocks(const ArchLimits& a, int regs, int threads) {
  const int warps_per_block = (threads + 31) / 32;
  const int by_warps = std::min(a.max_blocks_per_sm, a.max_warps_per_sm() / warps_per_block);
  if (regs == 0) return by_warps;
  const int regs_per_warp = (regs * 32 + 255) / 256 * 256;
  if (regs_per_warp * warps_per_block > a.max_regs_per_block) return 0;
  const int granularity = a.sm == 60 ? 2 : 4;  // GP100 has 2 sub-partitions
  const int warps_by_regs = a.regs_per_sm / regs_per_warp / granularity * granularity;
  return std::min(by_warps, warps_by_regs / warps_per_block);
}

TEST_F(OccupancyTest, AgreesWithTheCalculatorFormula) {
  int compared = 0;
  for (int sm : KnownArchs()) {
    const ArchLimits arch = *LimitsForArch(sm);
    if (arch.max_regs_per_block != arch.regs_per_sm) continue;  // sm_53, sm_62: see below
    for (int regs = 0; regs <= 64; regs += 1) {
      for (int threads = 32; threads <= 1024; threads += 32) {
        KernelResources k = Kernel(regs);
        k.barriers = 0;
        Result<Occupancy> occ = TheoreticalOccupancy(sm, k, threads);
        const int expected = CalculatorFormulaBlocks(arch, regs, threads);
        if (expected == 0) {
          EXPECT_FALSE(occ.ok()) << sm << " " << regs << " " << threads;
          continue;
        }
        ASSERT_TRUE(occ.ok()) << sm << " " << regs << " " << threads << ": "
                              << occ.error().message;
        EXPECT_EQ(occ->blocks_per_sm, expected) << "sm_" << sm << " regs " << regs << " threads "
                                                << threads;
        ++compared;
      }
    }
  }
  EXPECT_EQ(compared, 16 * 65 * 32);  // 16 archs x 0..64 registers x 32 block sizes
}

TEST_F(OccupancyTest, BestOccupancyPrefersTheLargerBlockAmongEquals) {
  // 64 registers on sm_80: every block size reaches at most 32 warps; 1024
  // threads (one block of 32 warps) is the largest that does.
  Result<Occupancy> best = BestOccupancy(80, Kernel(64));
  ASSERT_TRUE(best.ok()) << best.error().message;
  EXPECT_EQ(best->block_size, 1024);
  EXPECT_DOUBLE_EQ(best->fraction, 0.5);
}

TEST_F(OccupancyTest, BestOccupancyStaysWithinTheLaunchBound) {
  // 32 registers, bound 384: 384 threads give 5 blocks = 60 warps; 256, 128
  // and 64 give all 64; the largest of those is 256.
  KernelResources k = Kernel(32);
  k.max_threads_per_block = 384;
  Result<Occupancy> best = BestOccupancy(80, k);
  ASSERT_TRUE(best.ok()) << best.error().message;
  EXPECT_EQ(best->block_size, 256);
  EXPECT_DOUBLE_EQ(best->fraction, 1.0);

  // Bound 100: 100 threads are 4 warps, 16 blocks fill the SM; the bound
  // itself is the largest block that does (96 reaches only 63 warps).
  k.max_threads_per_block = 100;
  best = BestOccupancy(80, k);
  ASSERT_TRUE(best.ok()) << best.error().message;
  EXPECT_EQ(best->block_size, 100);
  EXPECT_DOUBLE_EQ(best->fraction, 1.0);
}

TEST_F(OccupancyTest, BestOccupancyTriesALaunchBoundOffTheWarpSize) {
  // Bound 48 on sm_90: 48 threads are 2 warps, 32 blocks x 2 = all 64
  // warps; 32 threads (1 warp) reach only 32.
  KernelResources k = Kernel(8);
  k.max_threads_per_block = 48;
  Result<Occupancy> best = BestOccupancy(90, k);
  ASSERT_TRUE(best.ok()) << best.error().message;
  EXPECT_EQ(best->block_size, 48);
  EXPECT_EQ(best->blocks_per_sm, 32);
  EXPECT_EQ(best->active_warps, 64);

  // Bound 16, below the warp size: a block of 16 threads still takes a
  // warp; 32 blocks x 1 warp = 50%, limited by blocks.
  k.max_threads_per_block = 16;
  best = BestOccupancy(90, k);
  ASSERT_TRUE(best.ok()) << best.error().message;
  EXPECT_EQ(best->block_size, 16);
  EXPECT_EQ(best->active_warps, 32);
  EXPECT_EQ(best->limiter, "blocks");
}

TEST_F(OccupancyTest, ARequiredBlockSizeIsTheOnlyOneTried) {
  // .reqntid 32 on sm_90: 32 blocks x 1 warp = 50%, although 1024 threads
  // (or 64) would fill the SM.
  KernelResources k = Kernel(8);
  k.required_threads_per_block = 32;
  Result<Occupancy> best = BestOccupancy(90, k);
  ASSERT_TRUE(best.ok()) << best.error().message;
  EXPECT_EQ(best->block_size, 32);
  EXPECT_DOUBLE_EQ(best->fraction, 0.5);
  EXPECT_EQ(best->limiter, "blocks");
  // Any other block size is not a launch the kernel allows.
  Result<Occupancy> other = TheoreticalOccupancy(90, k, 64);
  ASSERT_FALSE(other.ok());
  EXPECT_NE(other.error().message.find("requires blocks of 32 threads, not 64"), std::string::npos)
      << other.error().message;
  ASSERT_TRUE(TheoreticalOccupancy(90, k, 32).ok());
  // A required size the kernel's resources cannot run is an error, not
  // another size's figure: 255 registers x 1024 threads exceed 64 K.
  k.registers = 255;
  k.required_threads_per_block = 1024;
  best = BestOccupancy(90, k);
  ASSERT_FALSE(best.ok());
  EXPECT_NE(best.error().message.find("cannot run"), std::string::npos) << best.error().message;
}

struct BadCase {
  const char* label;
  int sm;
  KernelResources kernel;
  int block_size;
  const char* substring;
};

KernelResources With(void (*edit)(KernelResources&)) {
  KernelResources k = Kernel(32);
  edit(k);
  return k;
}

TEST(OccupancyErrorsTest, InputErrorsNameTheProblem) {
  const BadCase cases[] = {
      {"zero block", 80, Kernel(32), 0, "at least 1 thread"},
      {"negative block", 80, Kernel(32), -32, "at least 1 thread"},
      {"block above 1024", 80, Kernel(32), 1056, "exceeds sm_80's 1024"},
      {"above launch bound", 80, With([](KernelResources& k) { k.max_threads_per_block = 128; }),
       256, "launch bound of 128"},
      {"launch bound above 1024", 80,
       With([](KernelResources& k) { k.max_threads_per_block = 2048; }), 256,
       "launch bound of 2048 threads exceeds"},
      {"256 registers", 80, Kernel(256), 128,
       "256 registers per thread exceed sm_80's limit of 255"},
      {"shared above opt-in", 86, Kernel(32, 0, 100 * 1024), 128, "opt-in limit of 101376"},
      {"static+dynamic above opt-in", 75, Kernel(32, 48 * 1024, 17 * 1024), 128, "opt-in limit"},
      {"huge dynamic", 90, Kernel(32, 1, INT64_MAX), 128, "opt-in limit"},
      {"negative shared", 80, Kernel(32, -1), 128, "must not be negative"},
      {"negative registers", 80, Kernel(-1), 128, "must not be negative"},
      {"unknown arch", 35, Kernel(32), 128, "unknown architecture sm_35"},
      {"unknown arch 91", 91, Kernel(32), 128, "known: 50, 52"},
      {"cluster before sm_90", 80, With([](KernelResources& k) { k.cluster_size = 2; }), 128,
       "clusters need sm_90"},
      {"cluster too large", 90, With([](KernelResources& k) { k.cluster_size = 32; }), 128,
       "largest cluster size"},
      {"required block above 1024", 90,
       With([](KernelResources& k) { k.required_threads_per_block = 2048; }), 128,
       "required block size of 2048 threads exceeds"},
      {"required block above the launch bound", 90, With([](KernelResources& k) {
         k.required_threads_per_block = 256;
         k.max_threads_per_block = 128;
       }),
       128, "exceeds the kernel's launch bound of 128"},
      {"negative required block", 90,
       With([](KernelResources& k) { k.required_threads_per_block = -1; }), 128,
       "must not be negative"},
  };
  for (const BadCase& c : cases) {
    Result<Occupancy> occ = TheoreticalOccupancy(c.sm, c.kernel, c.block_size);
    ASSERT_FALSE(occ.ok()) << c.label;
    EXPECT_EQ(occ.error().code, ExitCode::kInputError) << c.label;
    EXPECT_NE(occ.error().message.find(c.substring), std::string::npos)
        << c.label << ": " << occ.error().message;
  }
  Result<Occupancy> best = BestOccupancy(80, Kernel(300));
  ASSERT_FALSE(best.ok());
  EXPECT_NE(best.error().message.find("limit of 255"), std::string::npos);
}

TEST(OccupancyErrorsTest, WithoutTheHeaderEveryQueryIsAnError) {
  if (OccupancyCalculatorAvailable()) {
    GTEST_SKIP() << "built with cuda_occupancy.h; the error path is built only without it";
  }
  for (Result<Occupancy> occ :
       {TheoreticalOccupancy(80, Kernel(32), 256), BestOccupancy(80, Kernel(32))}) {
    ASSERT_FALSE(occ.ok());
    EXPECT_EQ(occ.error().code, ExitCode::kToolError);
    EXPECT_EQ(occ.error().message,
              "theoretical occupancy needs cuda_occupancy.h from the CUDA toolkit (built without "
              "it)");
  }
}

TEST(OccupancyErrorsTest, ClusterOnSm90IsAccepted) {
  if (!OccupancyCalculatorAvailable()) GTEST_SKIP() << "built without cuda_occupancy.h";
  KernelResources k = Kernel(32);
  k.cluster_size = 2;
  Result<Occupancy> occ = TheoreticalOccupancy(90, k, 256);
  ASSERT_TRUE(occ.ok()) << occ.error().message;
  EXPECT_EQ(occ->blocks_per_sm, 8);
}

}  // namespace
}  // namespace gpugate
