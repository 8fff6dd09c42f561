// kind: static workloads: the static kernel metrics of a binary (a cubin, a
// fatbin, or an object / library / executable carrying fatbins), read with
// static/inspect.h — no GPU, no CUDA tools, nothing timed. The result is
// deterministic: the same binary gives the same result on any machine.
//
// Result shape (docs/static-lane.md):
// - primary metric "sass_instructions" (unit "instructions"; "sass_bytes" in
//   bytes when some kernel's instruction count is unknown): the total over
//   every kernel and architecture, one round of one value, deterministic, so
//   compare judges it on the policy threshold alone;
// - one KernelResult per kernel and architecture, named
//   "<demangled name>@sm_<NN>" (kernels of one name told apart as
//   static/kernel_names.h says), with no launches and these metrics:
//   registers_per_thread, stack_frame_bytes, min_stack_bytes,
//   shared_mem_bytes (static, net of the reserved part), param_bytes,
//   barriers, max_threads_per_block (launch bound), sass_bytes,
//   sass_instructions, arch; with a ptxas log spill_store_bytes and
//   spill_load_bytes; where cuda_occupancy.h computes it
//   theoretical_occupancy and occupancy_block_size. Attributes: arch
//   ("sm_90"), mangled_name, sass_hash (FNV-1a 64 of the SASS, 16 hex
//   digits) and occupancy_limiter.
#pragma once

#include <string>

#include "config/suite.h"
#include "model/results.h"
#include "model/static_code.h"
#include "static/inspect.h"

namespace gpugate {

/// The result of a static workload from an inspected binary (with
/// AddOccupancy / AddPtxasLog already applied when wanted). Pure.
WorkloadResult StaticWorkloadResult(const WorkloadSpec& spec, const InspectReport& report);

/// Reads spec.file (and spec.ptxas_log when set) and returns the result. A
/// file that cannot be read or parsed, or that holds no SASS, is a failed
/// workload with the reason, never an exception or an exit.
WorkloadResult RunStaticWorkload(const WorkloadSpec& spec);

}  // namespace gpugate
