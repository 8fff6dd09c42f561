// `profile: cupti` on the gpugate side (no CUDA headers): finding the
// injection library, the environment a profiled execution gets, reading the
// trace each execution leaves, and pooling the per-kernel results of all
// executions of a workload into its result (one trace per process run; the
// process is the unit of replication). docs/cupti.md.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "model/results.h"
#include "util/result.h"

namespace gpugate {

/// Environment variable naming the injection library, overriding the search.
inline constexpr const char* kCuptiLibraryEnv = "GPUGATE_CUPTI_LIBRARY";
/// File name of the injection library.
inline constexpr const char* kInjectionLibraryName = "libgpugate_inject.so";

/// Whether this gpugate was built with CUDA, and so with the injection library.
bool CuptiProfileBuilt();

/// Path of the injection library: $GPUGATE_CUPTI_LIBRARY when set (it must
/// exist); else `libgpugate_inject.so` next to the running executable, then in
/// `<exe dir>/../<libdir>` (the install layout). `exe_path` is the running
/// executable (empty: /proc/self/exe). ToolError naming every place looked
/// at when none has it.
Result<std::string> FindInjectionLibrary(const std::string& exe_path = "");

/// The environment a traced execution gets: CUDA_INJECTION64_PATH and
/// NVTX_INJECTION64_PATH (the injection library: the CUDA driver and NVTX
/// load it) and GPUGATE_CUPTI_TRACE (`trace_path`).
std::vector<std::pair<std::string, std::string>> CuptiExecutionEnvironment(const std::string& library,
                                                                          const std::string& trace_path);

/// What one traced execution left behind.
struct CuptiExecution {
  bool traced = false;        ///< a trace was written (the program initialised CUDA)
  /// Tracing started ("<trace>.started") but no trace was written: the
  /// program ended without running its exit handlers (_exit, os._exit, a
  /// signal).
  bool unwritten = false;
  bool gpu_activity = false;  ///< it holds kernels, copies or memsets
  std::vector<KernelResult> kernels;  ///< all devices merged by kernel name
};

/// Reads what the execution traced to `trace_path`. Errors (ToolError):
/// "<trace_path>.error" exists (tracing could not start: another profiler is
/// attached; its text names it), or the trace is unreadable. No trace file
/// is not an error: the program never initialised CUDA, or (`unwritten`)
/// it did and ended without running its exit handlers.
Result<CuptiExecution> ReadCuptiExecution(const std::string& trace_path);

/// Per-kernel results of many executions, pooled.
class CuptiKernelPool {
 public:
  void Add(const CuptiExecution& execution);
  int executions() const { return executions_; }
  /// Sets `w.kernels` (every instance of every execution, kernels by total
  /// time), counters cupti_executions / cupti_executions_with_gpu_activity,
  /// and a note; without any GPU activity the kernels stay empty and the
  /// note says "profile: cupti recorded no GPU activity (...)". `scope`, when
  /// given, is added to the note (e.g. that the kernels are the process's).
  /// Nothing when no execution was added.
  void Annotate(WorkloadResult& w, const std::string& scope = "") const;

 private:
  int executions_ = 0, traced_ = 0, active_ = 0, unwritten_ = 0;
  std::vector<KernelResult> kernels_;
  std::vector<double> largest_s_;  ///< per kernel, its largest time in one execution
};

/// The gpugate side of profiling one workload: a temporary folder for the
/// traces, the environment of each execution, the pool of its kernels.
class CuptiSession {
 public:
  /// Finds the injection library (FindInjectionLibrary's errors) and creates
  /// the folder for the traces.
  static Result<std::unique_ptr<CuptiSession>> Start();
  ~CuptiSession();
  /// Environment for the next execution: CuptiExecutionEnvironment with a
  /// fresh trace path in the folder.
  std::vector<std::pair<std::string, std::string>> NextExecution();
  /// Reads the last execution's trace (ReadCuptiExecution's errors) and, when
  /// `keep` (a measured sample, not warmup), pools it. The trace is removed.
  Status FinishExecution(bool keep);
  const CuptiKernelPool& pool() const { return pool_; }

 private:
  CuptiSession(std::string library, std::string dir);
  std::string library_, dir_;
  std::string trace_path_;
  int next_ = 0;
  CuptiKernelPool pool_;
};

}  // namespace gpugate
