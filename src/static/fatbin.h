// Reader of CUDA fatbins (the container nvcc embeds in `.nv_fatbin` and
// `__nv_relfatbin` sections, or writes with `nvcc -fatbin`): its entries,
// their kind (PTX or ELF), architecture and compression, and the entry
// payload, decompressed when it is zstd-compressed. Layout worked out from
// fatbins made by nvcc 13.0 (docs/inspect.md "Fatbin layout").
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

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
  /// 'a' (sm_90a: flag 0x100000) or 'f' (sm_100f: flag 0x200000), else 0.
  char arch_variant = 0;
  uint64_t flags = 0;
  FatbinCompression compression = FatbinCompression::kNone;
  std::string payload;
  std::string problem;

  bool IsElf() const { return kind == 2; }
  bool IsPtx() const { return kind == 1; }
  /// "sm_90 SASS entry", "sm_90a SASS entry" or "compute_90 PTX entry".
  std::string Label() const;
};

/// Limits for hostile fatbins.
struct FatbinLimits {
  uint64_t max_decompressed = uint64_t{256} << 20;       ///< per entry, absolute
  uint64_t max_total_decompressed = uint64_t{1} << 30;  ///< all entries of one input file together
  /// Or this many bytes per byte of the input file, when that is more
  /// (InspectBytes): a 7 MB library of 2,300 translation units holds 1.1 GB
  /// of SASS, a zstd bomb of 50 KB does not get past 1 GiB.
  uint64_t total_per_input_byte = 256;
  size_t max_entries = 4096;                             ///< per fatbin section
};

/// Whether `data` starts with the fatbin magic.
bool IsFatbin(std::string_view data);

/// Called with each entry of a fatbin, in file order. The entry (and its
/// decompressed payload) lives only during the call; an error stops the walk.
using FatbinVisitor = std::function<Status(const FatbinEntry&)>;

/// Walks every fatbin found in `data` (a `.nv_fatbin` section, or a whole
/// `-fatbin` file; fatbins start at 8-byte aligned offsets with the magic)
/// and calls `visit` with each entry, one at a time, so at most one
/// decompressed payload is held at once. `decompressed` carries the bytes the
/// input file's entries decompressed to so far, across calls: an entry that
/// would take it past `limits.max_total_decompressed` is not decompressed
/// and has a `problem` instead. `base` is the file offset of `data[0]`, for
/// messages. Structural errors (a fatbin or entry running past its end) are
/// input errors; problems of one entry (compression, corrupt zstd data, a
/// limit) are reported in the entry.
Status ForEachFatbinEntry(std::string_view data, uint64_t base, const std::string& name, const FatbinLimits& limits,
                          uint64_t* decompressed, const FatbinVisitor& visit);

}  // namespace gpugate
