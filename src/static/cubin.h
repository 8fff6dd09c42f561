// Static per-kernel metrics of one cubin (a CUDA device ELF, e_machine
// EM_CUDA): registers, stack, shared memory, parameters, launch bounds,
// barriers, cluster dimensions and the SASS bytes, read from the `.nv.info`
// attribute sections, `.nv.shared.*`, `.nv.constant0.*` and `.text.*`.
// docs/inspect.md lists every attribute and how it was verified.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace gpugate {

/// What one cubin says about one kernel. Sizes are bytes.
struct KernelInfo {
  std::string name;                                    ///< mangled, as in the symbol table (untrusted text)
  int arch = 0;                                        ///< 90 for sm_90
  /// 'a' for an arch-specific target (sm_90a), 'f' for a family one
  /// (sm_100f), 0 for neither or unknown: a fatbin entry's flags say it, a
  /// bare cubin's tool note (ToolArchVariant) where it has one.
  char arch_variant = 0;
  std::optional<int> registers;                        ///< EIATTR_REGCOUNT
  std::optional<int64_t> stack_frame;                  ///< EIATTR_FRAME_SIZE
  std::optional<int64_t> min_stack;                    ///< EIATTR_MIN_STACK_SIZE
  int64_t shared_bytes = 0;                            ///< static shared memory, net of the reserved part
  int64_t shared_reserved = 0;                         ///< system-reserved shared memory inside .nv.shared.<k>
  std::optional<int64_t> param_bytes;                  ///< EIATTR_CBANK_PARAM_SIZE
  std::optional<int64_t> cbank0_bytes;                 ///< size of .nv.constant0.<k> (ptxas's "cmem[0]")
  std::optional<std::array<int64_t, 3>> max_threads;   ///< EIATTR_MAX_THREADS (__launch_bounds__)
  std::optional<std::array<int64_t, 3>> req_threads;   ///< EIATTR_REQNTID
  std::optional<int> max_registers;                    ///< EIATTR_MAXREG_COUNT (255: no limit given)
  int barriers = 0;                                    ///< EIATTR_NUM_BARRIERS
  std::optional<std::array<int64_t, 3>> cluster_dims;  ///< EIATTR_CTA_PER_CLUSTER (__cluster_dims__)
  int64_t sass_bytes = 0;                              ///< size of .text.<k>
  std::optional<int64_t> instructions;                 ///< sass_bytes / 16 on sm_70 and newer
  uint64_t sass_hash = 0;                              ///< FNV-1a 64 of the .text.<k> bytes
  /// FNV-1a 64 of the cubin's other code: the executable sections no
  /// kernel owns (device functions linked apart from their callers, as
  /// -rdc builds place them), names and bytes; nullopt when there are none.
  std::optional<uint64_t> other_code_hash;
  /// The device functions the kernel calls, directly or through others, as
  /// indices into CubinInfo::device_functions: from .nv.callgraph (-rdc
  /// builds) and from the "$<kernel>$<function>" symbols of functions a
  /// whole-program build placed in the kernel's code. ptxas reports their
  /// spills apart from the kernel's.
  std::vector<uint32_t> callees;
};

/// "sm_90", "sm_90a", "sm_100f".
std::string ArchText(int arch, char variant);

/// The target variant ('a', 'f', or 0) a cubin's .note.nv.tkinfo (the
/// compiler's command line, "-arch sm_90a -m 64") gives for `arch`.
char ToolArchVariant(std::string_view note, int arch);
/// The kernel's arch as ArchText writes it.
inline std::string ArchText(const KernelInfo& k) { return ArchText(k.arch, k.arch_variant); }

/// One cubin's kernels.
struct CubinInfo {
  int arch = 0;
  char arch_variant = 0;  ///< as KernelInfo's
  /// Why `arch` may be wrong: an ELF ABI version or OS/ABI byte this reader
  /// does not know ("" when it knows the layout).
  std::string layout_note;
  std::vector<KernelInfo> kernels;
  /// Mangled names of the device functions kernels call (KernelInfo::callees).
  std::vector<std::string> device_functions;
  /// The call graph held more edges than are read: some kernels' callees
  /// are missing.
  bool call_graph_cut = false;
};

/// The SM version a cubin's e_flags encode. From ELF ABI version 8 (CUDA
/// 12.8 on, EI_OSABI 0x41) it is (e_flags >> 8) & 0xff (checked on sm_75,
/// sm_80, sm_90, sm_100 and sm_120 cubins from nvcc 13.0); before it
/// (EI_OSABI 0x33, ABI versions up to 7) e_flags & 0xff (sm_21 at ABI 4, sm_30,
/// sm_52 and sm_90 at ABI 7).
int CubinArch(uint32_t e_flags, uint8_t abi_version);

/// Whether `data` is an ELF with e_machine EM_CUDA.
bool IsCubin(std::string_view data);

/// The name a kernel is known by across builds. A `static __global__`
/// kernel of relocatable device code (-rdc) is named
/// "__nv_static_<N>__<8 hex>_<len>_<file>_cu_<first symbol>_<mangled>", the
/// 8 hex digits a hash of the source's absolute folder: the same source built
/// in two workspaces would be two kernels. They become "xxxxxxxx", and so do
/// the same folder's hash in an anonymous namespace ("_GLOBAL__N__<8 hex>_")
/// and in nvcc's "_INTERNAL_<8 hex>_" prefix; the rest of a name stays.
std::string StableKernelName(std::string_view name);

/// The source file nvcc wrote into the name of a kernel with internal
/// linkage, as it wrote it (every character but letters and digits as "_"):
/// "anon_scale_a_cu" for "_ZN48_GLOBAL__N__<8 hex>_15_anon_scale_a_cu_757a102c5scaleEPf"
/// (an anonymous namespace) and "k_cu" for
/// "__nv_static_25__<8 hex>_4_k_cu__Z3pubPf__Z6stat_kPf" (a static kernel of
/// -rdc code); the 8 hex digits may be masked. Empty when the name has none.
std::string KernelSourceFile(std::string_view name);

/// Reads every kernel of the cubin `data`: every entry function with a
/// `.nv.info.<k>` section (device functions, which -rdc and -G builds also
/// give one, are skipped). Errors (exit 2) name `name` and the file offset.
Result<CubinInfo> ReadCubin(std::string_view data, const std::string& name);

}  // namespace gpugate
