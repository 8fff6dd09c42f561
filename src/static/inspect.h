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
#include "util/result.h"

namespace gpugate {

inline constexpr const char* kInspectSchema = "gpugate/inspect/v1";

/// One cubin found in the input.
struct InspectedCubin {
  std::string source;  ///< where it was found: "k.o: .nv_fatbin: sm_90 SASS entry at 0x1a0"
  FatbinCompression compression = FatbinCompression::kNone;
  CubinInfo cubin;
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
};

/// Inspects the bytes of a file called `name`. Malformed input is an error
/// (exit 2) naming the file and the offset.
Result<InspectReport> InspectBytes(std::string_view bytes, const std::string& name, const FatbinLimits& limits = {});

/// Reads `path` (within the input size limit) and inspects it.
Result<InspectReport> InspectFile(const std::string& path);

}  // namespace gpugate
