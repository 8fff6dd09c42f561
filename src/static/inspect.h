// `gpugate inspect`: static kernel metrics of a cubin, a fatbin, or a host
// ELF object / static library / shared library / executable that carries
// fatbins (`.nv_fatbin`, `__nv_relfatbin`). No GPU and no CUDA tools needed.
// Computes an InspectReport; inspect_render.h turns it into a table or JSON.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "static/cubin.h"
#include "static/fatbin.h"
#include "static/occupancy.h"
#include "static/ptxas_log.h"
#include "util/result.h"

namespace gpugate {

inline constexpr const char* kInspectSchema = "gpugate/inspect/v1";

/// What gpugate adds to a kernel beyond the cubin's own attributes.
struct KernelExtras {
  /// Spill bytes from a ptxas log (--ptxas-log), matched by name and arch.
  std::optional<int64_t> spill_stores, spill_loads;
  /// Theoretical occupancy at the required block size, else at the block
  /// size that maximises it within the launch bound (static/occupancy.h);
  /// none when it cannot be computed.
  std::optional<Occupancy> occupancy;
  std::string occupancy_note;  ///< why there is none
};

/// One cubin found in the input.
struct InspectedCubin {
  std::string source;  ///< where it was found: "k.o: .nv_fatbin: sm_90 SASS entry at 0x1a0"
  /// The archive member it was found in ("k.o", as ar stores it: no folder),
  /// empty outside an archive.
  std::string member;
  FatbinCompression compression = FatbinCompression::kNone;
  CubinInfo cubin;
  std::vector<KernelExtras> extras;  ///< parallel to cubin.kernels (after AddOccupancy / AddPtxasLog)
};

/// Something in the input that was not inspected, and why (a PTX-only
/// entry, an LZ4-compressed entry, an archive member without device code).
struct InspectNote {
  std::string source;
  std::string message;
};

struct InspectReport {
  std::string file;
  std::string format;  ///< cubin | fatbin | elf | archive
  std::vector<InspectedCubin> cubins;
  std::vector<InspectNote> notes;
  /// SASS entries that were found but not read (a limit, corrupt or unknown
  /// compression): the binary holds code this report does not describe, so
  /// it cannot say the code is unchanged.
  int64_t sass_not_inspected = 0;
};

/// x*y*z of a block or cluster shape (dimensions of 0 count as 1); 0 when
/// there is none, -1 when a dimension is beyond any real one.
int64_t BlockThreads(const std::optional<std::array<int64_t, 3>>& dims);

/// Inspects the bytes of a file called `name`. Malformed input is an error
/// (exit 2) naming the file and the offset.
Result<InspectReport> InspectBytes(std::string_view bytes, const std::string& name, const FatbinLimits& limits = {});

/// Reads `path` (within the input size limit) and inspects it.
Result<InspectReport> InspectFile(const std::string& path);

/// Adds each kernel's theoretical occupancy: at the block size it requires
/// (.reqntid), else at the best block size within its launch bound, with its
/// registers, static shared memory, barriers and cluster size
/// (cuda_occupancy.h). Kernels it cannot compute say why.
void AddOccupancy(InspectReport* report);

/// Adds spill stores and loads from a ptxas -v / --resource-usage log to the
/// kernels of the same name and arch (a log without an arch matches every
/// arch). Log entries no cubin holds become notes, and so do a record whose
/// registers differ from the binary's (another build's log: its spills are
/// not used) and two records of one kernel that disagree (the larger spills
/// are used). A record without spill figures (nvlink's) leaves the spills
/// unknown. A log without any kernel record is an input error when the
/// file has kernels.
Status AddPtxasLog(InspectReport* report, const std::vector<PtxasKernel>& log, const std::string& log_name);

}  // namespace gpugate
