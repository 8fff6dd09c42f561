// Input format detection for `compare` and `analyze`: tells gpugate results and
// baselines, Google Benchmark, nvbench, custom benchmark and pytest-benchmark
// JSON and Chrome traces apart from the first bytes of a file, without parsing
// the whole document; and the one entry point that reads a benchmark file.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "model/results.h"
#include "util/result.h"

namespace gpugate {

enum class InputFormat {
  kGpugateResults,   ///< "schema": "gpugate/results/v1"
  kGpugateBaseline,  ///< "schema": "gpugate/baseline/v1"
  kGbench,           ///< Google Benchmark --benchmark_out_format=json
  kNvbench,          ///< nvbench --json / --jsonbin
  kCustom,           ///< github-action-benchmark "custom": [{name, unit, value}, ...]
  kPytest,           ///< pytest-benchmark --benchmark-json / --benchmark-save
  kChromeTrace,      ///< Chrome trace / PyTorch (Kineto) trace, or a gzip file
  kUnknown,
};

/// How many leading bytes SniffFormat wants to see for a reliable answer.
inline constexpr size_t kSniffBytes = 64 * 1024;

/// Detects the format from the head of a file (up to kSniffBytes; fewer is
/// fine for small files). Cheap: scans object keys and the "schema" value
/// near the top, never builds a DOM, tolerates a head cut anywhere.
///  - gzip magic (1f 8b) -> kChromeTrace (LoadRuns in cli/inputs.h looks
///    inside a gzip file first: any format may come gzipped);
///  - top-level "schema" "gpugate/results/..." or "gpugate/baseline/...";
///  - top-level "traceEvents", or Kineto's "schemaVersion" + "deviceProperties",
///    or a top-level array whose first event has "ph" -> kChromeTrace;
///  - a top-level array whose first element has "name", "unit" and "value"
///    -> kCustom;
///  - top-level "machine_info" or "commit_info" -> kPytest;
///  - top-level "context" with "benchmarks" (or gbench context keys such as
///    "num_cpus" when the head ends inside the context) -> kGbench;
///  - top-level "benchmarks" with "devices" or "meta", or "meta" holding an
///    "nvbench" version, or "devices" listing an "sm_version" -> kNvbench.
InputFormat SniffFormat(std::string_view head);

/// The top-level "schema" string of a JSON object's head ("" when there is
/// none): the name of what gpugate file it is, also one SniffFormat does not
/// read (a verdicts file, a device profile).
std::string SniffSchema(std::string_view head);

/// "gpugate results", "gpugate baseline", "Google Benchmark JSON",
/// "nvbench JSON", "custom benchmark JSON", "pytest-benchmark JSON",
/// "Chrome trace", "unknown".
const char* ToString(InputFormat format);

/// The benchmark formats IngestBenchmarkFile reads, for messages.
inline constexpr const char* kBenchmarkFormatsText =
    "Google Benchmark JSON, nvbench JSON, custom benchmark JSON "
    "([{\"name\", \"unit\", \"value\"}, ...]) or pytest-benchmark JSON";

/// What a benchmark file does not say about itself.
struct IngestOptions {
  /// Custom benchmark JSON has no direction: smaller values are better
  /// (github-action-benchmark's customSmallerIsBetter) unless this is set
  /// (customBiggerIsBetter). Other formats measure time and ignore it.
  bool bigger_is_better = false;
};

/// Reads a benchmark file of any supported format and converts it to results
/// (GbenchFromJson, NvbenchFromJson with sample files looked up next to
/// `path`, CustomFromJson, PytestFromJson). The one entry point for benchmark
/// files. Any other detected format is an input error (exit 2) naming what
/// was found, so callers handle gpugate files and traces themselves.
Result<Results> IngestBenchmarkFile(const std::string& path, const IngestOptions& options = {});
/// Same for a file already read: `text` is the content of `path`.
Result<Results> IngestBenchmarkText(std::string_view text, const std::string& path,
                                    const IngestOptions& options = {});

/// IngestBenchmarkFile over bytes already read: `name` stands for the path in
/// messages, `base_dir` is where nvbench sample files are looked up.
Result<Results> IngestBenchmarkText(std::string_view text, const std::string& name,
                                    const std::string& base_dir, const IngestOptions& options = {});

}  // namespace gpugate
