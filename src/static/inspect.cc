// Inspect recipe (see inspect.h): recognise the container, collect the
// cubins (directly, from fatbin entries, from ELF sections, from archive
// members), read each one's kernels.
#include "static/inspect.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "static/ar_archive.h"
#include "static/elf.h"
#include "util/fs.h"

namespace gpugate {

namespace {

constexpr const char* kLinkedFatbinSection = ".nv_fatbin";
constexpr const char* kRelocatableFatbinSection = "__nv_relfatbin";
constexpr const char* kFatbinSections[] = {kLinkedFatbinSection, kRelocatableFatbinSection};
constexpr uint16_t kElfTypeExecutable = 2;  // ET_EXEC
constexpr uint16_t kElfTypeShared = 3;      // ET_DYN (shared libraries, PIE executables)

class Inspector {
 public:
  Inspector(const std::string& name, const FatbinLimits& limits) : name_(name), limits_(limits) { report_.file = name; }

  Result<InspectReport> Run(std::string_view bytes) {
    // The total is bounded for a file of a few kilobytes that decompresses to
    // gigabytes; a large library holds that much code for real.
    const uint64_t scaled = static_cast<uint64_t>(bytes.size()) * limits_.total_per_input_byte;
    if (limits_.total_per_input_byte > 0 && scaled / limits_.total_per_input_byte == bytes.size())
      limits_.max_total_decompressed = std::max(limits_.max_total_decompressed, scaled);
    Status st = Dispatch(bytes, name_, /*top=*/true);
    if (!st.ok()) return st.error();
    StabilizeNames();
    return std::move(report_);
  }

 private:
  Status Dispatch(std::string_view bytes, const std::string& where, bool top) {
    if (IsCubin(bytes)) {
      if (top) report_.format = "cubin";
      return AddCubin(bytes, where, FatbinCompression::kNone);
    }
    if (IsFatbin(bytes)) {
      if (top) report_.format = "fatbin";
      return AddFatbins(bytes, 0, where);
    }
    if (IsElf(bytes)) {
      if (top) report_.format = "elf";
      return AddHostElf(bytes, where);
    }
    if (top && IsArArchive(bytes)) {
      report_.format = "archive";
      return AddArchive(bytes);
    }
    if (top) return BinaryError(name_, 0, "not a cubin, fatbin, ELF file or ar archive");
    report_.notes.push_back({where, "not an ELF object: no device code read"});
    return Status::Ok();
  }

  Status AddCubin(std::string_view bytes, const std::string& where, FatbinCompression compression,
                  char arch_variant = 0) {
    Result<CubinInfo> cubin = ReadCubin(bytes, where);
    if (!cubin.ok()) return cubin.error();
    // The target variant is the fatbin entry's to say (sm_90a and sm_90
    // cubins have the same e_flags), else the cubin's tool note's.
    if (arch_variant != 0) cubin->arch_variant = arch_variant;
    for (KernelInfo& k : cubin->kernels) k.arch_variant = cubin->arch_variant;
    if (!cubin->layout_note.empty()) report_.notes.push_back({where, cubin->layout_note});
    report_.cubins.push_back({where, member_, compression, std::move(*cubin), {}});
    return Status::Ok();
  }

  // Kernel names without the folder hashes nvcc puts in them
  // (StableKernelName), where that leaves each name one kernel's: two static
  // kernels of two k.cu files in two folders, whose first external symbols
  // also agree, keep their names as they are rather than become one (a
  // ptxas log's record then goes to the right one). Result names mask them
  // all and tell such kernels apart otherwise (kernel_names.h).
  void StabilizeNames() {
    std::map<std::string, std::set<std::string>> raw_of;
    for (const InspectedCubin& c : report_.cubins)
      for (const KernelInfo& k : c.cubin.kernels) raw_of[StableKernelName(k.name)].insert(k.name);
    for (InspectedCubin& c : report_.cubins)
      for (KernelInfo& k : c.cubin.kernels)
        if (std::string stable = StableKernelName(k.name); raw_of[stable].size() == 1) k.name = std::move(stable);
  }

  // One entry at a time: each decompressed payload is read and released
  // before the next is decompressed.
  Status AddFatbins(std::string_view bytes, uint64_t base, const std::string& where) {
    return ForEachFatbinEntry(bytes, base, where, limits_, &decompressed_, [&](const FatbinEntry& e) -> Status {
      const std::string source = where + ": " + e.Label() + " at " + HexText(e.offset);
      if (!e.problem.empty()) {
        report_.notes.push_back({source, e.problem});
        report_.sass_not_inspected += e.IsElf();
      } else if (e.IsPtx()) {
        report_.notes.push_back({source, "PTX only (JIT-compiled by the driver): no SASS to inspect"});
      } else if (!IsCubin(e.payload)) {
        report_.notes.push_back({source, "payload is not a cubin (ELF with EM_CUDA): not inspected"});
        report_.sass_not_inspected += e.IsElf();
      } else {
        return AddCubin(e.payload, source, e.compression, e.arch_variant);
      }
      return Status::Ok();
    });
  }

  Status AddHostElf(std::string_view bytes, const std::string& where) {
    Result<ElfFile> elf = ParseElf(bytes, where);
    if (!elf.ok()) return elf.error();
    // An executable or shared library linked from -rdc objects keeps their
    // unlinked device code in __nv_relfatbin beside the image nvlink linked
    // into .nv_fatbin: only the linked image is what runs.
    const ElfSection* linked_image = elf->Find(kLinkedFatbinSection);
    const bool linked = (elf->type == kElfTypeExecutable || elf->type == kElfTypeShared) && linked_image != nullptr &&
                        HasFileBytes(linked_image->type);
    bool found = false;
    // A device-code section over bytes another one holds is damage (a
    // linker writes each once), not more device code to read again: the
    // sections' ranges, sorted, must not overlap.
    auto device_code = [](const ElfSection& s) {
      bool fatbin_section = false;
      for (const char* n : kFatbinSections) fatbin_section = fatbin_section || s.name == n;
      return fatbin_section && HasFileBytes(s.type);
    };
    std::vector<std::pair<uint64_t, uint64_t>> ranges;
    for (const ElfSection& s : elf->sections)
      if (device_code(s) && s.size > 0) ranges.emplace_back(s.offset, s.offset + s.size);
    std::sort(ranges.begin(), ranges.end());
    for (size_t i = 1; i < ranges.size(); ++i)
      if (ranges[i].first < ranges[i - 1].second)
        return BinaryError(where, ranges[i].first,
                           "a device-code section over bytes another holds (" + HexText(ranges[i - 1].first) +
                               " to " + HexText(ranges[i - 1].second) + ")");
    for (const ElfSection& s : elf->sections) {
      if (!device_code(s)) continue;
      found = true;
      const std::string section = where + ": " + std::string(s.name);
      if (linked && s.name == kRelocatableFatbinSection) {
        report_.notes.push_back({section, "the unlinked copies of -rdc device code, linked into " +
                                              std::string(kLinkedFatbinSection) + ": not read"});
        continue;
      }
      if (Status st = AddFatbins(elf->Bytes(s), s.offset, section); !st.ok()) return st;
    }
    if (!found) report_.notes.push_back({where, "no .nv_fatbin or __nv_relfatbin section: no device code"});
    return Status::Ok();
  }

  Status AddArchive(std::string_view bytes) {
    Result<std::vector<ArMember>> members = ParseArArchive(bytes, name_);
    if (!members.ok()) return members.error();
    for (const ArMember& m : *members) {
      // Offsets in messages about a member are relative to the member.
      const std::string where = name_ + "(" + m.name + ")";
      member_ = m.name;
      Status st = Dispatch(m.bytes, where, /*top=*/false);
      member_.clear();
      if (!st.ok()) return st;
    }
    return Status::Ok();
  }

  std::string name_;
  FatbinLimits limits_;
  uint64_t decompressed_ = 0;  ///< bytes this file's fatbin entries decompressed to
  std::string member_;         ///< the archive member being read, if any
  InspectReport report_;
};

}  // namespace

int64_t BlockThreads(const std::optional<std::array<int64_t, 3>>& dims) {
  if (!dims) return 0;
  int64_t n = 1;
  for (int64_t d : *dims) {
    const int64_t x = std::max<int64_t>(1, d);
    if (x > (int64_t{1} << 20)) return -1;  // no real block or cluster; and no overflow
    n *= x;
  }
  return n;
}

Result<InspectReport> InspectBytes(std::string_view bytes, const std::string& name, const FatbinLimits& limits) {
  return Inspector(name, limits).Run(bytes);
}

void AddOccupancy(InspectReport* report) {
  for (InspectedCubin& c : report->cubins) {
    c.extras.resize(c.cubin.kernels.size());
    for (size_t i = 0; i < c.cubin.kernels.size(); ++i) {
      const KernelInfo& k = c.cubin.kernels[i];
      KernelExtras& x = c.extras[i];
      if (!k.registers) {
        x.occupancy_note = "no register count in the cubin";
        continue;
      }
      KernelResources res;
      res.registers = *k.registers;
      res.static_shared = k.shared_bytes;
      res.barriers = k.barriers;
      if (const int64_t t = BlockThreads(k.max_threads); t > 0 && t <= 1024)
        res.max_threads_per_block = static_cast<int>(t);
      if (const int64_t t = BlockThreads(k.req_threads); t > 0 && t <= 1024)
        res.required_threads_per_block = static_cast<int>(t);
      if (const int64_t n = BlockThreads(k.cluster_dims); n > 1 && n <= 64) res.cluster_size = static_cast<int>(n);
      Result<Occupancy> occ = BestOccupancy(k.arch, res);
      if (occ.ok())
        x.occupancy = std::move(occ).value();
      else
        x.occupancy_note = occ.error().message;
    }
  }
}

Status AddPtxasLog(InspectReport* report, const std::vector<PtxasKernel>& log, const std::string& log_name) {
  for (InspectedCubin& c : report->cubins) c.extras.resize(c.cubin.kernels.size());
  size_t kernels = 0, entries = 0;
  for (const InspectedCubin& c : report->cubins) kernels += c.cubin.kernels.size();
  for (const PtxasKernel& p : log) entries += p.entry;
  // A log with no record (empty, binary, UTF-16 from a shell redirect) would
  // leave every spill unknown and the gate on spills silently off.
  if (entries == 0 && kernels > 0)
    return InputError(log_name + ": no ptxas resource lines ('ptxas info : Used N registers ...') in it; give the "
                                 "-Xptxas -v (or --resource-usage) output of this build, as UTF-8 text");
  // The binary's kernels by name, arch and variant: a record for sm_90a is
  // sm_90a's where the binary tells the two apart (a fatbin's entries say
  // which), and the plain arch's kernel's where it cannot (a bare cubin).
  std::set<std::tuple<std::string, int, char>> present;
  std::map<std::pair<std::string, int>, int> kernels_of;  // kernels per name and arch
  std::map<std::pair<std::string, int>, int> variants_of;  // distinct variants per name and arch
  using KernelRef = std::pair<InspectedCubin*, size_t>;
  std::map<std::string, std::vector<KernelRef>> by_name;  // so that a record looks at its name's kernels only
  for (InspectedCubin& c : report->cubins)
    for (size_t i = 0; i < c.cubin.kernels.size(); ++i) {
      const KernelInfo& k = c.cubin.kernels[i];
      if (present.insert({k.name, k.arch, k.arch_variant}).second) ++variants_of[{k.name, k.arch}];
      ++kernels_of[{k.name, k.arch}];
      by_name[k.name].push_back({&c, i});
    }
  // Log records of kernels the file does not hold (a whole project's build
  // log): each is a note up to this many, then one note counts the rest.
  constexpr size_t kMaxAbsentNotes = 20;
  size_t absent = 0;
  // Each kernel's records: those whose name and arch are its, and whose
  // registers and stack frame (which holds the spills) agree with what the
  // binary says of it. Several kernels can have one name (a static kernel
  // of one name in two files): the figures tell their records apart.
  std::map<KernelRef, std::vector<const PtxasKernel*>> records_of;
  for (const PtxasKernel& p : log) {
    if (!p.entry) continue;
    // The log names kernels as ptxas does, with the folder hashes; the
    // binary's names have them masked where that names one kernel.
    const std::string name = by_name.count(p.name) != 0 ? p.name : StableKernelName(p.name);
    const bool variant_present = present.count({name, p.sm, p.sm_variant}) != 0;
    std::vector<KernelRef> candidates, fitting;
    if (auto kernels = by_name.find(name); kernels != by_name.end())
      for (const KernelRef& ref : kernels->second) {
        const KernelInfo& k = ref.first->cubin.kernels[ref.second];
        if (p.sm != 0 && p.sm != k.arch) continue;
        if (p.sm != 0 && p.sm_variant != k.arch_variant && (variant_present || variants_of[{name, p.sm}] > 1))
          continue;
        candidates.push_back(ref);
        if ((!k.registers || p.registers == *k.registers) && (!k.stack_frame || p.stack_frame == *k.stack_frame))
          fitting.push_back(ref);
      }
    const std::string where = log_name + ":" + std::to_string(p.line);
    if (candidates.empty()) {
      if (++absent <= kMaxAbsentNotes)
        report->notes.push_back({where, "the log's kernel '" + p.name + "'" +
                                            (p.sm ? " for " + ArchText(p.sm, p.sm_variant) : std::string()) +
                                            " is not in this file (built from other sources or flags?)"});
      continue;
    }
    if (fitting.empty()) {
      // The same name and arch with other registers or stack: another build's log.
      const KernelInfo& k = candidates.front().first->cubin.kernels[candidates.front().second];
      report->notes.push_back(
          {where, "the log's kernel '" + p.name + "'" + (p.sm ? " for " + ArchText(p.sm, p.sm_variant) : std::string()) +
                      " uses " + std::to_string(p.registers) +
                      " registers and a " + std::to_string(p.stack_frame) + "-byte stack frame where the binary's " +
                      (candidates.size() > 1 ? "kernels of that name have others" :
                                               "has " + (k.registers ? std::to_string(*k.registers) : std::string("?")) +
                                                   " and " +
                                                   (k.stack_frame ? std::to_string(*k.stack_frame) : std::string("?"))) +
                      " (a log of another build?); its spills are not used"});
      continue;
    }
    for (const KernelRef& r : fitting) records_of[r].push_back(&p);
  }
  for (auto& [ref, records] : records_of) {
    InspectedCubin& c = *ref.first;
    const KernelInfo& k = c.cubin.kernels[ref.second];
    KernelExtras& x = c.extras[ref.second];
    // A record without spill figures (nvlink's) leaves them unknown: 0
    // would be a known value, and hide a spill.
    std::vector<const PtxasKernel*> with;
    for (const PtxasKernel* p : records)
      if (p->spill_stores && p->spill_loads) with.push_back(p);
    if (with.empty()) continue;
    const PtxasKernel& first = *with.front();
    const PtxasKernel* other = nullptr;
    for (const PtxasKernel* p : with)
      if (p->spill_stores != first.spill_stores || p->spill_loads != first.spill_loads) other = p;
    if (other == nullptr) {
      x.spill_stores = first.spill_stores;
      x.spill_loads = first.spill_loads;
      continue;
    }
    const std::string what = "the log's kernel '" + first.name + "' for " + ArchText(k);
    const std::string records_text = "records at lines " + std::to_string(first.line) + " and " +
                                     std::to_string(other->line) + " with other spills (" +
                                     std::to_string(*first.spill_stores) + "/" + std::to_string(*first.spill_loads) +
                                     " vs " + std::to_string(*other->spill_stores) + "/" +
                                     std::to_string(*other->spill_loads) + " bytes stored/loaded)";
    if (kernels_of[{k.name, k.arch}] > 1) {
      // Two kernels of one name whose figures agree: which record is whose
      // cannot be told, and a guess could move a spill to the other kernel.
      report->notes.push_back({log_name + ":" + std::to_string(first.line),
                               what + ": " + records_text + " fit " + std::to_string(kernels_of[{k.name, k.arch}]) +
                                   " kernels of that name alike; their spills are unknown"});
      continue;
    }
    // One kernel, two records that disagree (two builds in one log): the
    // larger spills are kept, so a spill is never hidden, and the note says so.
    report->notes.push_back({log_name + ":" + std::to_string(other->line),
                             what + " has " + records_text + "; the larger are used"});
    for (const PtxasKernel* p : with) {
      x.spill_stores = std::max(x.spill_stores.value_or(0), *p->spill_stores);
      x.spill_loads = std::max(x.spill_loads.value_or(0), *p->spill_loads);
    }
  }
  // ptxas reports the spills of a device function the kernel calls (not
  // inlined, or linked apart with -rdc) under the function, not the kernel:
  // they are the kernel's spills too. The function's record in the kernel's
  // own ptxas module counts first: a whole-program build gives each file
  // its own copy of a template or inline function, and another file's copy
  // (other flags, another register budget) is not the one this kernel calls.
  // Else the largest record of the function and arch (a -rdc function
  // compiled in another module, or a log of several builds).
  std::map<std::pair<std::string_view, int>, std::pair<int64_t, int64_t>> function_spills, module_spills;
  for (const PtxasKernel& p : log) {
    if (p.entry || !p.spill_stores || !p.spill_loads) continue;
    for (auto* map : {&function_spills, &module_spills}) {
      if (map == &module_spills && p.module == 0) continue;  // no module line: archs can mix
      auto& [stores, loads] = (*map)[{p.name, map == &module_spills ? p.module : p.sm}];
      stores = std::max(stores, *p.spill_stores);
      loads = std::max(loads, *p.spill_loads);
    }
  }
  // The module of each kernel's own record, when its records agree on one.
  std::map<KernelRef, int> module_of;
  for (const auto& [ref, records] : records_of) {
    int module = records.front()->module;
    for (const PtxasKernel* p : records)
      if (p->module != module) module = 0;
    if (module != 0) module_of[ref] = module;
  }
  for (InspectedCubin& c : report->cubins) {
    if (c.cubin.call_graph_cut)
      report->notes.push_back({c.source, "the call graph holds more edges than are read: the spills of device "
                                         "functions some kernels call may be missing from theirs"});
    if (function_spills.empty()) continue;
    for (size_t i = 0; i < c.cubin.kernels.size(); ++i) {
      const KernelInfo& k = c.cubin.kernels[i];
      KernelExtras& x = c.extras[i];
      if (!x.spill_stores || !x.spill_loads) continue;
      std::string named;
      for (uint32_t callee : k.callees) {
        if (callee >= c.cubin.device_functions.size()) continue;
        const std::string& function = c.cubin.device_functions[callee];
        auto find = [](const auto& map, std::string_view name, int key) -> const std::pair<int64_t, int64_t>* {
          auto at = map.find({name, key});
          return at == map.end() ? nullptr : &at->second;
        };
        const std::pair<int64_t, int64_t>* spills = nullptr;
        if (auto m = module_of.find({&c, i}); m != module_of.end()) spills = find(module_spills, function, m->second);
        if (spills == nullptr) spills = find(function_spills, function, k.arch);
        if (spills == nullptr) spills = find(function_spills, function, 0);
        if (spills == nullptr || (spills->first == 0 && spills->second == 0)) continue;
        *x.spill_stores += spills->first;
        *x.spill_loads += spills->second;
        if (named.size() < 512)
          named += (named.empty() ? "" : ", ") + function + " (" + std::to_string(spills->first) + "/" +
                   std::to_string(spills->second) + " bytes)";
      }
      if (!named.empty())
        report->notes.push_back({log_name, "the spills of " + k.name + " for " + ArchText(k) +
                                               " include those of the device functions it calls: " + named});
    }
  }
  if (absent > kMaxAbsentNotes)
    report->notes.push_back({log_name, std::to_string(absent - kMaxAbsentNotes) +
                                           " more of the log's kernels are not in this file (the first " +
                                           std::to_string(kMaxAbsentNotes) + " are named above)"});
  return Status::Ok();
}

Result<InspectReport> InspectFile(const std::string& path) {
  Result<std::string> bytes = ReadFile(path, InputKind::kData);
  if (!bytes.ok()) return bytes.error();
  return InspectBytes(*bytes, path);
}

}  // namespace gpugate
