// The names static results give the kernels of an inspected binary
// (kind: static workloads, docs/static-lane.md "How compare judges it"):
// a kernel is matched with the baseline's by this name, so it must not
// depend on where the binary was built nor on the order of its members.
#pragma once

#include <string>
#include <vector>

#include "static/inspect.h"

namespace gpugate {

/// The result name of every kernel of `report`, parallel to
/// report.cubins[c].cubin.kernels: "<demangled name>@<arch>", the name
/// demangled after its folder hashes are masked (StableKernelName); an -rdc
/// static kernel ("__nv_static_…") as its inner name.
///
/// Kernels whose names agree (one name in the anonymous namespaces of two
/// files, static kernels of two k.cu files) are told apart, by a key of the
/// masked mangled name without the mark nvcc derives from the file's first
/// external host symbol (an edit of a host function changes it):
/// - by the source file that key holds,
///   "(anonymous namespace)::scale(float*) {a.cu}@sm_90" (nvcc writes "."
///   as "_"; a last "_cu" reads ".cu"), and where two keys have one file name
///   and still differ, that and 8 hex digits of a hash of the key,
///   "{k.cu 1f2e3d4c}";
/// - kernels whose masked mangled names agree too are numbered, " #2",
///   " #3", in the order of the archive member they are in (its name), the
///   names of the other kernels of their cubin, their SASS hash, and only
///   then their place in the binary.
/// A name no other kernel has stays "<demangled name>@<arch>". Every name is
/// bounded (BoundedName).
std::vector<std::vector<std::string>> ResultKernelNames(const InspectReport& report);

}  // namespace gpugate
