// Theoretical occupancy of a kernel from its static resources (registers,
// shared memory, launch bounds), per compute capability, without a GPU.
// The calculation is NVIDIA's own: the header-only cuda_occupancy.h from the
// CUDA toolkit (cudaOccMaxActiveBlocksPerMultiprocessor). A build without
// that header answers every query with an Error, never with a number of its
// own. The per-architecture limits below are the published tables; they
// describe the limits and validate input, the header decides the figure.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "util/result.h"

namespace gpugate {

/// Per-SM and per-block limits of one compute capability, from the CUDA C++
/// Programming Guide, "Technical Specifications per Compute Capability"
/// (the table "Technical Specifications per Compute Capability" of the
/// "Compute Capabilities" appendix, CUDA 12.x/13.0 editions), and the
/// driver's reserved shared memory per block (1 KiB from compute capability
/// 8.0 on, cudaDevAttrReservedSharedMemoryPerBlock).
struct ArchLimits {
  int sm = 0;                     ///< 80 for compute capability 8.0
  int max_threads_per_sm = 0;     ///< resident threads per SM (warps x 32)
  int max_blocks_per_sm = 0;      ///< resident blocks per SM
  int regs_per_sm = 0;            ///< 32-bit registers per SM
  int max_regs_per_thread = 0;    ///< registers one thread can address
  int max_regs_per_block = 0;     ///< 32-bit registers per block
  int64_t shared_per_sm = 0;      ///< shared memory per SM, bytes
  int64_t shared_per_block = 0;   ///< shared memory per block without opt-in (48 KiB)
  int64_t shared_per_block_optin = 0;     ///< with cudaFuncAttributeMaxDynamicSharedMemorySize
  int64_t reserved_shared_per_block = 0;  ///< taken by the driver from each block
  int max_threads_per_block = 1024;
  int warp_size = 32;
  int max_warps_per_sm() const { return max_threads_per_sm / warp_size; }
};

/// The limits of compute capability `sm` (50, 52, 53, 60, 61, 62, 70, 72, 75,
/// 80, 86, 87, 89, 90, 100, 103, 120, 121); nullopt for any other.
std::optional<ArchLimits> LimitsForArch(int sm);

/// Every compute capability LimitsForArch knows, ascending.
std::vector<int> KnownArchs();

/// What a kernel uses, as ptxas or the cubin's attributes report it.
struct KernelResources {
  int registers = 0;              ///< per thread
  int64_t static_shared = 0;      ///< bytes, __shared__ declarations
  int64_t dynamic_shared = 0;     ///< bytes, the launch's dynamic shared memory
  int max_threads_per_block = 0;  ///< __launch_bounds__ first argument; 0: no launch bound
  /// The block size the kernel requires (PTX `.reqntid`, `__block_size__`,
  /// x*y*z): the only size it can be launched with; 0: none required.
  int required_threads_per_block = 0;
  int min_blocks_per_sm = 0;      ///< __launch_bounds__ second argument; 0: none
  int cluster_size = 0;           ///< blocks per cluster (__cluster_dims__); 0 or 1: no cluster
  /// Named barriers the kernel uses (ptxas "used N barriers"). 1 is what the
  /// CUDA runtime assumes for every kernel; 0 removes the barrier limit.
  int barriers = 1;
};

/// Blocks per SM each resource alone would allow (INT_MAX: no limit).
struct BlockLimits {
  int registers = 0;
  int shared_memory = 0;
  int warps = 0;
  int blocks = 0;
  int barriers = 0;
};

struct Occupancy {
  int block_size = 0;     ///< threads per block
  int blocks_per_sm = 0;  ///< resident blocks per SM
  int active_warps = 0;   ///< blocks_per_sm x warps per block
  int max_warps = 0;      ///< warp slots of the SM
  double fraction = 0;    ///< active_warps / max_warps
  /// The resource that binds: "registers", "shared_memory", "blocks",
  /// "barriers" or "warps" ("warps" also when every warp slot is used).
  std::string limiter;
  /// "50% (32 of 64 warps), limited by registers: 64 per thread".
  std::string sentence;
  BlockLimits limits;
  int64_t allocated_shared_per_block = 0;  ///< after the driver's reserve and granularity
  int allocated_registers_per_block = 0;   ///< after the allocation granularity
};

/// True when this build carries cuda_occupancy.h (otherwise every
/// occupancy query returns an Error).
bool OccupancyCalculatorAvailable();

/// Theoretical occupancy of a kernel launched with `block_size` threads on
/// compute capability `sm`. Errors (exit code 2): unknown arch, a block size
/// of 0 or above the launch bound or the arch's 1024, a block size other
/// than the one the kernel requires, registers above the
/// arch's limit, shared memory above the opt-in limit per block, a cluster
/// before sm_90; and a build without cuda_occupancy.h (exit code 3). The
/// shared memory carveout is the device default (all of the SM's shared
/// memory may be used), as no binary says otherwise.
Result<Occupancy> TheoreticalOccupancy(int sm, const KernelResources& kernel, int block_size);

/// The block size with the highest theoretical occupancy; among equals the
/// larger block. The candidates are the multiples of the warp size up to the
/// launch bound and the bound itself (a block's resources count whole warps,
/// so no other size can do better); a kernel that requires a block size has
/// only that one.
Result<Occupancy> BestOccupancy(int sm, const KernelResources& kernel);

}  // namespace gpugate
