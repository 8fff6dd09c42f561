// In-process CUPTI activity tracer: subscribes to CUPTI (one subscriber per
// process is all CUPTI allows), enables the activity kinds gpugate converts
// (kernels, memcpy, peer copies, memset, runtime and driver calls,
// synchronization, NVTX markers, CUPTI overhead, devices), hands CUPTI
// buffers of `buffer_bytes` and converts each completed buffer into
// TraceRecords (cupti/records.h). Buffers are force-flushed
// (cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED)) on TakeRecords,
// on cuProfilerStop, before a device reset and before a context is destroyed,
// so no record is lost with its context. Timestamps are CLOCK_REALTIME
// nanoseconds (as Kineto's), so CPU and GPU rows share the Unix epoch.
// Built only with CUDA (tracer_cupti.cc); no CUDA headers here.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "cupti/records.h"
#include "util/result.h"

namespace gpugate {

struct TracerOptions {
  size_t buffer_bytes = size_t{8} << 20;   ///< per CUPTI activity buffer (peers use 4-16 MiB)
  std::string subscriber_name = "gpugate";  ///< what other CUPTI clients see
};

class CuptiTracer {
 public:
  /// Subscribes and enables activity collection. Errors (ToolError): another
  /// CUPTI client holds the process (Nsight Systems / Compute, cuda-gdb,
  /// compute-sanitizer, a profiler the program started itself) — the message
  /// names it as CUPTI reports it; a second tracer in this process; any other
  /// CUPTI failure with CUPTI's own text.
  static Result<std::unique_ptr<CuptiTracer>> Start(const TracerOptions& options = {});
  ~CuptiTracer();
  CuptiTracer(const CuptiTracer&) = delete;
  CuptiTracer& operator=(const CuptiTracer&) = delete;

  /// Hands every buffer CUPTI holds (also incomplete ones) to the tracer.
  void Flush();
  /// Flush, then the records collected since the last call.
  TraceRecords TakeRecords();
  /// Disables collection and unsubscribes (after a final flush). Idempotent.
  void Stop();

  struct State;

 private:
  explicit CuptiTracer(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

/// Names of the environment variables between `gpugate run` and the
/// injection library.
inline constexpr const char* kCuptiTraceEnv = "GPUGATE_CUPTI_TRACE";        ///< where to write the trace
inline constexpr const char* kCuptiBufferEnv = "GPUGATE_CUPTI_BUFFER_MIB";  ///< buffer size, 1..256 MiB

}  // namespace gpugate
