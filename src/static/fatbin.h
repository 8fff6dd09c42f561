// Reader of CUDA fatbins (the container nvcc embeds in `.nv_fatbin` and
// `__nv_relfatbin` sections, or writes with `nvcc -fatbin`): its entries,
// their kind (PTX or ELF), architecture and compression, and the entry
// payload, decompressed when it is zstd-compressed. Layout worked out from
// fatbins made by nvcc 13.0 (docs/inspect.md "Fatbin layout").
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace gpugate {

inline constexpr uint32_t kFatbinMagic = 0xBA55ED50;

enum class FatbinCompression { kNone, kZstd, kLz4, kUnknown };
const char* ToString(FatbinCompression c);

/// One entry of a fatbin. `payload` holds the (decompressed) bytes when
/// `problem` is empty; otherwise `problem` says why the entry cannot be read
/// ("LZ4-compressed SASS is not supported").
struct FatbinEntry {
  uint64_t offset = 0;  ///< file offset of the entry header
  uint16_t kind = 0;    ///< 1 PTX, 2 ELF (SASS)
  int arch = 0;         ///< 90 for sm_90 / compute_90
  uint64_t flags = 0;
  FatbinCompression compression = FatbinCompression::kNone;
  std::string payload;
  std::string problem;

  bool IsElf() const { return kind == 2; }
  bool IsPtx() const { return kind == 1; }
  /// "sm_90 SASS" or "compute_90 PTX".
  std::string Label() const;
};

/// Limits for hostile fatbins.
struct FatbinLimits {
  uint64_t max_decompressed = uint64_t{256} << 20;  ///< per entry, absolute
  size_t max_entries = 4096;                        ///< per file
};

/// Whether `data` starts with the fatbin magic.
bool IsFatbin(std::string_view data);

/// Parses every fatbin found in `data` (a `.nv_fatbin` section, or a whole
/// `-fatbin` file): fatbins start at 8-byte aligned offsets with the magic.
/// `base` is the file offset of `data[0]`, for messages. Structural errors
/// (a fatbin or entry running past its end) are input errors; problems of
/// one entry (compression, corrupt zstd data) are reported in the entry.
Result<std::vector<FatbinEntry>> ParseFatbins(std::string_view data, uint64_t base, const std::string& name,
                                              const FatbinLimits& limits = {});

}  // namespace gpugate
