// Per-kernel resource usage from build logs: `ptxas -v`, `nvcc -Xptxas -v`,
// `nvcc --resource-usage` and nvlink's `-v` lines of a -rdc device link.
// Registers, barriers, stack frame, spills, shared and constant memory per
// function and architecture, for gating spills and registers without a GPU.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace gpugate {

/// One function's resource usage as one log reports it.
struct PtxasKernel {
  std::string name;        ///< mangled, as ptxas prints it
  int sm = 0;              ///< 80 for 'sm_80' (also 'sm_90a'); 0 when the log names no arch
  char sm_variant = 0;     ///< 'a' for 'sm_90a', 'f' for 'sm_100f'; 0 for a plain arch
  int registers = 0;       ///< per thread
  int barriers = 0;        ///< named barriers ("used N barriers")
  int64_t stack_frame = 0;   ///< bytes
  /// Bytes, from ptxas's "N bytes spill stores, N bytes spill loads"; none
  /// when the record has no such line (nvlink prints no spill figures).
  std::optional<int64_t> spill_stores, spill_loads;
  int64_t shared = 0;        ///< static shared memory, bytes ("smem")
  int64_t cmem0 = 0;         ///< constant bank 0 (parameters), bytes
  /// A kernel ("Compiling entry function", or a function nvlink reports);
  /// false for a device function that only has "Function properties".
  bool entry = true;
  int line = 0;  ///< 1-based line of the record's first line in the log
  /// The ptxas module (one compilation of one file for one arch) the record
  /// belongs to: a module starts at ptxas's "N bytes gmem" line; 0 before
  /// the first such line (and in logs without them).
  int module = 0;
};

/// Parses a build log. Lines that are not ptxas/nvlink resource lines
/// (compiler warnings, "Compile time", module gmem lines) are skipped; a
/// line that starts like a known resource line but does not parse (a
/// non-number, a number beyond the field's range, an unterminated quote) is
/// an Error "file:line:col: ...". CRLF line ends, trailing blanks and a build tool's prefix
/// before "ptxas info" (MSBuild's "1>  ") are accepted. A device function's
/// arch is its module's: that of the module's kernels when they name one
/// arch (ptxas prints a -rdc module's device functions before its kernels),
/// else the last arch the log named before it, or none (0) in a module
/// without kernels that follows another arch's.
Result<std::vector<PtxasKernel>> ParsePtxasLog(std::string_view text, const std::string& file_name);

}  // namespace gpugate
