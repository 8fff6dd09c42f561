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
/// `format`, when given, receives the format the file was read as.
Result<std::vector<Results>> LoadRuns(const std::string& path, const IngestOptions& options = {},
                                      InputFormat* format = nullptr);

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

/// The one warning of a first run (gate and compare): "no baseline yet at
/// PATH: nothing was compared, this run starts it (STORE)"; with a folder
/// (`found` not null), what the folder holds for the suite and how to name
/// another runner class.
std::string FirstRunText(const std::string& path, const std::string& store,
                         const BaselineInFolder* found, const std::string& folder,
                         const std::string& suite, const std::string& key);

/// The file's one run, for the current side of a comparison. A baseline
/// history is an error: it belongs on the baseline side, and taking its
/// newest run would drop the others without a word (arguments swapped).
Result<Results> LoadRun(const std::string& path, const IngestOptions& options = {});

}  // namespace gpugate
