// A bounded reader of 64-bit little-endian ELF files: the header, the
// section table with names, and a symbol table. Every offset and size is
// checked against the file before it is used (hostile inputs are expected:
// cubins and objects come from the pull request under test). Used for
// cubins (e_machine EM_CUDA) and for host objects, libraries and
// executables that carry fatbins. docs/inspect.md.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace gpugate {

inline constexpr uint16_t kElfMachineCuda = 190;  ///< EM_CUDA
inline constexpr uint32_t kElfSectionNobits = 8;  ///< SHT_NOBITS
/// `.nv.shared.<kernel>` of relocatable (-rdc) cubins, before nvlink makes it
/// NOBITS: like NOBITS its size is memory, not bytes in the file.
inline constexpr uint32_t kElfSectionCudaShared = 0x7000000a;

/// Whether a section of this type holds bytes of the file (not NOBITS or
/// the relocatable shared-memory section, whose size is memory).
constexpr bool HasFileBytes(uint32_t type) { return type != kElfSectionNobits && type != kElfSectionCudaShared; }

struct ElfSection {
  std::string_view name;  ///< into the file's bytes (ElfFile::data): never copied
  uint32_t type = 0;
  uint64_t flags = 0;
  uint64_t offset = 0;  ///< file offset (checked: offset + size is inside the file unless NOBITS)
  uint64_t size = 0;
  uint32_t link = 0;
  uint32_t info = 0;
  uint64_t entsize = 0;
};

struct ElfSymbol {
  std::string_view name;  ///< into the file's bytes: never copied
  uint64_t value = 0;
  uint64_t size = 0;
  /// st_shndx, or for SHN_XINDEX (0xffff) the index .symtab_shndx holds
  /// (files of 0xff00 sections or more).
  uint32_t section = 0;
  uint8_t info = 0;      ///< st_info (binding << 4 | type)
  uint8_t other = 0;     ///< st_other
};

/// A parsed ELF file. `data` views the bytes given to ParseElf, which must
/// outlive it.
struct ElfFile {
  std::string_view data;
  uint16_t type = 0;     ///< e_type (1 relocatable, 2 executable, 3 shared)
  uint16_t machine = 0;  ///< e_machine
  uint32_t flags = 0;    ///< e_flags
  uint8_t abi_version = 0;
  uint8_t os_abi = 0;   ///< EI_OSABI (CUDA: 0x33 before ABI version 8, 0x41 from it)
  std::vector<ElfSection> sections;

  /// The bytes of section `s` (empty for NOBITS).
  std::string_view Bytes(const ElfSection& s) const;
  /// The first section called `name`, or nullptr.
  const ElfSection* Find(std::string_view name) const;
};

/// Whether `data` starts with the ELF magic.
bool IsElf(std::string_view data);

/// Parses the header and the section table, also with extended section
/// numbering (e_shnum 0 / e_shstrndx SHN_XINDEX, the real values in section
/// 0). Errors (exit 2) read "<name>: offset 0x1a0: <what>".
Result<ElfFile> ParseElf(std::string_view data, const std::string& name);

/// The symbols of the first SHT_SYMTAB section (none when there is none),
/// names taken from its linked string table. At most `max_symbols`.
Result<std::vector<ElfSymbol>> ParseElfSymbols(const ElfFile& elf, const std::string& name,
                                               size_t max_symbols = 1 << 20);

/// "0x1a0": offsets and flags in messages.
std::string HexText(uint64_t v);

/// "<name>: offset 0x<offset>: <what>" as an input error.
Error BinaryError(const std::string& name, uint64_t offset, const std::string& what);

namespace detail {
/// Reads a little-endian unsigned integer of type T at `offset`; false when
/// it does not fit inside `data`.
template <class T>
bool ReadLe(std::string_view data, uint64_t offset, T* out) {
  if (offset > data.size() || data.size() - offset < sizeof(T)) return false;
  T v = 0;
  for (size_t i = 0; i < sizeof(T); ++i)
    v |= static_cast<T>(static_cast<T>(static_cast<unsigned char>(data[offset + i])) << (8 * i));
  *out = v;
  return true;
}
/// Whether [offset, offset + size) lies inside a buffer of `total` bytes.
inline bool InBounds(uint64_t offset, uint64_t size, uint64_t total) {
  return offset <= total && size <= total - offset;
}
}  // namespace detail

}  // namespace gpugate
