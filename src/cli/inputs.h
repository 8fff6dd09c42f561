// Loading what `compare` and `gate` compare: any supported file, detected by
// content (gpugate results or baseline history, Google Benchmark, nvbench,
// custom benchmark and pytest-benchmark JSON, Chrome/Kineto trace, .json.gz
// traces).
#pragma once

#include <string>
#include <vector>

#include "ingest/format.h"
#include "model/results.h"
#include "util/result.h"

namespace gpugate {

/// Runs in a comparison input, oldest first: a baseline history gives all
/// its runs; every other format gives one. Errors name the file (exit 2).
/// Benchmark files are read by IngestBenchmarkFile with `options`.
Result<std::vector<Results>> LoadRuns(const std::string& path, const IngestOptions& options = {});

/// One run: the newest run of a baseline history, or the file's only run.
Result<Results> LoadRun(const std::string& path, const IngestOptions& options = {});

}  // namespace gpugate
