// Traces as gate inputs: a Chrome/Kineto trace becomes gpugate results, one
// workload per GPU, kernels as KernelResult with every instance as a sample,
// so `compare` can say which kernel got slower.
#pragma once

#include <string>
#include <string_view>

#include "model/results.h"
#include "trace/analysis.h"
#include "util/result.h"

namespace gpugate {

/// Reads the trace at `path` and converts it (run.source_format = "trace").
/// Workloads are named "gpu<device>" (stable across trace files, so two traces
/// of the same program match); their single round holds one sample, the
/// device's GPU busy time (union of kernels, memcpys and memsets) in seconds.
/// Kernels carry every instance's duration (durations_s, time order), count
/// and total. Environment.gpu comes from deviceProperties. Errors: the reader's
/// (exit 2), or a trace without GPU activity (exit 2).
Result<Results> TraceToResults(const std::string& path);
/// Same for a trace already in memory; `name` names it in messages.
Result<Results> TraceTextToResults(std::string_view bytes, const std::string& name);

/// The suite of the trace at `path`: its file name without ".json" and
/// ".gz"; for PyTorch's tensorboard_trace_handler names
/// (<worker>.<time in ns>.pt.trace.json) the worker, without the time, so
/// that the runs of one program are one suite. A name that then ends in
/// "_<pid>" or ".<pid>", where pid (1000 or more) is one of `host_pids` (the
/// profiled process's, TraceInfo::host_pids), loses that too: PyTorch's
/// default worker name is <host>_<pid>.
std::string TraceSuiteName(const std::string& path, const std::vector<int64_t>& host_pids = {});

/// The conversion itself, for a report analysed with keep_kernel_samples.
Results TraceReportToResults(const TraceReport& report);

}  // namespace gpugate
