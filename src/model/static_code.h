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
/// The KernelResult attribute holding a static kernel's mangled name with
/// the folder hashes masked (the same in every workspace).
inline constexpr const char* kStableMangledNameAttribute = "stable_mangled_name";

/// The counter of a static result that counts the SASS entries its binary
/// holds but the inspection could not read (a limit, a corrupt entry).
inline constexpr const char* kSassNotInspectedCounter = "sass_entries_not_inspected";

inline bool IsStaticResult(const WorkloadResult& w) { return w.kind == kStaticKind; }

/// Whether two results of a static workload hold the same code: the same
/// kernels (by name, which carries the architecture) with the same SASS hash
/// each. False when either is not an ok static result, holds no kernels, a
/// hash is missing, or SASS of either binary was not read.
bool SameStaticCode(const WorkloadResult& a, const WorkloadResult& b);

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
