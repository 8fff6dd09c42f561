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
/// demangled after its folder hashes are masked (StableKernelName).
///
/// Kernels whose names agree (one name in the anonymous namespaces of two
/// files, static kernels of two k.cu files) are told apart:
/// - by what their mangled names still hold once masked: the source file
///   nvcc wrote into it, "(anonymous namespace)::scale(float*) {a.cu}@sm_90"
///   (nvcc writes "." as "_"; a last "_cu" reads ".cu"), and where two of
///   them have one file name, that and 8 hex digits of a hash of the masked
///   mangled name, "{k.cu 1f2e3d4c}";
/// - kernels whose masked mangled names agree too are numbered, " #2",
///   " #3", in the order of the archive member they are in (its name), the
///   names of the other kernels of their cubin, their SASS hash, and only
///   then their place in the binary.
/// A name no other kernel has stays "<demangled name>@<arch>". Every name is
/// bounded (BoundedName).
std::vector<std::vector<std::string>> ResultKernelNames(const InspectReport& report);

}  // namespace gpugate
