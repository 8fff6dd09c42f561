// gpugate inspect on the small cubins and fatbins committed under
// tests/data/cubins (built by nvcc 13.0, see the README there): every
// kernel's figures against the ptxas -v report saved beside them, so this
// runs in the build without CUDA too. Then hostile inputs, table-driven.
#include "static/ar_archive.h"
#include "static/inspect.h"

#include <gtest/gtest.h>
#include <zstd.h>

#include <array>
#include <cstring>
#include <functional>
#include <set>
#include <sstream>
#include <tuple>

#include "cli/run_binary.h"
#include "harness/static_runner.h"
#include "static/cubin.h"
#include "static/elf.h"
#include "static/inspect_render.h"
#include "static/ptxas_v_lines.h"
#include "static/cubin_data.h"
#include "util/fs.h"
#include "util/json.h"

namespace gpugate {
namespace {

const std::string kData = testing::CubinDataPath("");

std::string Load(const std::string& file) { return testing::LoadCubinData(file); }

const KernelInfo* FindKernel(const InspectReport& r, const std::string& name, int arch) {
  for (const InspectedCubin& c : r.cubins)
    for (const KernelInfo& k : c.cubin.kernels)
      if (k.name == name && k.arch == arch) return &k;
  return nullptr;
}

/// Every kernel ptxas reported is inspected with the same figures.
void ExpectMatchesPtxas(const InspectReport& r, const std::string& log_file) {
  const testing::PtxasReport ptxas = testing::ParsePtxasV(Load(log_file));
  ASSERT_FALSE(ptxas.empty()) << log_file;
  for (const auto& [key, p] : ptxas) {
    SCOPED_TRACE(key.first + " sm_" + std::to_string(key.second));
    const KernelInfo* k = FindKernel(r, key.first, key.second);
    ASSERT_NE(k, nullptr);
    EXPECT_EQ(k->registers, p.registers);
    EXPECT_EQ(k->stack_frame, p.stack_frame);
    EXPECT_EQ(k->shared_bytes, p.smem);
    EXPECT_EQ(k->barriers, p.barriers);
    if (p.cmem0) {
      EXPECT_EQ(k->cbank0_bytes, *p.cmem0);
    }
  }
}

TEST(InspectTest, CubinMatchesPtxas) {
  Result<InspectReport> r = InspectBytes(Load("small_sm90.cubin"), "small_sm90.cubin");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->format, "cubin");
  ASSERT_EQ(r->cubins.size(), 1u);
  EXPECT_EQ(r->cubins[0].cubin.arch, 90);
  EXPECT_EQ(r->cubins[0].cubin.kernels.size(), 3u);
  ExpectMatchesPtxas(*r, "small_sm90.ptxas.txt");

  const KernelInfo* tiled = FindKernel(*r, "_Z5tiledPKfPf", 90);
  ASSERT_NE(tiled, nullptr);
  EXPECT_EQ(tiled->shared_bytes, 1536);     // 256 floats + 64 doubles
  EXPECT_EQ(tiled->shared_reserved, 1024);  // sm_90's reserved block inside .nv.shared
  EXPECT_EQ(tiled->barriers, 1);
  EXPECT_EQ(tiled->param_bytes, 16);
  const KernelInfo* bounded = FindKernel(*r, "_Z7boundedPff", 90);
  ASSERT_NE(bounded, nullptr);
  ASSERT_TRUE(bounded->max_threads.has_value());
  EXPECT_EQ((*bounded->max_threads)[0], 128);
  EXPECT_EQ(bounded->max_registers, 128);  // __launch_bounds__(128, 4): 65536 / (128 * 4)
  EXPECT_EQ(bounded->param_bytes, 12);
  const KernelInfo* add = FindKernel(*r, "plain_add", 90);
  ASSERT_NE(add, nullptr);
  EXPECT_FALSE(add->max_threads.has_value());
  EXPECT_EQ(add->param_bytes, 28);
  EXPECT_EQ(add->sass_bytes % 16, 0);
  EXPECT_EQ(add->instructions, add->sass_bytes / 16);
  EXPECT_NE(add->sass_hash, tiled->sass_hash);
}

TEST(InspectTest, ABareCubinOfAnArchSpecificTargetSaysSo) {
  // sm_90a and sm_90 cubins have the same e_flags; the compiler's command
  // line in .note.nv.tkinfo tells them apart.
  for (const auto& [file, arch, variant] :
       std::vector<std::tuple<std::string, int, char>>{{"small_sm90a.cubin", 90, 'a'},
                                                       {"small_sm100f.cubin", 100, 'f'},
                                                       {"small_sm90.cubin", 90, 0}}) {
    Result<InspectReport> r = InspectBytes(Load(file), file);
    ASSERT_TRUE(r.ok()) << r.error().message;
    ASSERT_EQ(r->cubins.size(), 1u);
    EXPECT_EQ(r->cubins[0].cubin.arch, arch) << file;
    EXPECT_EQ(r->cubins[0].cubin.arch_variant, variant) << file;
    for (const KernelInfo& k : r->cubins[0].cubin.kernels) EXPECT_EQ(k.arch_variant, variant) << file << k.name;
  }
  EXPECT_EQ(ToolArchVariant("ptxas -arch sm_90a -m 64 ", 90), 'a');
  EXPECT_EQ(ToolArchVariant("-arch sm_90 -m 64", 90), 0);
  EXPECT_EQ(ToolArchVariant("-arch sm_100f", 100), 'f');
  EXPECT_EQ(ToolArchVariant("-arch sm_100abc", 100), 0);  // not a variant letter alone
  EXPECT_EQ(ToolArchVariant("-arch sm_90a", 100), 0);     // another arch than the cubin's
}

TEST(InspectTest, ClusterDims) {
  Result<InspectReport> r = InspectBytes(Load("cluster_sm90.cubin"), "cluster_sm90.cubin");
  ASSERT_TRUE(r.ok()) << r.error().message;
  ExpectMatchesPtxas(*r, "cluster_sm90.ptxas.txt");
  const KernelInfo* k = FindKernel(*r, "_Z9clusteredPf", 90);
  ASSERT_NE(k, nullptr);
  ASSERT_TRUE(k->cluster_dims.has_value());
  EXPECT_EQ(*k->cluster_dims, (std::array<int64_t, 3>{2, 1, 1}));
  EXPECT_EQ(k->shared_bytes, 128);
}

// A relocatable (-rdc) cubin's .nv.shared section (0x7000000a) has a size
// but no bytes in the file, like NOBITS: 16 KiB of shared memory in a 4 KB file.
TEST(InspectTest, RelocatableCubinSharedMemoryHasNoFileBytes) {
  Result<InspectReport> r = InspectBytes(Load("big_smem_sm90_rdc.cubin"), "big_smem_sm90_rdc.cubin");
  ASSERT_TRUE(r.ok()) << r.error().message;
  ExpectMatchesPtxas(*r, "big_smem_sm90_rdc.ptxas.txt");
  const KernelInfo* k = FindKernel(*r, "_Z8big_smemPf", 90);
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->shared_bytes, 16384);
}

// -rdc and -G builds give a non-inlined device function its own
// .nv.info.<f> section; only entry functions (the CUDA entry flag on their
// symbol, parameter and exit attributes) are kernels, as ptxas reports them.
TEST(InspectTest, DeviceFunctionsAreNotKernels) {
  for (const std::string build : {"devfn_sm90_rdc", "devfn_sm90_debug"}) {
    SCOPED_TRACE(build);
    Result<InspectReport> r = InspectBytes(Load(build + ".cubin"), build + ".cubin");
    ASSERT_TRUE(r.ok()) << r.error().message;
    ExpectMatchesPtxas(*r, build + ".ptxas.txt");
    ASSERT_EQ(r->cubins.size(), 1u);
    std::set<std::string> names;
    for (const KernelInfo& k : r->cubins[0].cubin.kernels) names.insert(k.name);
    EXPECT_EQ(names, (std::set<std::string>{"_Z11uses_helperPfi", "_Z5tiledPKfPf"}));
  }
}

// A static kernel of -rdc code is named with a hash of its source's
// absolute folder: the same k.cu built in /tmp/aq9/a and /tmp/aq9/b/c
// (cubins/README.md) is one kernel under one name.
TEST(InspectTest, AStaticKernelOfRelocatableCodeHasOneNameInEveryWorkspace) {
  EXPECT_EQ(StableKernelName("__nv_static_25__ca54f991_4_k_cu__Z3pubPf__Z6stat_kPf"),
            "__nv_static_25__xxxxxxxx_4_k_cu__Z3pubPf__Z6stat_kPf");
  // An anonymous namespace carries the folder's hash too, with -rdc or without.
  EXPECT_EQ(StableKernelName("__nv_static_26__ca54f991_5_an_cu_d589cb60__ZN37_GLOBAL__N__674e38ab_5_an_cu_d589cb606anon_kEPf"),
            "__nv_static_26__xxxxxxxx_5_an_cu_d589cb60__ZN37_GLOBAL__N__xxxxxxxx_5_an_cu_d589cb606anon_kEPf");
  EXPECT_EQ(StableKernelName("_ZN37_GLOBAL__N__7039cd95_5_an_cu_d589cb606anon_kEPf"),
            "_ZN37_GLOBAL__N__xxxxxxxx_5_an_cu_d589cb606anon_kEPf");
  EXPECT_EQ(StableKernelName("_INTERNAL_7039cd95_5_an_cu_d589cb60_helper"), "_INTERNAL_xxxxxxxx_5_an_cu_d589cb60_helper");
  for (const char* other : {"_Z3pubPf", "__nv_static_", "__nv_static_25", "__nv_static_25__ca54f99",
                            "__nv_static_25__ca54g991_4_k_cu__Z3pubPf__Z6stat_kPf", "__nv_static_x",
                            "_ZN12_GLOBAL__N__abc5kEv", "_GLOBAL__N__7039cd9z_x"})
    EXPECT_EQ(StableKernelName(other), other);
  std::set<std::string> names[2];
  std::set<std::string> hashes[2];
  for (int i = 0; i < 2; ++i) {
    const std::string file = i == 0 ? "static_rdc_a.cubin" : "static_rdc_b.cubin";
    Result<InspectReport> r = InspectBytes(Load(file), file);
    ASSERT_TRUE(r.ok()) << r.error().message;
    for (const KernelInfo& k : r->cubins.at(0).cubin.kernels) {
      names[i].insert(k.name);
      hashes[i].insert(k.name + " " + std::to_string(k.sass_hash));
    }
  }
  EXPECT_EQ(names[0], (std::set<std::string>{"_Z3pubPf", "__nv_static_25__xxxxxxxx_4_k_cu__Z3pubPf__Z6stat_kPf"}));
  EXPECT_EQ(names[0], names[1]);
  EXPECT_EQ(hashes[0], hashes[1]);  // the same code, unchanged
}

// sm_90 -G cubins (and the cubins nvlink links for -rdc) carry no
// .nv.shared.reserved.0 section, only the .nv.reservedSmem.offset0 symbol:
// the 1 KiB reserved block is still inside .nv.shared.<k>.
TEST(InspectTest, ReservedSharedMemoryFromTheOffsetSymbolAlone) {
  Result<InspectReport> r = InspectBytes(Load("devfn_sm90_debug.cubin"), "devfn_sm90_debug.cubin");
  ASSERT_TRUE(r.ok()) << r.error().message;
  const KernelInfo* tiled = FindKernel(*r, "_Z5tiledPKfPf", 90);
  ASSERT_NE(tiled, nullptr);
  EXPECT_EQ(tiled->shared_bytes, 1024);  // what ptxas -v prints
  EXPECT_EQ(tiled->shared_reserved, 1024);
  // The relocatable cubin has the symbol too, but its .nv.shared is the
  // user's alone (type 0x7000000a, before nvlink adds the reserved block).
  Result<InspectReport> rdc = InspectBytes(Load("devfn_sm90_rdc.cubin"), "devfn_sm90_rdc.cubin");
  ASSERT_TRUE(rdc.ok()) << rdc.error().message;
  const KernelInfo* relocatable = FindKernel(*rdc, "_Z5tiledPKfPf", 90);
  ASSERT_NE(relocatable, nullptr);
  EXPECT_EQ(relocatable->shared_bytes, 1024);
  EXPECT_EQ(relocatable->shared_reserved, 0);
}

// Cubins before ELF ABI 8 (CUDA 12.7 and older, Triton) keep the SM in the
// low byte of e_flags, and the register count in the high byte of the
// kernel's .text sh_info.
TEST(InspectTest, ArchitectureByElfAbiVersion) {
  EXPECT_EQ(CubinArch(0x6005a04, 8), 90);  // nvcc 13.0
  EXPECT_EQ(CubinArch(0x5a0d5a, 7), 90);
  EXPECT_EQ(CubinArch(0x340534, 7), 52);
  EXPECT_EQ(CubinArch(0x1e051e, 7), 30);
  EXPECT_EQ(CubinArch(0x140115, 4), 21);
}

// heavy_sm90.cubin rewritten the way an older toolchain lays a cubin out.
TEST(InspectTest, AnOlderCubinLayoutIsRead) {
  std::string bytes = Load("heavy_sm90.cubin");
  Result<ElfFile> elf = ParseElf(bytes, "heavy_sm90.cubin");
  ASSERT_TRUE(elf.ok()) << elf.error().message;
  auto put32 = [&](uint64_t at, uint32_t v) { std::memcpy(bytes.data() + at, &v, 4); };
  bytes[7] = 0x33;  // EI_OSABI: CUDA
  bytes[8] = 7;     // EI_ABIVERSION
  put32(48, 0x5a0d5a);
  uint64_t symtab = 0, text_header = 0, info = 0, info_size = 0;
  const uint64_t section_headers = [&] {
    uint64_t v = 0;
    std::memcpy(&v, bytes.data() + 40, 8);
    return v;
  }();
  for (size_t i = 0; i < elf->sections.size(); ++i) {
    const ElfSection& s = elf->sections[i];
    if (s.name == ".symtab") symtab = s.offset;
    if (s.name == ".text._Z5heavyPKfPfi") text_header = section_headers + i * 64;
    if (s.name == ".nv.info") info = s.offset, info_size = s.size;
  }
  ASSERT_NE(symtab, 0u);
  ASSERT_NE(text_header, 0u);
  ASSERT_NE(info, 0u);
  // Symbol 3 (the section symbol of .text._Z5heavyPKfPfi) becomes a weak
  // device function at the front of the kernel's section, as in cubins that
  // carry `$kernel$__cuda_sm20_sqrt_rn_f32_slowpath`.
  bytes[symtab + 3 * 24 + 4] = 0x22;
  // The register count moves from the EIATTR_REGCOUNT record to sh_info.
  for (uint64_t at = info; at + 4 <= info + info_size;) {
    const uint8_t format = static_cast<uint8_t>(bytes[at]), attribute = static_cast<uint8_t>(bytes[at + 1]);
    uint16_t size = 0;
    std::memcpy(&size, bytes.data() + at + 2, 2);
    if (attribute == 0x2f) bytes[at + 1] = 0x7e;  // an attribute nobody reads
    at += format == 0x04 ? 4u + size : 4u;
  }
  put32(text_header + 44, (40u << 24) | 9u);
  Result<InspectReport> r = InspectBytes(bytes, "old.cubin");
  ASSERT_TRUE(r.ok()) << r.error().message;
  const KernelInfo* heavy = FindKernel(*r, "_Z5heavyPKfPfi", 90);
  ASSERT_NE(heavy, nullptr) << RenderInspectTable(*r);
  EXPECT_EQ(heavy->registers, 40);
  const KernelInfo* add = FindKernel(*r, "plain_add", 90);
  ASSERT_NE(add, nullptr);
  EXPECT_FALSE(add->registers.has_value());  // neither a record nor sh_info says
  EXPECT_TRUE(r->notes.empty());
  // An ABI version this reader does not know is decoded, and said to be a guess.
  bytes[8] = 9;
  Result<InspectReport> unknown = InspectBytes(bytes, "v9.cubin");
  ASSERT_TRUE(unknown.ok()) << unknown.error().message;
  ASSERT_EQ(unknown->notes.size(), 1u);
  EXPECT_NE(unknown->notes[0].message.find("ELF OS/ABI 0x33, ABI version 9: a cubin layout this gpugate does not know"),
            std::string::npos)
      << unknown->notes[0].message;
}

TEST(InspectTest, ZstdFatbinTwoArchitectures) {
  Result<InspectReport> r = InspectBytes(Load("small_sm80_sm90_zstd.fatbin"), "f.fatbin");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->format, "fatbin");
  ASSERT_EQ(r->cubins.size(), 2u);
  for (const InspectedCubin& c : r->cubins) EXPECT_EQ(c.compression, FatbinCompression::kZstd) << c.source;
  ExpectMatchesPtxas(*r, "small_sm80_sm90_zstd.ptxas.txt");
  // sm_80 has no reserved block inside .nv.shared.
  const KernelInfo* tiled80 = FindKernel(*r, "_Z5tiledPKfPf", 80);
  ASSERT_NE(tiled80, nullptr);
  EXPECT_EQ(tiled80->shared_reserved, 0);
  EXPECT_EQ(tiled80->shared_bytes, 1536);
  // The same SASS read from the cubin and from the compressed fatbin hashes the same.
  Result<InspectReport> cubin = InspectBytes(Load("small_sm90.cubin"), "c.cubin");
  ASSERT_TRUE(cubin.ok());
  EXPECT_EQ(FindKernel(*cubin, "plain_add", 90)->sass_hash, FindKernel(*r, "plain_add", 90)->sass_hash);
  // The compute_90 PTX entry is reported, not dropped.
  ASSERT_EQ(r->notes.size(), 1u);
  EXPECT_NE(r->notes[0].source.find("compute_90 PTX entry"), std::string::npos);
  EXPECT_NE(r->notes[0].message.find("no SASS"), std::string::npos);
}

TEST(InspectTest, JsonSchemaAndRoundTrip) {
  Result<InspectReport> r = InspectBytes(Load("cluster_sm90.cubin"), "cluster_sm90.cubin");
  ASSERT_TRUE(r.ok());
  const std::string json = InspectToJson(*r);
  Result<JsonValue> v = ParseJson(json, "inspect.json");
  ASSERT_TRUE(v.ok()) << v.error().message;
  EXPECT_NE(json.find("\"schema\": \"gpugate/inspect/v1\""), std::string::npos);
  EXPECT_NE(json.find("\"cluster_dims\": [\n"), std::string::npos);
  EXPECT_NE(json.find("\"sass_hash\": \"0x"), std::string::npos);
}

// A report of one sm_90 cubin in `file` holding a kernel of each name.
InspectReport KernelsReport(const std::string& file, const std::vector<std::string>& names) {
  InspectReport r;
  r.file = file;
  r.format = "cubin";
  InspectedCubin c;
  for (const std::string& name : names) {
    KernelInfo k;
    k.arch = 90;
    k.name = name;
    c.cubin.kernels.push_back(k);
  }
  r.cubins.push_back(c);
  return r;
}

TEST(InspectTest, KernelNamesAreEscapedInTheTable) {
  InspectReport r = KernelsReport("evil\x1b[31m.cubin", {"kern\x1b]8;;http://x\x07name\nnext"});
  r.notes.push_back({"m\x1b[2J", "n\r"});
  const std::string table = RenderInspectTable(r);
  EXPECT_EQ(table.find('\x1b'), std::string::npos);
  EXPECT_EQ(table.find('\x07'), std::string::npos);
  EXPECT_EQ(table.find('\r'), std::string::npos);
  const std::string json = InspectToJson(r);
  EXPECT_EQ(json.find('\x1b'), std::string::npos);
  EXPECT_TRUE(ParseJson(json, "j").ok());
}

// Two long kernel names that differ near their end would print alike.
TEST(InspectTest, LongKernelNamesThatWouldLookAlikeAreToldApart) {
  std::string name = "void kernel<" + std::string(3000, 'x') + ">(float*)";
  std::string other = name;
  other[1500] = 'y';
  const InspectReport r = KernelsReport("k.cubin", {name, other});
  const std::string table = RenderInspectTable(r);
  std::vector<std::string> names;
  for (size_t pos = 0, next; (next = table.find('\n', pos)) != std::string::npos; pos = next + 1) {
    const std::string line = table.substr(pos, next - pos);
    if (line.find("void kernel<") != std::string::npos) names.push_back(line.substr(0, line.find(" sm_90")));
  }
  ASSERT_EQ(names.size(), 2u) << table;
  EXPECT_NE(names[0], names[1]) << table;
  EXPECT_LT(names[0].size(), 120u);
}

// ---- Hostile inputs: each a mutation of a real file and what must be said.

void Put32(std::string* s, size_t at, uint32_t v) { std::memcpy(s->data() + at, &v, 4); }
void Put64(std::string* s, size_t at, uint64_t v) { std::memcpy(s->data() + at, &v, 8); }
uint64_t Get64(const std::string& s, size_t at) {
  uint64_t v;
  std::memcpy(&v, s.data() + at, 8);
  return v;
}

struct HostileCase {
  const char* name;
  const char* file;
  std::function<void(std::string*)> mutate;
  const char* expect;  ///< substring of the error, or of a note when `note`
  bool note = false;
};

// Offsets in small_sm80_sm90_zstd.fatbin: fatbin header at 0, first entry
// (sm_80 SASS) header at 16.
constexpr size_t kEntry = 16;

const HostileCase kHostile[] = {
    {"empty", "small_sm90.cubin", [](std::string* s) { s->clear(); },
     "offset 0x0: not a cubin, fatbin, ELF file or ar archive"},
    {"bad_magic", "small_sm90.cubin", [](std::string* s) { (*s)[1] = 'X'; }, "not a cubin, fatbin"},
    {"truncated_header", "small_sm90.cubin", [](std::string* s) { s->resize(40); }, "ELF header truncated"},
    {"elf32", "small_sm90.cubin", [](std::string* s) { (*s)[4] = 1; }, "not a 64-bit ELF"},
    {
        "truncated_sections",
        "small_sm90.cubin",
        [](std::string* s) { s->resize(Get64(*s, 0x28) + 100); },
        "section header table (",
    },
    {"huge_shoff", "small_sm90.cubin", [](std::string* s) { Put64(s, 0x28, ~uint64_t{0} - 10); }, "beyond end of file"},
    {"huge_section_size", "small_sm90.cubin",
     [](std::string* s) { Put64(s, Get64(*s, 0x28) + 64 * 2 + 32, uint64_t{1} << 62); }, "beyond end of file"},
    {"bad_shstrndx", "small_sm90.cubin", [](std::string* s) { (*s)[0x3e] = 0x7f; }, "section name table index"},
    {"fatbin_truncated", "small_sm80_sm90_zstd.fatbin", [](std::string* s) { s->resize(s->size() / 2); },
     "runs past the end of its section"},
    {"fatbin_header_cut", "small_sm80_sm90_zstd.fatbin", [](std::string* s) { s->resize(8); },
     "fatbin header truncated (8 of 16 bytes)"},
    {"fatbin_no_entries", "small_sm80_sm90_zstd.fatbin", [](std::string* s) { Put64(s, 8, 0); },
     "fatbin header declares no entries, but"},
    {"fatbin_huge_total", "small_sm80_sm90_zstd.fatbin", [](std::string* s) { Put64(s, 8, uint64_t{1} << 60); },
     "runs past the end"},
    {"entry_huge_payload", "small_sm80_sm90_zstd.fatbin", [](std::string* s) { Put64(s, kEntry + 8, ~uint64_t{0}); },
     "beyond the end of its fatbin"},
    {"entry_tiny_header", "small_sm80_sm90_zstd.fatbin", [](std::string* s) { Put32(s, kEntry + 4, 8); },
     "header size 8 outside"},
    {"zstd_bomb", "small_sm80_sm90_zstd.fatbin", [](std::string* s) { Put64(s, kEntry + 56, uint64_t{1} << 40); },
     "sm_80 SASS entry: declared uncompressed size 1099511627776 bytes exceeds", true},
    {"zstd_size_lies", "small_sm80_sm90_zstd.fatbin", [](std::string* s) { Put64(s, kEntry + 56, 1000); },
     "zstd frame holds", true},
    {"zstd_corrupt", "small_sm80_sm90_zstd.fatbin", [](std::string* s) { Put32(s, kEntry + 64, 0x12345678); },
     "corrupt zstd data", true},
    {"lz4", "small_sm80_sm90_zstd.fatbin", [](std::string* s) { Put64(s, kEntry + 40, 0x2011); },
     "sm_80 SASS entry: LZ4-compressed entries are not supported", true},
    {"unknown_compression", "small_sm80_sm90_zstd.fatbin", [](std::string* s) { Put64(s, kEntry + 40, 0xa011); },
     "unknown compression", true},
    {"unknown_kind", "small_sm80_sm90_zstd.fatbin", [](std::string* s) { (*s)[kEntry] = 7; }, "unknown kind 7", true},
};

class HostileTest : public ::testing::TestWithParam<HostileCase> {};

TEST_P(HostileTest, SaysWhatIsWrong) {
  const HostileCase& c = GetParam();
  std::string bytes = Load(c.file);
  c.mutate(&bytes);
  Result<InspectReport> r = InspectBytes(bytes, "bad.bin");
  if (c.note) {
    ASSERT_TRUE(r.ok()) << r.error().message;
    std::string notes;
    for (const InspectNote& n : r->notes) notes += n.source + ": " + n.message + "\n";
    EXPECT_NE(notes.find(c.expect), std::string::npos) << notes;
  } else {
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, ExitCode::kInputError);
    EXPECT_EQ(r.error().message.rfind("bad.bin: offset 0x", 0), 0u) << r.error().message;
    EXPECT_NE(r.error().message.find(c.expect), std::string::npos) << r.error().message;
  }
}

INSTANTIATE_TEST_SUITE_P(Inputs, HostileTest, ::testing::ValuesIn(kHostile),
                         [](const ::testing::TestParamInfo<HostileCase>& i) { return std::string(i.param.name); });

// Every prefix of a real file is either read or refused; never a crash.
TEST(InspectTest, EveryTruncationIsHandled) {
  for (const char* file : {"small_sm90.cubin", "small_sm80_sm90_zstd.fatbin"}) {
    const std::string bytes = Load(file);
    for (size_t n = 0; n < bytes.size(); n += 7) {
      Result<InspectReport> r = InspectBytes(std::string_view(bytes).substr(0, n), "cut.bin");
      if (!r.ok()) {
        EXPECT_EQ(r.error().code, ExitCode::kInputError);
      }
      // A fatbin has no part that may be lost: every cut is refused.
      if (std::string(file).ends_with(".fatbin")) {
        EXPECT_FALSE(r.ok()) << file << " cut to " << n << " bytes was read";
      }
    }
  }
}

// An ar header of `name` and `size` bytes (ar's fixed-width text fields).
std::string ArHeader(const std::string& name, size_t size) {
  char h[61];
  std::snprintf(h, sizeof h, "%-16s%-12s%-6s%-6s%-8s%-10zu`\n", name.c_str(), "0", "0", "0", "644", size);
  return std::string(h, 60);
}

// Two k.cu files of one library, in two folders, with one first external
// symbol: masking the folder hash would make their static kernels one name.
// The report keeps such names as nvcc wrote them (result names are another
// matter: tests/static/kernel_names_test.cc).
TEST(InspectTest, FolderHashesStayWhereMaskingThemWouldJoinTwoKernels) {
  std::string archive = "!<arch>\n";
  for (const char* file : {"static_rdc_a.cubin", "static_rdc_b.cubin"}) {
    const std::string body = Load(file);
    archive += ArHeader(std::string(file).substr(11, 1) + ".cubin/", body.size()) + body;
    if (body.size() % 2) archive += "\n";
  }
  Result<InspectReport> r = InspectBytes(archive, "libk.a");
  ASSERT_TRUE(r.ok()) << r.error().message;
  std::multiset<std::string> names;
  for (const InspectedCubin& c : r->cubins)
    for (const KernelInfo& k : c.cubin.kernels) names.insert(k.name);
  EXPECT_EQ(names, (std::multiset<std::string>{"_Z3pubPf", "_Z3pubPf",
                                               "__nv_static_25__79bcd11f_4_k_cu__Z3pubPf__Z6stat_kPf",
                                               "__nv_static_25__ca54f991_4_k_cu__Z3pubPf__Z6stat_kPf"}));
  // A user's name that merely contains the markers is no folder hash.
  EXPECT_EQ(StableKernelName("_Z24conv_INTERNAL_20240101_vPf"), "_Z24conv_INTERNAL_20240101_vPf");
  EXPECT_EQ(StableKernelName("conv_INTERNAL_2024abcd_5_x"), "conv_INTERNAL_2024abcd_5_x");
}

// A BSD name length that takes the whole member made its body the name: a
// note line of kilobytes of escaped binary.
TEST(InspectTest, AnArMemberNameLongerThanAPathIsDamage) {
  const std::string body(5000, 'x');
  Result<std::vector<ArMember>> long_name = ParseArArchive("!<arch>\n" + ArHeader("#1/5000", 5000) + body, "l.a");
  ASSERT_FALSE(long_name.ok());
  EXPECT_NE(long_name.error().message.find("ar member name of 5000 bytes, longer than a file name can be"),
            std::string::npos)
      << long_name.error().message;
  // Members view the archive: it must outlive them.
  const std::string archive = "!<arch>\n" + ArHeader("#1/8", 12) + std::string("k.cubin\0abcd", 12);
  Result<std::vector<ArMember>> fine = ParseArArchive(archive, "f.a");
  ASSERT_TRUE(fine.ok()) << fine.error().message;
  ASSERT_EQ(fine->size(), 1u);
  EXPECT_EQ((*fine)[0].bytes, "abcd");
  EXPECT_EQ((*fine)[0].name, "k.cubin");  // without the BSD name's NUL padding
}

// BSD and Darwin archives (llvm-ar --format=darwin) name their symbol table
// "__.SYMDEF" padded with NULs after a "#1/N" header: it is no member.
TEST(InspectTest, BsdSymbolTableIsNoMemberAndNamesLoseTheirPadding) {
  const std::string symdef("__.SYMDEF\0\0\0", 12), named("k.o\0", 4);
  const std::string archive = "!<arch>\n" + ArHeader("#1/12", 12 + 8) + symdef + std::string(8, '\0') +
                              ArHeader("#1/4", 4 + 4) + named + "junk" + ArHeader("__.SYMDEF SORTED", 4) + "abcd";
  Result<std::vector<ArMember>> members = ParseArArchive(archive, "libk.a");
  ASSERT_TRUE(members.ok()) << members.error().message;
  ASSERT_EQ(members->size(), 1u);
  EXPECT_EQ((*members)[0].name, "k.o");
  EXPECT_EQ((*members)[0].bytes, "junk");
  Result<InspectReport> r = InspectBytes(archive, "libk.a");
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->notes.size(), 1u);
  EXPECT_EQ(r->notes[0].source, "libk.a(k.o)");
}

// A fatbin of `entries` sm_90 SASS entries, each a zstd frame of `each`
// zero bytes (a few bytes compressed: a "zstd bomb" in small).
std::string ZstdFatbin(int entries, size_t each) {
  const std::string zeros(each, '\0');
  std::string frame(ZSTD_compressBound(each), '\0');
  frame.resize(ZSTD_compress(frame.data(), frame.size(), zeros.data(), zeros.size(), 1));
  const size_t padded = (frame.size() + 7) / 8 * 8;
  std::string body;
  for (int i = 0; i < entries; ++i) {
    std::string h(64, '\0');
    const uint16_t kind = 2, version = 0x101;
    std::memcpy(h.data(), &kind, 2);
    std::memcpy(h.data() + 2, &version, 2);
    Put32(&h, 4, 64);                      // header size
    Put64(&h, 8, padded);                  // payload size
    Put32(&h, 16, static_cast<uint32_t>(frame.size()));  // compressed size
    Put32(&h, 28, 90);                     // arch
    Put64(&h, 40, 0x8011);                 // 64-bit, Linux, zstd
    Put64(&h, 56, each);                   // uncompressed size
    body += h + frame + std::string(padded - frame.size(), '\0');
  }
  std::string header(16, '\0');
  Put32(&header, 0, kFatbinMagic);
  const uint16_t one = 1, sixteen = 16;
  std::memcpy(header.data() + 4, &one, 2);
  std::memcpy(header.data() + 6, &sixteen, 2);
  Put64(&header, 8, body.size());
  return header + body;
}

// Entries are decompressed one at a time, each released before the next,
// and all of a file's entries together only up to a total.
TEST(InspectTest, ZstdEntriesAreDecompressedOneAtATimeWithinATotal) {
  constexpr size_t kMiB = 1 << 20;
  const std::string fatbin = ZstdFatbin(4, kMiB);
  FatbinLimits limits;
  limits.max_decompressed = kMiB;
  limits.max_total_decompressed = 2 * kMiB + kMiB / 2;
  uint64_t decompressed = 0;
  std::vector<std::pair<size_t, std::string>> seen;  // payload size, problem
  Status st = ForEachFatbinEntry(fatbin, 0, "bomb.fatbin", limits, &decompressed, [&](const FatbinEntry& e) {
    seen.emplace_back(e.payload.size(), e.problem);
    return Status::Ok();
  });
  ASSERT_TRUE(st.ok()) << st.error().message;
  ASSERT_EQ(seen.size(), 4u);
  EXPECT_EQ(seen[0], (std::pair<size_t, std::string>{kMiB, ""}));
  EXPECT_EQ(seen[1], (std::pair<size_t, std::string>{kMiB, ""}));
  for (size_t i = 2; i < 4; ++i) {
    EXPECT_EQ(seen[i].first, 0u);
    EXPECT_NE(seen[i].second.find("not decompressed: its 1048576 bytes would take the file's decompressed entries "
                                  "past the 2621440-byte limit (2097152 bytes so far)"),
              std::string::npos)
        << seen[i].second;
  }
  EXPECT_EQ(decompressed, 2 * kMiB);

  // The visitor sees each entry before the next is decompressed.
  decompressed = 0;
  st = ForEachFatbinEntry(fatbin, 0, "bomb.fatbin", limits, &decompressed,
                          [](const FatbinEntry&) { return Status(InputError("stop")); });
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(decompressed, kMiB);

  // The total is the input file's, across its fatbins: two of the four
  // payloads are read (not cubins), two are over the limit; all are notes.
  Result<InspectReport> r = InspectBytes(fatbin, "bomb.fatbin", limits);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->notes.size(), 4u);
  EXPECT_NE(r->notes[1].message.find("payload is not a cubin"), std::string::npos) << r->notes[1].message;
  EXPECT_NE(r->notes[2].message.find("limit"), std::string::npos) << r->notes[2].message;
  // Every SASS entry not read counts: two over the limit, two whose payload
  // is no cubin.
  EXPECT_EQ(r->sass_not_inspected, 4);
  // A file large for the code it holds gets a total in proportion to its
  // size: here enough for all four.
  FatbinLimits scaled = limits;
  scaled.total_per_input_byte = 4 * kMiB / fatbin.size() + 1;
  Result<InspectReport> whole = InspectBytes(fatbin, "bomb.fatbin", scaled);
  ASSERT_TRUE(whole.ok()) << whole.error().message;
  EXPECT_EQ(whole->sass_not_inspected, 4);  // all four decompressed, none a cubin
  for (const InspectNote& n : whole->notes) EXPECT_EQ(n.message.find("limit"), std::string::npos) << n.message;
}

// A fatbin of one uncompressed sm_90 SASS entry holding `cubin`; `flags`
// 0x11 is 64-bit Linux, 0x100000 more an arch-specific target (sm_90a).
std::string SassFatbin(const std::string& cubin, uint64_t flags = 0x11) {
  const size_t padded = (cubin.size() + 7) / 8 * 8;
  std::string entry(64, '\0');
  const uint16_t kind = 2, version = 0x101;
  std::memcpy(entry.data(), &kind, 2);
  std::memcpy(entry.data() + 2, &version, 2);
  Put32(&entry, 4, 64);
  Put64(&entry, 8, padded);
  Put32(&entry, 28, 90);
  Put64(&entry, 40, flags);
  entry += cubin + std::string(padded - cubin.size(), '\0');
  std::string header(16, '\0');
  Put32(&header, 0, kFatbinMagic);
  const uint16_t one = 1, sixteen = 16;
  std::memcpy(header.data() + 4, &one, 2);
  std::memcpy(header.data() + 6, &sixteen, 2);
  Put64(&header, 8, entry.size());
  return header + entry;
}

// A minimal x86-64 ELF of type `type` (1 object, 2 executable, 3 shared)
// whose PROGBITS sections are `sections` (name, bytes), then .shstrtab.
std::string HostElf(uint16_t type, const std::vector<std::pair<std::string, std::string>>& sections) {
  std::string names(1, '\0'), body;
  std::vector<std::array<uint64_t, 4>> headers = {{0, 0, 0, 0}};  // name, type, offset, size
  auto add = [&](const std::string& name, uint32_t section_type, const std::string& bytes) {
    while (body.size() % 8) body += '\0';
    headers.push_back({names.size(), section_type, 64 + body.size(), bytes.size()});
    names += name + '\0';
    body += bytes;
  };
  for (const auto& [name, bytes] : sections) add(name, 1, bytes);
  const std::string shstrtab = ".shstrtab";
  std::string all_names = names + shstrtab + '\0';
  add(shstrtab, 3, all_names);
  while (body.size() % 8) body += '\0';
  std::string elf(64, '\0');
  elf.replace(0, 4, "\x7f" "ELF");
  elf[4] = 2;  // ELF64
  elf[5] = 1;  // little-endian
  elf[6] = 1;
  const uint16_t machine = 62, size64 = 64;
  std::memcpy(elf.data() + 16, &type, 2);
  std::memcpy(elf.data() + 18, &machine, 2);
  Put64(&elf, 0x28, 64 + body.size());
  std::memcpy(elf.data() + 0x34, &size64, 2);
  std::memcpy(elf.data() + 0x3a, &size64, 2);
  const uint16_t count = static_cast<uint16_t>(headers.size()), names_index = count - 1;
  std::memcpy(elf.data() + 0x3c, &count, 2);
  std::memcpy(elf.data() + 0x3e, &names_index, 2);
  elf += body;
  for (const auto& h : headers) {
    std::string sh(64, '\0');
    Put32(&sh, 0, static_cast<uint32_t>(h[0]));
    Put32(&sh, 4, static_cast<uint32_t>(h[1]));
    Put64(&sh, 24, h[2]);
    Put64(&sh, 32, h[3]);
    elf += sh;
  }
  return elf;
}

// An executable or shared library linked from -rdc objects holds the linked
// image in .nv_fatbin and the objects' unlinked copies in __nv_relfatbin:
// only the image is read. An object's __nv_relfatbin is its device code.
TEST(InspectTest, ALinkedBinaryIsReadFromItsLinkedImageAlone) {
  const std::string image = SassFatbin(Load("small_sm90.cubin"));
  const std::string copies = SassFatbin(Load("heavy_sm90.cubin"));
  for (uint16_t type : {uint16_t{2}, uint16_t{3}}) {
    const std::string elf = HostElf(type, {{".nv_fatbin", image}, {"__nv_relfatbin", copies}});
    Result<InspectReport> r = InspectBytes(elf, "app");
    ASSERT_TRUE(r.ok()) << r.error().message;
    ASSERT_EQ(r->cubins.size(), 1u) << RenderInspectTable(*r);
    EXPECT_NE(r->cubins[0].source.find("app: .nv_fatbin: sm_90 SASS entry"), std::string::npos);
    EXPECT_EQ(FindKernel(*r, "_Z5heavyPKfPfi", 90), nullptr);
    ASSERT_EQ(r->notes.size(), 1u);
    EXPECT_EQ(r->notes[0].source, "app: __nv_relfatbin");
    EXPECT_NE(r->notes[0].message.find("unlinked copies"), std::string::npos) << r->notes[0].message;
  }
  // A relocatable object: its __nv_relfatbin is all there is, and is read.
  Result<InspectReport> object = InspectBytes(HostElf(1, {{"__nv_relfatbin", copies}}), "k.o");
  ASSERT_TRUE(object.ok()) << object.error().message;
  EXPECT_NE(FindKernel(*object, "_Z5heavyPKfPfi", 90), nullptr);
  // A linked binary without a .nv_fatbin keeps its only device code.
  Result<InspectReport> only = InspectBytes(HostElf(3, {{"__nv_relfatbin", copies}}), "lib.so");
  ASSERT_TRUE(only.ok()) << only.error().message;
  EXPECT_NE(FindKernel(*only, "_Z5heavyPKfPfi", 90), nullptr);
}

// An object of 0xff00 sections or more (-ffunction-sections) has e_shnum 0
// and e_shstrndx SHN_XINDEX: section 0 holds the count and the name table's
// index. Its device code is read like any other object's.
TEST(InspectTest, ExtendedSectionNumberingIsRead) {
  std::string elf = HostElf(1, {{".text", "code"}, {".nv_fatbin", SassFatbin(Load("small_sm90.cubin"))}});
  uint16_t count = 0, names = 0;
  std::memcpy(&count, elf.data() + 0x3c, 2);
  std::memcpy(&names, elf.data() + 0x3e, 2);
  const uint64_t section0 = Get64(elf, 0x28);
  Put64(&elf, section0 + 32, count);  // sh_size: the section count
  Put32(&elf, section0 + 40, names);  // sh_link: the name table's index
  std::memset(elf.data() + 0x3c, 0, 2);
  std::memset(elf.data() + 0x3e, 0xff, 2);
  Result<InspectReport> r = InspectBytes(elf, "big.o");
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->cubins.size(), 1u) << RenderInspectTable(*r);
  EXPECT_NE(FindKernel(*r, "plain_add", 90), nullptr);
  // A count beyond the file is damage, said.
  Put64(&elf, section0 + 32, uint64_t{1} << 40);
  Result<InspectReport> bad = InspectBytes(elf, "big.o");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, ExitCode::kInputError);
  EXPECT_NE(bad.error().message.find("big.o: offset"), std::string::npos) << bad.error().message;
  EXPECT_NE(bad.error().message.find("beyond end of file"), std::string::npos) << bad.error().message;
  // A name table index out of range is said at section 0's sh_link, where it
  // was read, not at e_shstrndx.
  Put64(&elf, section0 + 32, count);
  Put32(&elf, section0 + 40, 60000);
  Result<InspectReport> link = InspectBytes(elf, "big.o");
  ASSERT_FALSE(link.ok());
  EXPECT_EQ(link.error().code, ExitCode::kInputError);
  std::ostringstream at;
  at << "big.o: offset 0x" << std::hex << section0 + 40 << ":";
  EXPECT_NE(link.error().message.find(at.str()), std::string::npos) << link.error().message;
  EXPECT_NE(link.error().message.find("section name table index 60000 out of range"), std::string::npos)
      << link.error().message;
}

// Section headers are not trusted to describe bytes once: device code that
// two sections claim is damage (not read twice, or 8000 times), and a
// kernel's code is its own and in the file.
TEST(InspectTest, DeviceCodeThatTwoSectionsClaimIsDamage) {
  const std::string fatbin = SassFatbin(Load("small_sm90.cubin"));
  std::string elf = HostElf(1, {{".nv_fatbin", fatbin}, {".nv_fatbin", fatbin}});
  ASSERT_TRUE(InspectBytes(elf, "twice.o").ok());  // two copies: read, each once
  const uint64_t shoff = Get64(elf, 0x28);
  Put64(&elf, shoff + 2 * 64 + 24, Get64(elf, shoff + 1 * 64 + 24));  // the second over the first
  Result<InspectReport> r = InspectBytes(elf, "twice.o");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ExitCode::kInputError);
  EXPECT_NE(r.error().message.find("a device-code section over bytes another holds"), std::string::npos)
      << r.error().message;

  const std::string cubin = Load("heavy_sm90.cubin");
  Result<ElfFile> parsed = ParseElf(cubin, "heavy_sm90.cubin");
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  const uint64_t cubin_shoff = Get64(cubin, 0x28);
  std::vector<size_t> infos;
  size_t heavy_text = 0;
  for (size_t i = 0; i < parsed->sections.size(); ++i) {
    if (parsed->sections[i].name.rfind(".nv.info.", 0) == 0) infos.push_back(i);
    if (parsed->sections[i].name == ".text._Z5heavyPKfPfi") heavy_text = i;
  }
  ASSERT_GE(infos.size(), 2u);
  ASSERT_NE(heavy_text, 0u);
  // Two kernels' attributes naming one code section.
  std::string shared = cubin;
  for (size_t i : infos) Put32(&shared, cubin_shoff + i * 64 + 44, static_cast<uint32_t>(heavy_text));
  Result<CubinInfo> one = ReadCubin(shared, "k.cubin");
  ASSERT_FALSE(one.ok());
  EXPECT_NE(one.error().message.find("which another kernel's attributes already name"), std::string::npos)
      << one.error().message;
  // A kernel's code section without bytes in the file (NOBITS, any size).
  std::string nobits = cubin;
  Put32(&nobits, cubin_shoff + heavy_text * 64 + 4, 8);
  Put64(&nobits, cubin_shoff + heavy_text * 64 + 32, ~uint64_t{0});
  Result<CubinInfo> empty = ReadCubin(nobits, "k.cubin");
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.error().message.find("which has no bytes in the file"), std::string::npos)
      << empty.error().message;
}

// sm_90a (and sm_100f) SASS is a target of its own: its cubin's e_flags
// are sm_90's, the fatbin entry's flags tell them apart. Both builds of a
// kernel are told apart, not numbered as one kernel found twice.
TEST(InspectTest, ArchSpecificTargetsKeepTheirName) {
  const std::string cubin = Load("small_sm90.cubin");
  const std::string fatbin = SassFatbin(cubin) + SassFatbin(cubin, 0x100011) + SassFatbin(cubin, 0x1200011);
  Result<InspectReport> r = InspectBytes(fatbin, "k.fatbin");
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->cubins.size(), 3u);
  EXPECT_NE(r->cubins[1].source.find("sm_90a SASS entry"), std::string::npos) << r->cubins[1].source;
  EXPECT_EQ(ArchText(r->cubins[0].cubin.kernels[0]), "sm_90");
  EXPECT_EQ(ArchText(r->cubins[1].cubin.kernels[0]), "sm_90a");
  EXPECT_EQ(ArchText(r->cubins[2].cubin.kernels[0]), "sm_90f");
  EXPECT_EQ(r->cubins[1].cubin.kernels[0].arch, 90);  // occupancy and logs use the number
  EXPECT_NE(InspectToJson(*r).find("\"sm_90a\""), std::string::npos);
  WorkloadSpec spec;
  spec.name = "kernels";
  spec.kind = WorkloadKind::kStatic;
  const WorkloadResult w = StaticWorkloadResult(spec, *r);
  std::set<std::string> names;
  for (const KernelResult& k : w.kernels) {
    EXPECT_EQ(k.name.find('#'), std::string::npos) << k.name;
    names.insert(k.name);
  }
  EXPECT_TRUE(names.count("plain_add@sm_90a")) << w.kernels.size();
  EXPECT_EQ(names.size(), 9u);
}

// ---- The command line.

TEST(InspectCliTest, TableAndJsonFile) {
  const std::string dir = testing::MakeTempDir();
  auto o = testing::RunGpugate({"inspect", kData + "small_sm90.cubin", "--json", dir + "/out.json"});
  EXPECT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("(cubin): 3 kernels in 1 cubin"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("_Z5tiledPKfPf"), std::string::npos);
  const std::string json = testing::ReadAll(dir + "/out.json");
  EXPECT_NE(json.find("gpugate/inspect/v1"), std::string::npos);
  testing::RemoveTree(dir);
}

TEST(InspectCliTest, JsonToStdoutAlone) {
  auto o = testing::RunGpugate({"inspect", kData + "cluster_sm90.cubin", "--json", "-"});
  EXPECT_EQ(o.exit_code, 0) << o.err;
  EXPECT_TRUE(ParseJson(o.out, "stdout").ok()) << o.out;
}

TEST(InspectCliTest, BadInputExitsTwo) {
  const std::string dir = testing::MakeTempDir();
  testing::WriteAll(dir + "/bad.cubin", std::string("\x7f"
                                                    "ELF\x02\x01\x01",
                                                    7) +
                                            std::string(20, '\0'));
  auto o = testing::RunGpugate({"inspect", dir + "/bad.cubin"});
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("gpugate: error: " + dir + "/bad.cubin: offset 0x"), std::string::npos) << o.err;
  auto missing = testing::RunGpugate({"inspect", dir + "/missing.cubin"});
  EXPECT_EQ(missing.exit_code, 2) << missing.err;
  testing::RemoveTree(dir);
}

// --json is checked before any work: never the file or the log it reads
// (that would replace the cubin or the build log), nor a folder, a missing
// folder or an empty name (exit 2, nothing printed, inputs intact).
TEST(InspectCliTest, JsonIsCheckedAgainstItsInputsBeforeAnyWork) {
  const std::string dir = testing::MakeTempDir();
  const std::string cubin = dir + "/k.cubin", log = dir + "/k.log";
  testing::WriteAll(cubin, Load("heavy_sm90_spill.cubin"));
  testing::WriteAll(log, Load("heavy_sm90_spill.ptxas.txt"));
  const std::string cubin_bytes = testing::ReadAll(cubin), log_bytes = testing::ReadAll(log);
  auto self = testing::RunGpugate({"inspect", cubin, "--json", cubin});
  EXPECT_EQ(self.exit_code, 2);
  EXPECT_NE(self.err.find("gpugate: error: --json " + cubin + ": that is the input " + cubin), std::string::npos)
      << self.err;
  EXPECT_EQ(self.out, "");
  auto into_log = testing::RunGpugate({"inspect", cubin, "--ptxas-log", log, "--json", dir + "/./k.log"});
  EXPECT_EQ(into_log.exit_code, 2);
  EXPECT_NE(into_log.err.find("that is the input " + log), std::string::npos) << into_log.err;
  EXPECT_EQ(testing::ReadAll(cubin), cubin_bytes);
  EXPECT_EQ(testing::ReadAll(log), log_bytes);
  for (const std::string& bad : {dir, dir + "/no/such/x.json", std::string()}) {
    auto o = testing::RunGpugate({"inspect", cubin, "--json", bad});
    EXPECT_EQ(o.exit_code, 2) << bad << ": " << o.err;
    EXPECT_EQ(o.out, "") << bad;  // no table first
  }
  auto fine = testing::RunGpugate({"inspect", cubin, "--ptxas-log", log, "--json", dir + "/k.json"});
  EXPECT_EQ(fine.exit_code, 0) << fine.err;
  testing::RemoveTree(dir);
}

TEST(InspectCliTest, HelpIsListed) {
  auto top = testing::RunGpugate({"--help"});
  EXPECT_NE(top.out.find("inspect"), std::string::npos);
  auto h = testing::RunGpugate({"inspect", "--help"});
  EXPECT_EQ(h.exit_code, 0);
  EXPECT_NE(h.out.find("--json"), std::string::npos);
}

// An arch without known occupancy limits (sm_88): the table keeps the
// occupancy column with "-" and says why under it, not only in the JSON
// (probe DE4).
TEST(InspectTest, AKernelWithoutOccupancySaysWhyInTheTable) {
  auto r = InspectFile(kData + "kinds_sm88.cubin");
  ASSERT_TRUE(r.ok()) << r.error().message;
  AddOccupancy(&*r);
  const std::string table = RenderInspectTable(*r);
  EXPECT_NE(table.find("occupancy"), std::string::npos) << table;
  EXPECT_NE(table.find("note: occupancy: unknown architecture sm_88"), std::string::npos) << table;
}

}  // namespace
}  // namespace gpugate
