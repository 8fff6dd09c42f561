// Fatbin reader (see fatbin.h). The layout, as nvcc 13.0 writes it:
//   fatbin header (16 bytes): u32 magic 0xBA55ED50, u16 version (1),
//     u16 header size (16), u64 size of the entries that follow;
//   entry header (64 bytes for ELF, 80 for PTX; its own size is field +4):
//     +0 u16 kind (1 PTX, 2 ELF)   +2 u16 version   +4 u32 header size
//     +8 u64 payload size (padded to 8)   +16 u32 compressed size (0: none)
//     +24 u32 PTX/ELF version   +28 u32 arch (90 = sm_90)
//     +32 u32 name offset   +36 u32 name size   +40 u64 flags
//     +56 u64 uncompressed size (0: not compressed)
//   flags: 0x2000 LZ4-style compression, 0x8000 zstd (nvcc 13's default for
//   PTX; -compress-mode=size also for SASS).
#include "static/fatbin.h"

#include <zstd.h>

#include "static/elf.h"

namespace gpugate {

using detail::InBounds;
using detail::ReadLe;

namespace {

constexpr uint64_t kFatbinHeaderSize = 16;
constexpr uint64_t kMinEntryHeader = 64;
constexpr uint64_t kMaxEntryHeader = 4096;
constexpr uint64_t kFlagLz4 = 0x2000;
constexpr uint64_t kFlagZstd = 0x8000;
// Arch-specific (sm_90a, sm_103a) and family-specific (sm_100f) targets; the
// cubin's own e_flags are those of the plain arch.
constexpr uint64_t kFlagArchSpecific = 0x100000;
constexpr uint64_t kFlagFamilySpecific = 0x200000;

FatbinCompression CompressionOf(uint64_t flags, uint64_t uncompressed_size, uint32_t compressed_size) {
  const bool lz4 = (flags & kFlagLz4) != 0, zstd = (flags & kFlagZstd) != 0;
  if (lz4 && zstd) return FatbinCompression::kUnknown;
  if (zstd) return FatbinCompression::kZstd;
  if (lz4) return FatbinCompression::kLz4;
  // Sizes that say "compressed" without a flag we know.
  if (uncompressed_size != 0 || compressed_size != 0) return FatbinCompression::kUnknown;
  return FatbinCompression::kNone;
}

/// Decompresses one zstd frame of exactly `expected` bytes into entry->payload,
/// or sets entry->problem. `decompressed` (the file's total so far) grows by
/// `expected` when the frame is decompressed.
void DecompressZstd(std::string_view compressed, uint64_t expected, const FatbinLimits& limits,
                    uint64_t* decompressed, FatbinEntry* entry) {
  if (expected == 0) {
    entry->problem = entry->Label() + ": zstd-compressed without an uncompressed size";
    return;
  }
  if (expected > limits.max_decompressed) {
    entry->problem = entry->Label() + ": declared uncompressed size " + std::to_string(expected) +
                     " bytes exceeds the " + std::to_string(limits.max_decompressed) + "-byte limit";
    return;
  }
  if (*decompressed > limits.max_total_decompressed || expected > limits.max_total_decompressed - *decompressed) {
    entry->problem = entry->Label() + ": not decompressed: its " + std::to_string(expected) +
                     " bytes would take the file's decompressed entries past the " +
                     std::to_string(limits.max_total_decompressed) + "-byte limit (" +
                     std::to_string(*decompressed) + " bytes so far)";
    return;
  }
  const unsigned long long frame = ZSTD_getFrameContentSize(compressed.data(), compressed.size());
  if (frame == ZSTD_CONTENTSIZE_ERROR) {
    entry->problem = entry->Label() + ": corrupt zstd data (no valid frame header)";
    return;
  }
  if (frame != ZSTD_CONTENTSIZE_UNKNOWN && frame != expected) {
    entry->problem = entry->Label() + ": zstd frame holds " + std::to_string(frame) + " bytes, the entry declares " +
                     std::to_string(expected);
    return;
  }
  *decompressed += expected;
  std::string out(static_cast<size_t>(expected), '\0');
  // The output buffer is the cap: zstd fails rather than write past it.
  const size_t n = ZSTD_decompress(out.data(), out.size(), compressed.data(), compressed.size());
  if (ZSTD_isError(n)) {
    entry->problem = entry->Label() + ": corrupt zstd data (" + ZSTD_getErrorName(n) + ")";
    return;
  }
  if (n != expected) {
    entry->problem = entry->Label() + ": zstd data decompressed to " + std::to_string(n) +
                     " bytes, the entry declares " + std::to_string(expected);
    return;
  }
  entry->payload = std::move(out);
}

/// Reads one entry at `p` (relative to `data`) ending no later than `end`;
/// returns the entry's total size through `size`.
Result<FatbinEntry> ParseEntry(std::string_view data, uint64_t p, uint64_t end, uint64_t base, const std::string& name,
                               const FatbinLimits& limits, uint64_t* decompressed, uint64_t* size) {
  FatbinEntry e;
  e.offset = base + p;
  uint32_t header_size = 0, compressed_size = 0, arch = 0;
  uint64_t payload_size = 0, uncompressed_size = 0;
  if (!InBounds(p, kMinEntryHeader, end)) return BinaryError(name, base + p, "fatbin entry header truncated");
  ReadLe(data, p, &e.kind);
  ReadLe(data, p + 4, &header_size);
  ReadLe(data, p + 8, &payload_size);
  ReadLe(data, p + 16, &compressed_size);
  ReadLe(data, p + 28, &arch);
  ReadLe(data, p + 40, &e.flags);
  ReadLe(data, p + 56, &uncompressed_size);
  if (header_size < kMinEntryHeader || header_size > kMaxEntryHeader)
    return BinaryError(name, base + p + 4,
                       "fatbin entry header size " + std::to_string(header_size) + " outside [64, 4096]");
  if (!InBounds(p, header_size, end) || !InBounds(p + header_size, payload_size, end))
    return BinaryError(
        name, base + p + 8,
        "fatbin entry payload (" + std::to_string(payload_size) + " bytes) beyond the end of its fatbin");
  e.arch = arch > 100000 ? -1 : static_cast<int>(arch);
  e.compression = CompressionOf(e.flags, uncompressed_size, compressed_size);
  if ((e.flags & kFlagFamilySpecific) != 0)
    e.arch_variant = 'f';
  else if ((e.flags & kFlagArchSpecific) != 0)
    e.arch_variant = 'a';
  *size = header_size + payload_size;
  std::string_view payload = data.substr(p + header_size, payload_size);
  if (e.kind != 1 && e.kind != 2) {
    e.problem = "entry of unknown kind " + std::to_string(e.kind) + " (arch " + std::to_string(arch) + ")";
    return e;
  }
  switch (e.compression) {
    case FatbinCompression::kNone:
      e.payload = std::string(payload);
      break;
    case FatbinCompression::kZstd:
      if (compressed_size == 0 || compressed_size > payload.size()) {
        e.problem = e.Label() + ": compressed size " + std::to_string(compressed_size) + " outside the " +
                    std::to_string(payload.size()) + "-byte payload";
        break;
      }
      DecompressZstd(payload.substr(0, compressed_size), uncompressed_size, limits, decompressed, &e);
      break;
    case FatbinCompression::kLz4:
      e.problem = e.Label() + ": LZ4-compressed entries are not supported (flags " + HexText(e.flags) + ")";
      break;
    case FatbinCompression::kUnknown:
      e.problem = e.Label() + ": unknown compression (flags " + HexText(e.flags) + ", uncompressed size " +
                  std::to_string(uncompressed_size) + ")";
      break;
  }
  return e;
}

}  // namespace

const char* ToString(FatbinCompression c) {
  switch (c) {
    case FatbinCompression::kNone:
      return "none";
    case FatbinCompression::kZstd:
      return "zstd";
    case FatbinCompression::kLz4:
      return "lz4";
    case FatbinCompression::kUnknown:
      return "unknown";
  }
  return "unknown";
}

std::string FatbinEntry::Label() const {
  std::string a = arch < 0 ? std::string("?") : std::to_string(arch);
  if (arch_variant != 0) a += arch_variant;
  if (IsPtx()) return "compute_" + a + " PTX entry";
  if (IsElf()) return "sm_" + a + " SASS entry";
  return "arch " + a + " entry";
}

bool IsFatbin(std::string_view data) {
  uint32_t magic = 0;
  return ReadLe(data, 0, &magic) && magic == kFatbinMagic;
}

Status ForEachFatbinEntry(std::string_view data, uint64_t base, const std::string& name, const FatbinLimits& limits,
                          uint64_t* decompressed, const FatbinVisitor& visit) {
  size_t entries = 0;
  uint64_t p = 0;
  while (p + 4 <= data.size()) {
    uint32_t magic = 0;
    ReadLe(data, p, &magic);
    if (magic != kFatbinMagic) {
      p += 8;
      continue;
    }
    if (p + kFatbinHeaderSize > data.size())
      return BinaryError(name, base + p, "fatbin header truncated (" + std::to_string(data.size() - p) +
                                             " of " + std::to_string(kFatbinHeaderSize) + " bytes)");
    uint16_t header_size = 0;
    uint64_t total = 0;
    ReadLe(data, p + 6, &header_size);
    ReadLe(data, p + 8, &total);
    if (header_size < kFatbinHeaderSize || !InBounds(p, header_size, data.size()))
      return BinaryError(name, base + p + 6, "fatbin header size " + std::to_string(header_size) + " invalid");
    if (!InBounds(p + header_size, total, data.size()))
      return BinaryError(name, base + p + 8,
                         "fatbin of " + std::to_string(total) + " bytes runs past the end of its section (" +
                             std::to_string(data.size() - p) + " bytes left)");
    const uint64_t end = p + header_size + total;
    // An empty fatbin followed by more bytes (not padding) lost its size.
    if (total == 0 && data.substr(end).find_first_not_of('\0') != std::string_view::npos)
      return BinaryError(name, base + p + 8, "fatbin header declares no entries, but " +
                                                 std::to_string(data.size() - end) + " bytes follow it");
    uint64_t q = p + header_size;
    while (q < end) {
      if (entries >= limits.max_entries)
        return BinaryError(name, base + q, "more than " + std::to_string(limits.max_entries) + " fatbin entries");
      uint64_t size = 0;
      Result<FatbinEntry> e = ParseEntry(data, q, end, base, name, limits, decompressed, &size);
      if (!e.ok()) return e.error();
      ++entries;
      // The entry, and its payload, is released when this iteration ends.
      if (Status st = visit(*e); !st.ok()) return st;
      q += size;
    }
    p = (end + 7) & ~uint64_t{7};
  }
  return Status::Ok();
}

}  // namespace gpugate
