// CUPTI records -> Chrome trace JSON in the shape PyTorch's profiler (Kineto)
// writes, so `gpugate analyze`, TraceToResults, Perfetto and HTA read it:
//   {"schemaVersion": 1, "traceName": ..., "displayTimeUnit": "ns",
//    "deviceProperties": [...], "traceEvents": [...],
//    "gpugate": {"source": "cupti", "dropped_records": N}}
// Events (ph X): kernel, gpu_memcpy, gpu_memset and cuda_sync on the GPU rows
// (pid = device, tid = stream), cuda_runtime / cuda_driver, user_annotation
// (NVTX ranges) and overhead (CUPTI's own time) on the CPU rows (pid =
// process, tid = thread); ac2g flow pairs (ph s at the launch call, ph f with
// "bp": "e" at the GPU activity, id = correlation); process/thread name
// metadata (ph M). ts/dur are microseconds with three decimals, exact from
// the integer nanoseconds.
#pragma once

#include <string>

#include "cupti/records.h"

namespace gpugate {

struct ChromeTraceOptions {
  std::string trace_name;  ///< "traceName" (e.g. the traced program); empty: left out
};

/// The trace document as compact JSON text. Names are escaped by the text
/// layer (valid UTF-8, controls escaped).
std::string WriteChromeTrace(const TraceRecords& records, const ChromeTraceOptions& options = {});

}  // namespace gpugate
