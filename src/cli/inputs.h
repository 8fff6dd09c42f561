// Loading what `compare` and `gate` compare: any supported file, detected by
// content (gpugate results or baseline history, Google Benchmark JSON,
// nvbench JSON, Chrome/Kineto trace, .json.gz traces).
#pragma once

#include <string>
#include <vector>

#include "model/results.h"
#include "util/result.h"

namespace gpugate {

/// Runs in a comparison input, oldest first: a baseline history gives all
/// its runs; every other format gives one. Errors name the file (exit 2).
Result<std::vector<Results>> LoadRuns(const std::string& path);

/// One run: the newest run of a baseline history, or the file's only run.
Result<Results> LoadRun(const std::string& path);

}  // namespace gpugate
