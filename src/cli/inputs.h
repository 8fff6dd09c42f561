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

/// A baselines folder as `gpugate baseline update --baseline FOLDER` keeps
/// it: <folder>/<suite slug>/<key>.json, one file per runner class.
struct BaselineInFolder {
  std::string path;                 ///< the file for `key` (may not exist)
  bool exists = false;
  std::vector<std::string> others;  ///< keys of the other files of the suite, sorted
};

/// The suite's file for the first of `keys` that has one; when none has,
/// the path for keys.front() with exists = false. Precondition: keys non-empty.
BaselineInFolder FindBaselineInFolder(const std::string& folder, const std::string& suite,
                                      const std::vector<std::string>& keys);

/// "no baseline for suite S and runner class K in F" plus what the folder
/// holds for the suite and how to name another class.
std::string NoBaselineInFolderText(const std::string& folder, const std::string& suite,
                                   const std::string& key, const BaselineInFolder& found);

/// One run: the newest run of a baseline history, or the file's only run.
Result<Results> LoadRun(const std::string& path, const IngestOptions& options = {});

}  // namespace gpugate
