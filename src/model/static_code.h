// Static kernel results (kind: static, harness/static_runner.h) as the
// judge and the gate see them: which code a result holds.
#pragma once

#include "model/results.h"

namespace gpugate {

/// Kind of a static workload's result.
inline constexpr const char* kStaticKind = "static";

/// The KernelResult attribute holding a static kernel's SASS hash (FNV-1a 64
/// of its .text bytes, "0x" and 16 hex digits).
inline constexpr const char* kSassHashAttribute = "sass_hash";
/// The KernelResult attribute holding the hash of the code in the kernel's
/// cubin that no kernel owns (device functions an -rdc build links apart
/// from their callers); absent when there is none.
inline constexpr const char* kOtherCodeHashAttribute = "other_code_hash";
/// The KernelResult attribute holding a static kernel's mangled name with
/// the folder hashes masked (the same in every workspace).
inline constexpr const char* kStableMangledNameAttribute = "stable_mangled_name";

/// The counter of a static result that counts the SASS entries its binary
/// holds but the inspection could not read (a limit, a corrupt entry).
inline constexpr const char* kSassNotInspectedCounter = "sass_entries_not_inspected";

inline bool IsStaticResult(const WorkloadResult& w) { return w.kind == kStaticKind; }

/// Whether two results of a static workload hold the same code: the same
/// kernels (by name, which carries the architecture) with the same SASS hash
/// and the same resources (SameKernelResources) each. False when either is not an ok static result, holds no kernels, a
/// hash is missing, or SASS of either binary was not read.
bool SameStaticCode(const WorkloadResult& a, const WorkloadResult& b);
/// Whether two static results of one kernel hold the same resources: every
/// metric the binary gives (registers, shared memory, stack frame, launch
/// bounds, barriers, code size, occupancy) and the architecture; spills,
/// which a ptxas log gives on one side or both, are not compared. The same
/// SASS hash with other resources is not the same kernel: a static shared
/// array's size is not in the code, and it can cut the occupancy.
bool SameKernelResources(const KernelResult& a, const KernelResult& b);

/// Kernels whose names the binary cannot tell apart are numbered ("init(float*,
/// int)@sm_80", "… #2", "… #3"; static_runner.h), and an edit elsewhere in
/// their files can change which one is "#2". This renames the numbered
/// kernels of `current` (a static result) to pair them with `base`'s of the
/// same numbered name: a kernel holding a baseline kernel's SASS takes that
/// kernel's name; then one whose masked mangled name is a baseline kernel's
/// alone (a changed kernel whose file still tells it apart); the others take
/// the remaining names in their order; any more get numbers of their own. Kernels of names no other kernel shares are
/// left as they are.
void PairNumberedKernels(const WorkloadResult& base, WorkloadResult* current);

}  // namespace gpugate
