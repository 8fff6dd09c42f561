// Streaming reader for Chrome trace JSON as written by PyTorch's profiler
// (Kineto) and by CUPTI-based tools: plain .json or gzip-compressed
// (.json.gz, detected by its magic bytes), either {"traceEvents": [...], ...}
// or a bare top-level event array. RapidJSON's SAX reader runs over a buffered
// file/zlib stream, so memory stays constant however large the file is; no DOM
// of the whole file is ever built.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "trace/trace_event.h"
#include "util/result.h"

namespace gpugate {

/// Streams the trace at `path` through `sink`, one event at a time, in file
/// order. Returns the trace metadata and counters. Errors (exit code 2):
/// missing/unreadable file, empty file, not JSON, truncated file or gzip
/// stream, a wrong-typed member (e.g. "ts" as a string), no traceEvents array;
/// messages read "path:line:col: what" (line/col in the decompressed text).
Result<TraceInfo> ReadTrace(const std::string& path, TraceEventSink& sink);

/// Same over bytes in memory (plain or gzip); `name` stands for the file name
/// in messages. For tests.
Result<TraceInfo> ReadTraceFromString(std::string_view bytes, const std::string& name,
                                      TraceEventSink& sink);

/// Converts a JSON number literal in microseconds to integer nanoseconds
/// exactly, without going through a double ("1712194298123456.789" ->
/// 1712194298123456789). Digits beyond nanoseconds are rounded half away from
/// zero. nullopt when the text is not a number or does not fit in int64.
std::optional<int64_t> MicrosTextToNanos(std::string_view text);

}  // namespace gpugate
