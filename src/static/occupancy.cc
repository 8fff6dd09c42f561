// Theoretical occupancy through NVIDIA's cuda_occupancy.h (header-only, host
// code, no GPU and no CUDA library needed). This is the one translation unit
// outside the CUDA backends that includes a CUDA header; CMake defines
// GPUGATE_HAVE_CUDA_OCCUPANCY and adds the toolkit's include directory for
// this file alone when it finds the header.
#include "static/occupancy.h"

#include <algorithm>
#include <array>
#include <climits>

#include "util/text/format.h"

#if defined(GPUGATE_HAVE_CUDA_OCCUPANCY) && __has_include(<cuda_occupancy.h>)
#include <cuda_occupancy.h>
#define GPUGATE_OCCUPANCY_BUILT 1
#else
#define GPUGATE_OCCUPANCY_BUILT 0
#endif

namespace gpugate {
namespace {

constexpr int64_t kKiB = 1024;

// CUDA C++ Programming Guide, "Technical Specifications per Compute
// Capability" (CUDA 12.x / 13.0): resident threads and blocks per SM,
// registers per SM / block / thread, shared memory per SM, per block and the
// opt-in maximum per block. Reserved shared memory per block: 1 KiB from 8.0
// on (cudaDevAttrReservedSharedMemoryPerBlock). Resident blocks per SM agree
// with cuda_occupancy.h's cudaOccMaxBlocksPerMultiprocessor (tested), which
// is what the calculation itself uses.
//   sm  threads blocks regs/SM regs/thr regs/blk  smem/SM   smem/blk  opt-in    reserved
constexpr std::array<ArchLimits, 18> kArchLimits = {{
    {50, 2048, 32, 65536, 255, 65536, 64 * kKiB, 48 * kKiB, 48 * kKiB, 0},
    {52, 2048, 32, 65536, 255, 65536, 96 * kKiB, 48 * kKiB, 48 * kKiB, 0},
    {53, 2048, 32, 65536, 255, 32768, 64 * kKiB, 48 * kKiB, 48 * kKiB, 0},
    {60, 2048, 32, 65536, 255, 65536, 64 * kKiB, 48 * kKiB, 48 * kKiB, 0},
    {61, 2048, 32, 65536, 255, 65536, 96 * kKiB, 48 * kKiB, 48 * kKiB, 0},
    {62, 2048, 32, 65536, 255, 32768, 64 * kKiB, 48 * kKiB, 48 * kKiB, 0},
    {70, 2048, 32, 65536, 255, 65536, 96 * kKiB, 48 * kKiB, 96 * kKiB, 0},
    {72, 2048, 32, 65536, 255, 65536, 96 * kKiB, 48 * kKiB, 96 * kKiB, 0},
    {75, 1024, 16, 65536, 255, 65536, 64 * kKiB, 48 * kKiB, 64 * kKiB, 0},
    {80, 2048, 32, 65536, 255, 65536, 164 * kKiB, 48 * kKiB, 163 * kKiB, 1 * kKiB},
    {86, 1536, 16, 65536, 255, 65536, 100 * kKiB, 48 * kKiB, 99 * kKiB, 1 * kKiB},
    {87, 1536, 16, 65536, 255, 65536, 164 * kKiB, 48 * kKiB, 163 * kKiB, 1 * kKiB},
    {89, 1536, 24, 65536, 255, 65536, 100 * kKiB, 48 * kKiB, 99 * kKiB, 1 * kKiB},
    {90, 2048, 32, 65536, 255, 65536, 228 * kKiB, 48 * kKiB, 227 * kKiB, 1 * kKiB},
    {100, 2048, 32, 65536, 255, 65536, 228 * kKiB, 48 * kKiB, 227 * kKiB, 1 * kKiB},
    {103, 2048, 32, 65536, 255, 65536, 228 * kKiB, 48 * kKiB, 227 * kKiB, 1 * kKiB},
    {120, 1536, 24, 65536, 255, 65536, 100 * kKiB, 48 * kKiB, 99 * kKiB, 1 * kKiB},
    {121, 1536, 24, 65536, 255, 65536, 100 * kKiB, 48 * kKiB, 99 * kKiB, 1 * kKiB},
}};

// Largest cluster a kernel may ask for (16 with the non-portable opt-in on
// sm_90; 8 is the portable size).
constexpr int kMaxClusterSize = 16;

std::string ArchName(int sm) { return "sm_" + std::to_string(sm); }

int WarpsPerBlock(const ArchLimits& arch, int block_size) {
  return (block_size + arch.warp_size - 1) / arch.warp_size;
}

Status CheckArchIndependentInput(const KernelResources& kernel) {
  if (kernel.registers < 0 || kernel.static_shared < 0 || kernel.dynamic_shared < 0 ||
      kernel.max_threads_per_block < 0 || kernel.required_threads_per_block < 0 ||
      kernel.min_blocks_per_sm < 0 ||
      kernel.cluster_size < 0 || kernel.barriers < 0) {
    return InputError("occupancy: kernel resources must not be negative");
  }
  return Status::Ok();
}

Status CheckKernel(const ArchLimits& arch, const KernelResources& kernel) {
  if (Status s = CheckArchIndependentInput(kernel); !s.ok()) return s;
  if (kernel.registers > arch.max_regs_per_thread) {
    return InputError("occupancy: " + std::to_string(kernel.registers) +
                      " registers per thread exceed " + ArchName(arch.sm) + "'s limit of " +
                      std::to_string(arch.max_regs_per_thread));
  }
  // Compare without overflow: both sides are validated non-negative.
  const int64_t shared = kernel.static_shared;
  if (shared > arch.shared_per_block_optin ||
      kernel.dynamic_shared > arch.shared_per_block_optin - shared) {
    return InputError("occupancy: shared memory per block (" + std::to_string(shared) +
                      " static + " + std::to_string(kernel.dynamic_shared) +
                      " dynamic bytes) exceeds " + ArchName(arch.sm) + "'s opt-in limit of " +
                      std::to_string(arch.shared_per_block_optin) + " bytes");
  }
  if (kernel.max_threads_per_block > arch.max_threads_per_block) {
    return InputError("occupancy: a launch bound of " +
                      std::to_string(kernel.max_threads_per_block) + " threads exceeds " +
                      ArchName(arch.sm) + "'s " + std::to_string(arch.max_threads_per_block));
  }
  if (kernel.required_threads_per_block > arch.max_threads_per_block) {
    return InputError("occupancy: a required block size of " +
                      std::to_string(kernel.required_threads_per_block) + " threads exceeds " +
                      ArchName(arch.sm) + "'s " + std::to_string(arch.max_threads_per_block));
  }
  if (kernel.required_threads_per_block > 0 && kernel.max_threads_per_block > 0 &&
      kernel.required_threads_per_block > kernel.max_threads_per_block) {
    return InputError("occupancy: a required block size of " +
                      std::to_string(kernel.required_threads_per_block) +
                      " threads exceeds the kernel's launch bound of " +
                      std::to_string(kernel.max_threads_per_block));
  }
  if (kernel.cluster_size > 1 && arch.sm < 90) {
    return InputError("occupancy: thread block clusters need sm_90 or later, not " +
                      ArchName(arch.sm));
  }
  if (kernel.cluster_size > kMaxClusterSize) {
    return InputError("occupancy: a cluster of " + std::to_string(kernel.cluster_size) +
                      " blocks exceeds the largest cluster size, " +
                      std::to_string(kMaxClusterSize));
  }
  return Status::Ok();
}

// The largest block the kernel can be launched with: its required block
// size, else the launch bound, else the arch's maximum.
int BlockSizeBound(const ArchLimits& arch, const KernelResources& kernel) {
  if (kernel.required_threads_per_block > 0) return kernel.required_threads_per_block;
  return kernel.max_threads_per_block > 0 ? kernel.max_threads_per_block
                                          : arch.max_threads_per_block;
}

Status CheckBlockSize(const ArchLimits& arch, const KernelResources& kernel, int block_size) {
  if (block_size <= 0) {
    return InputError("occupancy: the block size must be at least 1 thread, not " +
                      std::to_string(block_size));
  }
  if (block_size > arch.max_threads_per_block) {
    return InputError("occupancy: a block of " + std::to_string(block_size) +
                      " threads exceeds " + ArchName(arch.sm) + "'s " +
                      std::to_string(arch.max_threads_per_block));
  }
  if (kernel.max_threads_per_block > 0 && block_size > kernel.max_threads_per_block) {
    return InputError("occupancy: a block of " + std::to_string(block_size) +
                      " threads exceeds the kernel's launch bound of " +
                      std::to_string(kernel.max_threads_per_block));
  }
  if (kernel.required_threads_per_block > 0 && block_size != kernel.required_threads_per_block) {
    return InputError("occupancy: the kernel requires blocks of " +
                      std::to_string(kernel.required_threads_per_block) + " threads, not " +
                      std::to_string(block_size));
  }
  return Status::Ok();
}

// The block sizes BestOccupancy tries: the multiples of the warp size up to
// `bound`, and `bound` itself. Occupancy depends on a block's size only
// through its warps (registers and warp slots are allocated per warp), so
// of the sizes with the same number of warps the largest is as good as any.
std::vector<int> CandidateBlockSizes(const ArchLimits& arch, const KernelResources& kernel) {
  if (kernel.required_threads_per_block > 0) return {kernel.required_threads_per_block};
  const int bound = BlockSizeBound(arch, kernel);
  std::vector<int> sizes;
  for (int block_size = arch.warp_size; block_size <= bound; block_size += arch.warp_size) {
    sizes.push_back(block_size);
  }
  if (bound % arch.warp_size != 0) sizes.push_back(bound);
  return sizes;
}

// Which resource binds. Ties name the scarcer resource first (registers,
// shared memory, blocks, barriers, warps); a full SM is limited by warps.
std::string ChooseLimiter(const BlockLimits& limits, int blocks, bool full) {
  if (full) return "warps";
  if (limits.registers == blocks) return "registers";
  if (limits.shared_memory == blocks) return "shared_memory";
  if (limits.blocks == blocks) return "blocks";
  if (limits.barriers == blocks) return "barriers";
  return "warps";
}

std::string LimiterDetail(const std::string& limiter, const ArchLimits& arch,
                          const KernelResources& kernel, int block_size) {
  if (limiter == "registers") return std::to_string(kernel.registers) + " per thread";
  if (limiter == "shared_memory") {
    return FormatBytes(kernel.static_shared + kernel.dynamic_shared) + " per block";
  }
  if (limiter == "blocks") return "at most " + std::to_string(arch.max_blocks_per_sm) + " per SM";
  if (limiter == "barriers") return std::to_string(kernel.barriers) + " per block";
  return std::to_string(WarpsPerBlock(arch, block_size)) + " per block";
}

std::string Sentence(const Occupancy& occ, const ArchLimits& arch, const KernelResources& kernel) {
  std::string text = FormatRoundedPercent(occ.fraction) + " (" + std::to_string(occ.active_warps) +
                     " of " + std::to_string(occ.max_warps) + " warps)";
  if (occ.active_warps < occ.max_warps) {
    std::string what = occ.limiter == "shared_memory" ? "shared memory" : occ.limiter;
    text += ", limited by " + what + ": " +
            LimiterDetail(occ.limiter, arch, kernel, occ.block_size);
  }
  if (kernel.min_blocks_per_sm > 0 && occ.blocks_per_sm < kernel.min_blocks_per_sm) {
    text += "; " + std::to_string(occ.blocks_per_sm) + " blocks per SM, below the launch bound's " +
            std::to_string(kernel.min_blocks_per_sm);
  }
  return text;
}

#if GPUGATE_OCCUPANCY_BUILT

// cuda_occupancy.h's view of the arch. Only the SM count is not a property
// of the compute capability; per-SM occupancy does not depend on it.
cudaOccDeviceProp DeviceProp(const ArchLimits& arch) {
  cudaOccDeviceProp prop;
  prop.computeMajor = arch.sm / 10;
  prop.computeMinor = arch.sm % 10;
  prop.maxThreadsPerBlock = arch.max_threads_per_block;
  prop.maxThreadsPerMultiprocessor = arch.max_threads_per_sm;
  prop.regsPerBlock = arch.max_regs_per_block;
  prop.regsPerMultiprocessor = arch.regs_per_sm;
  prop.warpSize = arch.warp_size;
  prop.sharedMemPerBlock = static_cast<size_t>(arch.shared_per_block);
  prop.sharedMemPerMultiprocessor = static_cast<size_t>(arch.shared_per_sm);
  prop.numSms = 1;
  prop.sharedMemPerBlockOptin = static_cast<size_t>(arch.shared_per_block_optin);
  prop.reservedSharedMemPerBlock = static_cast<size_t>(arch.reserved_shared_per_block);
  return prop;
}

// The kernel as the runtime would describe it, having opted in to the
// dynamic shared memory it launches with (the launch could not happen
// otherwise above 48 KiB).
cudaOccFuncAttributes FuncAttributes(const ArchLimits& arch, const KernelResources& kernel) {
  cudaOccFuncAttributes attr;
  attr.maxThreadsPerBlock = BlockSizeBound(arch, kernel);
  attr.numRegs = kernel.registers;
  attr.sharedSizeBytes = static_cast<size_t>(kernel.static_shared);
  attr.partitionedGCConfig = PARTITIONED_GC_OFF;
  attr.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
  attr.maxDynamicSharedSizeBytes = static_cast<size_t>(kernel.dynamic_shared);
  attr.numBlockBarriers = kernel.barriers;
  attr.virtualResourceCount = 0;
  return attr;
}

Result<Occupancy> Calculate(const ArchLimits& arch, const KernelResources& kernel,
                            int block_size) {
  const cudaOccDeviceProp prop = DeviceProp(arch);
  const cudaOccFuncAttributes attr = FuncAttributes(arch, kernel);
  const cudaOccDeviceState state;  // default carveout and cache preference
  cudaOccResult result{};
  const cudaOccError status = cudaOccMaxActiveBlocksPerMultiprocessor(
      &result, &prop, &attr, &state, block_size, static_cast<size_t>(kernel.dynamic_shared));
  if (status != CUDA_OCC_SUCCESS) {
    return ToolError("occupancy: cuda_occupancy.h rejected " + ArchName(arch.sm) +
                     " (error " + std::to_string(static_cast<int>(status)) + ")");
  }
  Occupancy occ;
  occ.block_size = block_size;
  occ.blocks_per_sm = result.activeBlocksPerMultiprocessor;
  occ.limits = BlockLimits{result.blockLimitRegs, result.blockLimitSharedMem,
                           result.blockLimitWarps, result.blockLimitBlocks,
                           result.blockLimitBarriers};
  occ.allocated_registers_per_block = result.allocatedRegistersPerBlock;
  occ.allocated_shared_per_block = static_cast<int64_t>(result.allocatedSharedMemPerBlock);
  return occ;
}

#else

Result<Occupancy> Calculate(const ArchLimits&, const KernelResources&, int) {
  return ToolError(
      "theoretical occupancy needs cuda_occupancy.h from the CUDA toolkit (built without it)");
}

#endif

Result<Occupancy> Evaluate(const ArchLimits& arch, const KernelResources& kernel,
                           int block_size) {
  Result<Occupancy> calculated = Calculate(arch, kernel, block_size);
  if (!calculated.ok()) return calculated.error();
  Occupancy occ = std::move(calculated).value();
  if (occ.blocks_per_sm <= 0) {
    const std::string why = occ.limits.registers == 0       ? "registers"
                            : occ.limits.shared_memory == 0 ? "shared memory"
                                                            : "barriers";
    return InputError("occupancy: a block of " + std::to_string(block_size) + " threads with " +
                      std::to_string(kernel.registers) + " registers per thread cannot run on " +
                      ArchName(arch.sm) + ": not enough " + why + " for one block");
  }
  occ.max_warps = arch.max_warps_per_sm();
  occ.active_warps = occ.blocks_per_sm * WarpsPerBlock(arch, block_size);
  occ.fraction = static_cast<double>(occ.active_warps) / occ.max_warps;
  occ.limiter = ChooseLimiter(occ.limits, occ.blocks_per_sm, occ.active_warps >= occ.max_warps);
  occ.sentence = Sentence(occ, arch, kernel);
  return occ;
}

Result<ArchLimits> Arch(int sm) {
  std::optional<ArchLimits> arch = LimitsForArch(sm);
  if (!arch) {
    std::string known;
    for (int k : KnownArchs()) known += (known.empty() ? "" : ", ") + std::to_string(k);
    return InputError("occupancy: unknown architecture " + ArchName(sm) + " (known: " + known +
                      ")");
  }
  return *arch;
}

}  // namespace

std::optional<ArchLimits> LimitsForArch(int sm) {
  for (const ArchLimits& arch : kArchLimits) {
    if (arch.sm == sm) return arch;
  }
  return std::nullopt;
}

std::vector<int> KnownArchs() {
  std::vector<int> archs;
  for (const ArchLimits& arch : kArchLimits) archs.push_back(arch.sm);
  return archs;
}

bool OccupancyCalculatorAvailable() { return GPUGATE_OCCUPANCY_BUILT != 0; }

Result<Occupancy> TheoreticalOccupancy(int sm, const KernelResources& kernel, int block_size) {
  Result<ArchLimits> arch = Arch(sm);
  if (!arch.ok()) return arch.error();
  if (Status s = CheckKernel(*arch, kernel); !s.ok()) return s.error();
  if (Status s = CheckBlockSize(*arch, kernel, block_size); !s.ok()) return s.error();
  return Evaluate(*arch, kernel, block_size);
}

Result<Occupancy> BestOccupancy(int sm, const KernelResources& kernel) {
  Result<ArchLimits> arch = Arch(sm);
  if (!arch.ok()) return arch.error();
  if (Status s = CheckKernel(*arch, kernel); !s.ok()) return s.error();
  std::optional<Occupancy> best;
  std::optional<Error> last_error;
  for (int block_size : CandidateBlockSizes(*arch, kernel)) {
    Result<Occupancy> occ = Evaluate(*arch, kernel, block_size);
    if (!occ.ok()) {
      if (occ.error().code == ExitCode::kToolError) return occ.error();
      last_error = occ.error();
      continue;
    }
    // Ascending sizes: >= keeps the larger block among equal occupancies.
    if (!best || occ->active_warps >= best->active_warps) best = std::move(occ).value();
  }
  if (!best) {
    if (last_error) return *last_error;
    return InputError("occupancy: no block size to try");  // a bound of 0 is no bound: unreachable
  }
  return *best;
}

}  // namespace gpugate
