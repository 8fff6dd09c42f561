// Bounded ELF64 reader (see elf.h).
#include "static/elf.h"

#include <cstdio>

namespace gpugate {

using detail::InBounds;
using detail::ReadLe;

namespace {

constexpr uint32_t kSymtab = 2;  // SHT_SYMTAB
constexpr uint32_t kSymtabShndx = 18;  // SHT_SYMTAB_SHNDX
constexpr uint64_t kSectionHeaderSize = 64;
constexpr uint64_t kSymbolSize = 24;
constexpr uint16_t kShnXindex = 0xffff;  // SHN_XINDEX

/// The NUL-terminated string at `offset` of a string table, or false when it
/// is out of range or not terminated inside the table.
bool StringAt(std::string_view table, uint64_t offset, std::string_view* out) {
  if (offset >= table.size()) return false;
  const size_t end = table.find('\0', offset);
  if (end == std::string_view::npos) return false;
  // A view, not a copy: many headers may name one long string.
  *out = table.substr(offset, end - offset);
  return true;
}

}  // namespace

std::string HexText(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

Error BinaryError(const std::string& name, uint64_t offset, const std::string& what) {
  return InputError(name + ": offset " + HexText(offset) + ": " + what);
}

bool IsElf(std::string_view data) {
  return data.size() >= 4 && data.substr(0, 4) ==
                                 "\x7f"
                                 "ELF";
}

std::string_view ElfFile::Bytes(const ElfSection& s) const {
  // ParseElf checked every section with bytes; this guards hand-made ones.
  if (!HasFileBytes(s.type) || !InBounds(s.offset, s.size, data.size())) return {};
  return data.substr(s.offset, s.size);
}

const ElfSection* ElfFile::Find(std::string_view name) const {
  for (const ElfSection& s : sections)
    if (s.name == name) return &s;
  return nullptr;
}

Result<ElfFile> ParseElf(std::string_view data, const std::string& name) {
  if (!IsElf(data)) return BinaryError(name, 0, "not an ELF file (bad magic)");
  if (data.size() < 64)
    return BinaryError(name, data.size(), "ELF header truncated (" + std::to_string(data.size()) + " bytes)");
  if (data[4] != 2)
    return BinaryError(name, 4,
                       "not a 64-bit ELF file (class " + std::to_string(static_cast<unsigned char>(data[4])) +
                           "); only ELF64 is read");
  if (data[5] != 1) return BinaryError(name, 5, "not a little-endian ELF file");
  ElfFile elf;
  elf.data = data;
  elf.abi_version = static_cast<uint8_t>(data[8]);
  elf.os_abi = static_cast<uint8_t>(data[7]);
  uint64_t shoff = 0;
  uint16_t shentsize = 0, header_shnum = 0, header_shstrndx = 0;
  ReadLe(data, 16, &elf.type);
  ReadLe(data, 18, &elf.machine);
  ReadLe(data, 0x28, &shoff);
  ReadLe(data, 0x30, &elf.flags);
  ReadLe(data, 0x3a, &shentsize);
  ReadLe(data, 0x3c, &header_shnum);
  ReadLe(data, 0x3e, &header_shstrndx);
  if (header_shnum == 0 && shoff == 0) return elf;  // no section table
  uint64_t shnum = header_shnum;
  uint32_t shstrndx = header_shstrndx;
  uint64_t shstrndx_offset = 0x3e;  // where the index was read, for errors
  // Extended numbering (0xff00 sections or more, e.g. -ffunction-sections
  // objects): e_shnum is 0 and the count is section 0's sh_size; an e_shstrndx
  // of SHN_XINDEX (0xffff) puts the name table's index in section 0's sh_link.
  if (header_shnum == 0 || header_shstrndx == kShnXindex) {
    if (!InBounds(shoff, kSectionHeaderSize, data.size()))
      return BinaryError(name, 0x28, "section header table at " + HexText(shoff) + " beyond end of file (" +
                                         std::to_string(data.size()) + " bytes)");
    if (header_shnum == 0) ReadLe(data, shoff + 32, &shnum);
    if (header_shstrndx == kShnXindex) {
      shstrndx_offset = shoff + 40;
      ReadLe(data, shstrndx_offset, &shstrndx);
    }
  }
  if (shnum == 0) return elf;  // no sections
  if (shentsize != kSectionHeaderSize)
    return BinaryError(name, 0x3a, "section header size " + std::to_string(shentsize) + ", expected 64");
  if (shnum > data.size() / kSectionHeaderSize || !InBounds(shoff, shnum * kSectionHeaderSize, data.size()))
    return BinaryError(name, shoff,
                       "section header table (" + std::to_string(shnum) + " entries) beyond end of file (" +
                           std::to_string(data.size()) + " bytes)");
  if (shstrndx >= shnum)
    return BinaryError(name, shstrndx_offset, "section name table index " + std::to_string(shstrndx) + " out of range");
  elf.sections.resize(shnum);
  std::vector<uint32_t> name_offsets(shnum);
  for (uint64_t i = 0; i < shnum; ++i) {
    const uint64_t h = shoff + i * kSectionHeaderSize;
    ElfSection& s = elf.sections[i];
    ReadLe(data, h, &name_offsets[i]);
    ReadLe(data, h + 4, &s.type);
    ReadLe(data, h + 8, &s.flags);
    ReadLe(data, h + 24, &s.offset);
    ReadLe(data, h + 32, &s.size);
    ReadLe(data, h + 40, &s.link);
    ReadLe(data, h + 44, &s.info);
    ReadLe(data, h + 56, &s.entsize);
    if (HasFileBytes(s.type) && !InBounds(s.offset, s.size, data.size()))
      return BinaryError(name, h,
                         "section " + std::to_string(i) + " (" + std::to_string(s.size) + " bytes at " +
                             HexText(s.offset) + ") beyond end of file (" + std::to_string(data.size()) + " bytes)");
  }
  const ElfSection& names = elf.sections[shstrndx];
  if (!HasFileBytes(names.type)) return BinaryError(name, shstrndx_offset, "section name table has no bytes");
  const std::string_view table = elf.Bytes(names);
  for (uint64_t i = 0; i < shnum; ++i) {
    const uint64_t name_offset = name_offsets[i];
    if (!StringAt(table, name_offset, &elf.sections[i].name))
      return BinaryError(
          name, shoff + i * kSectionHeaderSize,
          "section " + std::to_string(i) + " name offset " + std::to_string(name_offset) + " outside the name table");
  }
  return elf;
}

Result<std::vector<ElfSymbol>> ParseElfSymbols(const ElfFile& elf, const std::string& name, size_t max_symbols) {
  std::vector<ElfSymbol> symbols;
  const ElfSection* symtab = nullptr;
  for (const ElfSection& s : elf.sections)
    if (s.type == kSymtab) {
      symtab = &s;
      break;
    }
  if (symtab == nullptr) return symbols;
  if (symtab->link >= elf.sections.size())
    return BinaryError(name, symtab->offset,
                       "symbol table links to string table " + std::to_string(symtab->link) + ", out of range");
  const std::string_view strings = elf.Bytes(elf.sections[symtab->link]);
  const std::string_view bytes = elf.Bytes(*symtab);
  const uint64_t count = bytes.size() / kSymbolSize;
  if (count > max_symbols)
    return BinaryError(name, symtab->offset,
                       std::to_string(count) + " symbols, more than the " + std::to_string(max_symbols) + " read");
  // Extended section indices: SHT_SYMTAB_SHNDX linked to this table holds
  // one 32-bit index per symbol, for those whose st_shndx is SHN_XINDEX.
  std::string_view extended;
  const uint64_t symtab_index = static_cast<uint64_t>(symtab - elf.sections.data());
  for (const ElfSection& s : elf.sections)
    if (s.type == kSymtabShndx && s.link == symtab_index) {
      extended = elf.Bytes(s);
      break;
    }
  symbols.resize(count);
  for (uint64_t i = 0; i < count; ++i) {
    const uint64_t o = i * kSymbolSize;
    ElfSymbol& sym = symbols[i];
    uint32_t name_offset = 0;
    ReadLe(bytes, o, &name_offset);
    sym.info = static_cast<uint8_t>(bytes[o + 4]);
    sym.other = static_cast<uint8_t>(bytes[o + 5]);
    uint16_t shndx = 0;
    ReadLe(bytes, o + 6, &shndx);
    sym.section = shndx;
    if (shndx == kShnXindex) {
      if (extended.size() < (i + 1) * 4)
        return BinaryError(name, symtab->offset + o,
                           "symbol " + std::to_string(i) + " has an extended section index (SHN_XINDEX) that no "
                           ".symtab_shndx entry holds");
      ReadLe(extended, i * 4, &sym.section);
    }
    ReadLe(bytes, o + 8, &sym.value);
    ReadLe(bytes, o + 16, &sym.size);
    if (name_offset != 0 && !StringAt(strings, name_offset, &sym.name))
      return BinaryError(
          name, symtab->offset + o,
          "symbol " + std::to_string(i) + " name offset " + std::to_string(name_offset) + " outside its string table");
  }
  return symbols;
}

}  // namespace gpugate
