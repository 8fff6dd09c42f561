// Cubin reader (see cubin.h). `.nv.info` sections (type 0x70000000) hold
// records `u8 format; u8 attribute; u16 size-or-value`, followed by `size`
// bytes when format is 4 (SVAL); format 3 (HVAL) and 2 (BVAL) carry their
// value in the u16, format 1 (NVAL) none. The global `.nv.info` keys its
// records by symbol index ([u32 symbol, u32 value]); `.nv.info.<k>` belongs
// to the kernel whose `.text.<k>` is its sh_info.
#include "static/cubin.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>

#include "static/elf.h"
#include "util/random.h"
#include "util/text/escape.h"

namespace gpugate {

using detail::ReadLe;

namespace {

constexpr uint32_t kNvInfoType = 0x70000000;
constexpr uint64_t kSectionExecutable = 0x4;  // SHF_EXECINSTR
constexpr uint32_t kCallGraphType = 0x70000001;  // SHT_CUDA_CALLGRAPH
/// Callee entries read over all kernels (each a uint32): a binary of many
/// kernels that all call many functions is cut there, and says so.
constexpr size_t kMaxCallees = size_t{1} << 22;
/// The longest kernel name read (mangled names of heavily templated kernels
/// run to tens of KiB), and what a cubin's kernel names may add up to.
constexpr size_t kMaxKernelNameBytes = size_t{1} << 20;
constexpr uint64_t kMaxKernelNameTotal = uint64_t{64} << 20;
/// Before ELF ABI version 7 the .nv.info sections were plain PROGBITS.
constexpr uint32_t kElfSectionProgbits = 1;
constexpr uint8_t kFormatSval = 4;

// EIATTR attribute codes.
constexpr uint8_t kMaxThreads = 0x05;
constexpr uint8_t kParamCbank = 0x0a;
constexpr uint8_t kReqNtid = 0x10;
constexpr uint8_t kKparamInfo = 0x17;
constexpr uint8_t kExitInstrOffsets = 0x1c;
constexpr uint8_t kFrameSize = 0x11;
constexpr uint8_t kMinStackSize = 0x12;
constexpr uint8_t kCbankParamSize = 0x19;
constexpr uint8_t kMaxRegCount = 0x1b;
constexpr uint8_t kCtaPerCluster = 0x3d;
constexpr uint8_t kRegCount = 0x2f;
constexpr uint8_t kNumBarriers = 0x4c;

/// st_other of a kernel's symbol (STO_CUDA_ENTRY); device functions lack it.
constexpr uint8_t kStoCudaEntry = 0x10;

/// sm_90 and newer place a system-reserved block inside each kernel's
/// `.nv.shared.<k>`. sm_100+ cubins carry its size as the value of the
/// symbol `.nv.reservedSmem.cap`; sm_90 cubins from nvcc 13.0 carry no size,
/// only the `.nv.shared.reserved.0` section, or (-G builds, the cubin nvlink
/// links for -rdc) only the undefined symbol `.nv.reservedSmem.offset0`.
/// There the block is 1 KiB (the documented reserved shared memory per
/// block; ptxas -v prints the section size minus 1024 for every sm_90 kernel
/// built here).
constexpr int64_t kDefaultReservedShared = 1024;

struct Record {
  uint8_t format = 0;
  uint8_t attribute = 0;
  uint16_t value = 0;      ///< the u16 (size for SVAL)
  std::string_view bytes;  ///< SVAL payload
  uint64_t offset = 0;     ///< file offset, for messages
};

Result<std::vector<Record>> ParseNvInfo(const ElfFile& elf, const ElfSection& s, const std::string& name) {
  std::vector<Record> records;
  const std::string_view b = elf.Bytes(s);
  uint64_t p = 0;
  while (p < b.size()) {
    Record r;
    r.offset = s.offset + p;
    if (b.size() - p < 4) return BinaryError(name, r.offset, "truncated attribute record in " + QuoteInput(s.name));
    r.format = static_cast<uint8_t>(b[p]);
    r.attribute = static_cast<uint8_t>(b[p + 1]);
    ReadLe(b, p + 2, &r.value);
    p += 4;
    if (r.format == kFormatSval) {
      if (b.size() - p < r.value)
        return BinaryError(name, r.offset,
                           "attribute " + HexText(r.attribute) + " of " + std::to_string(r.value) +
                               " bytes runs past the end of " + QuoteInput(s.name));
      r.bytes = b.substr(p, r.value);
      p += r.value;
    }
    records.push_back(r);
  }
  return records;
}

std::optional<std::array<int64_t, 3>> Dims(const Record& r) {
  uint32_t x = 0, y = 0, z = 0;
  if (r.format != kFormatSval || !ReadLe(r.bytes, 0, &x) || !ReadLe(r.bytes, 4, &y) || !ReadLe(r.bytes, 8, &z))
    return std::nullopt;
  return std::array<int64_t, 3>{x, y, z};
}

/// Per-symbol values of the global `.nv.info`.
struct GlobalInfo {
  std::map<uint32_t, uint32_t> regcount, frame, min_stack;
};

GlobalInfo ReadGlobal(const std::vector<Record>& records) {
  GlobalInfo g;
  for (const Record& r : records) {
    uint32_t sym = 0, value = 0;
    if (r.format != kFormatSval || !ReadLe(r.bytes, 0, &sym) || !ReadLe(r.bytes, 4, &value)) continue;
    if (r.attribute == kRegCount) g.regcount[sym] = value;
    if (r.attribute == kFrameSize) g.frame[sym] = value;
    if (r.attribute == kMinStackSize) g.min_stack[sym] = value;
  }
  return g;
}

void ApplyKernelRecords(const std::vector<Record>& records, KernelInfo* k) {
  for (const Record& r : records) {
    const bool in_u16 = r.format != kFormatSval;
    switch (r.attribute) {
      case kMaxThreads:
        k->max_threads = Dims(r);
        break;
      case kReqNtid:
        k->req_threads = Dims(r);
        break;
      case kCtaPerCluster:
        k->cluster_dims = Dims(r);
        break;
      case kCbankParamSize:
        if (in_u16) k->param_bytes = r.value;
        break;
      case kMaxRegCount:
        if (in_u16) k->max_registers = r.value;
        break;
      case kNumBarriers:
        if (in_u16) k->barriers = r.value;
        break;
      default:
        break;
    }
  }
}

/// Whether a function's `.nv.info.<f>` holds an attribute only kernels
/// have: parameters (EIATTR_PARAM_CBANK, EIATTR_KPARAM_INFO,
/// EIATTR_CBANK_PARAM_SIZE), exits (EIATTR_EXIT_INSTR_OFFSETS; device
/// functions return) or a launch shape (EIATTR_MAX_THREADS, EIATTR_REQNTID,
/// EIATTR_CTA_PER_CLUSTER). Device functions of -rdc and -G builds have
/// their own `.nv.info.<f>` with none of these.
bool HasEntryAttribute(const std::vector<Record>& records) {
  for (const Record& r : records)
    switch (r.attribute) {
      case kParamCbank:
      case kKparamInfo:
      case kCbankParamSize:
      case kExitInstrOffsets:
      case kMaxThreads:
      case kReqNtid:
      case kCtaPerCluster:
        return true;
      default:
        break;
    }
  return false;
}

/// The reserved shared memory of a cubin's kernels (0 before sm_90).
int64_t ReservedShared(const ElfFile& elf, const std::vector<ElfSymbol>& symbols) {
  for (const ElfSymbol& s : symbols)
    if (s.name == ".nv.reservedSmem.cap") return static_cast<int64_t>(std::min<uint64_t>(s.value, uint64_t{1} << 32));
  for (const ElfSection& s : elf.sections)
    if (s.name.rfind(".nv.shared.reserved.", 0) == 0) return kDefaultReservedShared;
  for (const ElfSymbol& s : symbols)
    if (s.name.rfind(".nv.reservedSmem.offset", 0) == 0) return kDefaultReservedShared;
  return 0;
}

}  // namespace

std::string ArchText(int arch, char variant) {
  std::string text = "sm_" + std::to_string(arch);
  if (variant != 0) text += variant;
  return text;
}

int CubinArch(uint32_t e_flags, uint8_t abi_version) {
  return static_cast<int>((abi_version >= 8 ? e_flags >> 8 : e_flags) & 0xff);
}

bool IsCubin(std::string_view data) {
  uint16_t machine = 0;
  return IsElf(data) && ReadLe(data, 18, &machine) && machine == kElfMachineCuda;
}

namespace {

// Masks the 8 hex digits after `marker` wherever it stands followed by
// them, "_" and a digit (the length of the file name that follows), and,
// with `mangled`, at the start of the name or after a length (a mangled
// name's source-name): "_ZN37_GLOBAL__N__674e38ab_5_an_cu_...", not a
// user's "conv_INTERNAL_20240101_v".
void MaskFolderHashes(std::string& name, std::string_view marker, bool mangled) {
  for (size_t at = name.find(marker); at != std::string::npos; at = name.find(marker, at + 1)) {
    const size_t hex = at + marker.size();
    if (hex + 10 > name.size() || name[hex + 8] != '_' || name[hex + 9] < '0' || name[hex + 9] > '9') continue;
    if (mangled && at > 0 && (name[at - 1] < '0' || name[at - 1] > '9')) continue;
    bool all = true;
    for (size_t i = hex; i < hex + 8; ++i) all = all && std::isxdigit(static_cast<unsigned char>(name[i]));
    if (all) name.replace(hex, 8, "xxxxxxxx");
  }
}

}  // namespace

std::string StableKernelName(std::string_view name) {
  std::string stable(name);
  // "__nv_static_<N>__<8 hex>_...": the module id of a static kernel of -rdc code.
  constexpr std::string_view kPrefix = "__nv_static_";
  if (stable.starts_with(kPrefix)) {
    size_t at = kPrefix.size();
    const size_t digits_from = at;
    while (at < stable.size() && at - digits_from < 6 && stable[at] >= '0' && stable[at] <= '9') ++at;
    if (at > digits_from && at + 11 <= stable.size() && stable[at] == '_' && stable[at + 1] == '_')
      MaskFolderHashes(stable, stable.substr(0, at + 2), /*mangled=*/false);
  }
  // An anonymous namespace ("_GLOBAL__N__<8 hex>_<file>", mangled inside the
  // name) and nvcc's internal-linkage prefix carry the same folder hash.
  MaskFolderHashes(stable, "_GLOBAL__N__", /*mangled=*/true);
  MaskFolderHashes(stable, "_INTERNAL_", /*mangled=*/true);
  return stable;
}

std::string KernelSourceFile(std::string_view name) {
  // "<marker><8 hex or xxxxxxxx>_<length>_<file of that length>_...", the
  // marker as StableKernelName masks it.
  for (std::string_view marker : {"__nv_static_", "_GLOBAL__N__", "_INTERNAL_"}) {
    for (size_t at = name.find(marker); at != std::string_view::npos; at = name.find(marker, at + 1)) {
      size_t p = at + marker.size();
      if (marker != "__nv_static_" && at > 0 && (name[at - 1] < '0' || name[at - 1] > '9')) continue;
      if (marker == "__nv_static_") {
        if (at != 0) continue;
        while (p < name.size() && name[p] >= '0' && name[p] <= '9') ++p;
        if (p == at + marker.size() || name.substr(p, 2) != "__") continue;
        p += 2;
      }
      if (p + 10 > name.size() || name[p + 8] != '_') continue;
      bool hash = true;
      for (size_t i = p; i < p + 8; ++i)
        hash = hash && (std::isxdigit(static_cast<unsigned char>(name[i])) || name[i] == 'x');
      if (!hash) continue;
      p += 9;
      const size_t digits_from = p;
      size_t length = 0;
      for (; p < name.size() && name[p] >= '0' && name[p] <= '9' && p - digits_from < 4; ++p)
        length = length * 10 + static_cast<size_t>(name[p] - '0');
      if (p == digits_from || length == 0 || p >= name.size() || name[p] != '_' || p + 1 + length > name.size())
        continue;
      return std::string(name.substr(p + 1, length));
    }
  }
  return {};
}

char ToolArchVariant(std::string_view note, int arch) {
  const std::string want = "-arch sm_" + std::to_string(arch);
  for (size_t at = note.find(want); at != std::string_view::npos; at = note.find(want, at + 1)) {
    const size_t end = at + want.size();
    if (end >= note.size() || (note[end] != 'a' && note[end] != 'f')) continue;
    const size_t after = end + 1;
    if (after < note.size() && std::isalnum(static_cast<unsigned char>(note[after]))) continue;
    return note[end];
  }
  return 0;
}

namespace {

// The device functions each kernel calls (KernelInfo::callees): the edges of
// .nv.callgraph (pairs of 32-bit symbol indices, caller then callee;
// negative entries are markers), followed from the kernel's symbol, and the
// "$<kernel>$<function>" symbols a whole-program build puts in the kernel's
// own code section for a function it did not inline.
void AddCallees(const ElfFile& elf, const std::vector<ElfSymbol>& symbols,
                const std::vector<std::optional<uint32_t>>& kernel_symbols, CubinInfo* info) {
  std::map<uint32_t, std::vector<uint32_t>> calls;
  for (const ElfSection& s : elf.sections) {
    if (s.type != kCallGraphType) continue;
    const std::string_view d = elf.Bytes(s);
    for (uint64_t o = 0; o + 8 <= d.size(); o += 8) {
      int32_t caller = -1, callee = -1;
      ReadLe(d, o, &caller);
      ReadLe(d, o + 4, &callee);
      if (caller < 0 || callee < 0 || caller == callee || static_cast<size_t>(caller) >= symbols.size() ||
          static_cast<size_t>(callee) >= symbols.size())
        continue;
      calls[static_cast<uint32_t>(caller)].push_back(static_cast<uint32_t>(callee));
    }
  }
  std::map<uint32_t, std::vector<std::string_view>> clones;  // code section -> functions placed in it
  for (const ElfSymbol& sym : symbols) {
    if ((sym.info & 0xf) != 2 /* STT_FUNC */ || sym.name.size() < 3 || sym.name[0] != '$') continue;
    const size_t last = sym.name.rfind('$');
    if (last == 0 || last + 1 >= sym.name.size()) continue;
    clones[sym.section].push_back(sym.name.substr(last + 1));
  }
  std::map<std::string_view, uint32_t> index;  // each function's name is kept once
  size_t total = 0;
  auto add = [&](KernelInfo& k, std::string_view function, std::set<uint32_t>& seen) {
    if (function.empty()) return;
    auto [it, fresh] = index.emplace(function, static_cast<uint32_t>(info->device_functions.size()));
    if (fresh) info->device_functions.emplace_back(function);
    if (!seen.insert(it->second).second) return;
    if (total >= kMaxCallees) {
      info->call_graph_cut = true;
      return;
    }
    k.callees.push_back(it->second);
    ++total;
  };
  for (size_t i = 0; i < info->kernels.size() && i < kernel_symbols.size(); ++i) {
    if (!kernel_symbols[i]) continue;
    KernelInfo& k = info->kernels[i];
    std::set<uint32_t> seen;
    const uint32_t start = *kernel_symbols[i];
    if (auto c = clones.find(symbols[start].section); c != clones.end())
      for (std::string_view function : c->second) add(k, function, seen);
    std::vector<uint32_t> stack{start};
    std::set<uint32_t> visited{start};
    while (!stack.empty() && !info->call_graph_cut) {
      const uint32_t at = stack.back();
      stack.pop_back();
      auto edges = calls.find(at);
      if (edges == calls.end()) continue;
      for (uint32_t callee : edges->second)
        if (visited.insert(callee).second) {
          add(k, symbols[callee].name, seen);
          stack.push_back(callee);
        }
    }
  }
}

}  // namespace

Result<CubinInfo> ReadCubin(std::string_view data, const std::string& name) {
  Result<ElfFile> elf = ParseElf(data, name);
  if (!elf.ok()) return elf.error();
  if (elf->machine != kElfMachineCuda)
    return BinaryError(name, 18, "ELF machine " + std::to_string(elf->machine) + " is not EM_CUDA (190)");
  Result<std::vector<ElfSymbol>> symbols = ParseElfSymbols(*elf, name);
  if (!symbols.ok()) return symbols.error();
  CubinInfo info;
  info.arch = CubinArch(elf->flags, elf->abi_version);
  // Known layouts: EI_OSABI 0x33 with ABI versions up to 7 (SM in e_flags'
  // low byte), 0x41 with version 8 (the next byte). Anything else is decoded
  // by its version and said to be a guess.
  const bool known = (elf->os_abi == 0x33 && elf->abi_version <= 7) || (elf->os_abi == 0x41 && elf->abi_version == 8);
  if (!known)
    info.layout_note = "ELF OS/ABI " + HexText(elf->os_abi) + ", ABI version " + std::to_string(elf->abi_version) +
                       ": a cubin layout this gpugate does not know; the architecture sm_" +
                       std::to_string(info.arch) + " is read as ABI version " +
                       (elf->abi_version >= 8 ? "8" : "7") + " lays it out and may be wrong";
  // The target variant, which e_flags do not hold (sm_90a and sm_90 cubins
  // have the same): the tool's command line in .note.nv.tkinfo, "-arch
  // sm_90a". A fatbin entry's flags say it too (inspect.cc prefers them).
  if (const ElfSection* t = elf->Find(".note.nv.tkinfo"); t != nullptr && HasFileBytes(t->type))
    info.arch_variant = ToolArchVariant(elf->Bytes(*t), info.arch);
  GlobalInfo global;
  // The .nv.info sections: SHT_CUDA_INFO, or PROGBITS in old cubins (ELF ABI 4).
  auto is_info = [&](const ElfSection& s) {
    return s.type == kNvInfoType || (s.type == kElfSectionProgbits && elf->abi_version < 7);
  };
  if (const ElfSection* g = elf->Find(".nv.info"); g != nullptr && is_info(*g)) {
    Result<std::vector<Record>> records = ParseNvInfo(*elf, *g, name);
    if (!records.ok()) return records.error();
    global = ReadGlobal(*records);
  }
  const int64_t reserved = ReservedShared(*elf, *symbols);
  // Section index -> the kernel's symbol: of the FUNC symbols defined in a
  // kernel's .text section (device functions such as
  // `$sobel_filter$__cuda_sm20_sqrt_rn_f32_slowpath` live there too), the
  // CUDA entry (st_other STO_CUDA_ENTRY), else a global one at the section's
  // start, else the first.
  std::map<uint32_t, uint32_t> symbol_of_section;
  auto rank = [](const ElfSymbol& s) {
    return ((s.other & kStoCudaEntry) ? 4 : 0) + ((s.info >> 4) == 1 /* STB_GLOBAL */ ? 2 : 0) +
           (s.value == 0 ? 1 : 0);
  };
  for (uint32_t i = 0; i < symbols->size(); ++i) {
    const ElfSymbol& symbol = (*symbols)[i];
    if ((symbol.info & 0xf) != 2 /* STT_FUNC */) continue;
    auto [it, added] = symbol_of_section.emplace(symbol.section, i);
    if (!added && rank(symbol) > rank((*symbols)[it->second])) it->second = i;
  }
  // Section index of a kernel's .text -> its .nv.shared / .nv.constant0 section.
  std::map<uint32_t, const ElfSection*> shared_of, constant0_of;
  for (const ElfSection& t : elf->sections) {
    if (t.name.rfind(".nv.shared.", 0) == 0 && (t.type == kElfSectionNobits || t.type == kElfSectionCudaShared))
      shared_of.emplace(t.info, &t);
    if (t.name.rfind(".nv.constant0.", 0) == 0) constant0_of.emplace(t.info, &t);
  }
  const std::string info_prefix = ".nv.info.";
  std::set<uint32_t> code_sections, kernel_sections;
  std::vector<std::optional<uint32_t>> kernel_symbols;  // parallel to info.kernels
  uint64_t name_bytes = 0;
  for (const ElfSection& s : elf->sections) {
    if (!is_info(s) || s.name.rfind(info_prefix, 0) != 0) continue;
    if (s.info == 0 || s.info >= elf->sections.size())
      return BinaryError(name, s.offset,
                         QuoteInput(s.name) + " refers to section " + std::to_string(s.info) + ", out of range");
    const ElfSection& text = elf->sections[s.info];
    // One code section per kernel: several .nv.info sections that name one
    // .text would read (and hash) its bytes once each.
    if (!code_sections.insert(s.info).second)
      return BinaryError(name, s.offset,
                         QuoteInput(s.name) + " names code section " + std::to_string(s.info) +
                             ", which another kernel's attributes already name");
    if (!HasFileBytes(text.type))
      return BinaryError(name, s.offset,
                         QuoteInput(s.name) + " names code section " + std::to_string(s.info) + " (" +
                             QuoteInput(text.name) + "), which has no bytes in the file");
    Result<std::vector<Record>> records = ParseNvInfo(*elf, s, name);
    if (!records.ok()) return records.error();
    KernelInfo k;
    k.arch = info.arch;
    k.name = std::string(s.name.substr(info_prefix.size()));
    // A kernel's .text section names its symbol in the low 24 bits of
    // sh_info and, in cubins before ELF ABI 8, its register count in the
    // high 8 (0x0a00000d: 10 registers, symbol 13).
    std::optional<uint32_t> symbol_index;
    if (const uint32_t i = text.info & 0xffffff; i != 0 && i < symbols->size() &&
                                                 ((*symbols)[i].info & 0xf) == 2 && (*symbols)[i].section == s.info)
      symbol_index = i;
    else if (const auto sym = symbol_of_section.find(s.info); sym != symbol_of_section.end())
      symbol_index = sym->second;
    // A kernel is an entry function: its symbol carries STO_CUDA_ENTRY, or
    // (layouts without the flag) its attributes or constant bank say so.
    // Device functions with a `.nv.info.<f>` of their own are not kernels.
    const bool entry = (symbol_index && ((*symbols)[*symbol_index].other & kStoCudaEntry) != 0) ||
                       HasEntryAttribute(*records) || constant0_of.count(s.info) != 0;
    if (!entry) continue;
    kernel_symbols.push_back(symbol_index);
    if (symbol_index) {
      const ElfSymbol& symbol = (*symbols)[*symbol_index];
      if (!symbol.name.empty()) k.name = std::string(symbol.name);
      if (auto it = global.regcount.find(*symbol_index); it != global.regcount.end())
        k.registers = static_cast<int>(it->second);
      if (auto it = global.frame.find(*symbol_index); it != global.frame.end()) k.stack_frame = it->second;
      if (auto it = global.min_stack.find(*symbol_index); it != global.min_stack.end()) k.min_stack = it->second;
    }
    ApplyKernelRecords(*records, &k);
    if (!k.registers && elf->abi_version < 8 && (text.info >> 24) != 0)
      k.registers = static_cast<int>(text.info >> 24);
    const std::string_view sass = elf->Bytes(text);
    k.sass_bytes = static_cast<int64_t>(text.size);
    k.sass_hash = Fnv1a64(sass);
    if (info.arch >= 70) k.instructions = k.sass_bytes / 16;
    if (auto it = shared_of.find(s.info); it != shared_of.end()) {
      const int64_t total = static_cast<int64_t>(std::min<uint64_t>(it->second->size, uint64_t{1} << 40));
      k.shared_reserved = it->second->type == kElfSectionNobits && total >= reserved ? reserved : 0;
      k.shared_bytes = total - k.shared_reserved;
    }
    if (auto it = constant0_of.find(s.info); it != constant0_of.end())
      k.cbank0_bytes = static_cast<int64_t>(std::min<uint64_t>(it->second->size, uint64_t{1} << 40));
    // Each kernel keeps its name: what they add up to is bounded, so that a
    // small file of many kernels naming one long string stays small.
    name_bytes += k.name.size();
    if (k.name.size() > kMaxKernelNameBytes || name_bytes > kMaxKernelNameTotal)
      return BinaryError(name, s.offset,
                         k.name.size() > kMaxKernelNameBytes
                             ? "kernel name of " + std::to_string(k.name.size()) + " bytes, more than the " +
                                   std::to_string(kMaxKernelNameBytes) + " read"
                             : "kernel names add up to more than the " + std::to_string(kMaxKernelNameTotal) +
                                   " bytes read");
    kernel_sections.insert(s.info);
    info.kernels.push_back(std::move(k));
  }
  AddCallees(*elf, *symbols, kernel_symbols, &info);
  // The code no kernel owns (an -rdc or -G build's device functions, which
  // its kernels call) and the device data (__constant__ banks other than the
  // parameters' bank 0, initialised __device__ variables): a change there
  // changes the kernels that call or read it, so every kernel carries one
  // hash of it. Names are masked of the folder hashes (StableKernelName), so
  // the same source built in another folder hashes the same. Each section is
  // hashed in place, and sections that claim more bytes than the file holds
  // overlap: damage, not more to hash.
  uint64_t other = 0, hashed = 0;
  bool any_other = false;
  for (uint32_t i = 0; i < elf->sections.size(); ++i) {
    const ElfSection& t = elf->sections[i];
    if (!HasFileBytes(t.type) || kernel_sections.count(i) != 0) continue;
    const bool code = (t.flags & kSectionExecutable) != 0;
    const bool data_section = (t.name.rfind(".nv.constant", 0) == 0 && t.name.rfind(".nv.constant0", 0) != 0) ||
                              t.name == ".nv.global.init";
    if (!code && !data_section) continue;
    hashed += t.size;
    if (hashed > data.size())
      return BinaryError(name, t.offset,
                         "code and data sections claim more bytes than the file holds (" + QuoteInput(t.name) +
                             " overlaps another)");
    any_other = true;
    other = SplitMix64(other ^ Fnv1a64(StableKernelName(t.name)));
    other = SplitMix64(other ^ Fnv1a64(elf->Bytes(t)));
  }
  if (any_other)
    for (KernelInfo& k : info.kernels) k.other_code_hash = other;
  return info;
}

}  // namespace gpugate
