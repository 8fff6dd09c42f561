// nvbench JSON (--json / --jsonbin, JSON format 1.x) -> gpugate results, so
// `compare` can diff nvbench runs. The mapping is documented in docs/ingest.md.
#pragma once

#include <string>
#include <string_view>

#include "model/results.h"
#include "util/result.h"

namespace gpugate {

/// Converts an nvbench JSON document into results (source_format "nvbench",
/// kind "nvbench", backend "ingest"). `name` is the file name used in
/// messages; `base_dir` is the folder of the JSON file, against which the
/// relative sample-file names of --jsonbin are resolved.
///
/// One workload per benchmark state: "<benchmark>/<state name without its
/// Device=N part>" (just "<benchmark>" for a state without axes), plus
/// " [devN]", a ("device", "N") param and a "device:<gpu name>" tag when the
/// file's states ran on more than one device. Params are the state's axis
/// values in order. Samples come from the nv/cold/sample_times sidecar
/// (little-endian float32 seconds, one round: they come from one process);
/// when it is absent, unreadable or inconsistent, the mean GPU time is the one
/// sample, with counters "stdev_rel", "sample_size" and "only_summary" = 1
/// ("sample_file_missing" = 1 when a named file could not be used). Every
/// numeric summary is also kept under its tag as a counter; batch GPU time is
/// counters["batch_gpu_time"]. Skipped states are skipped with their reason.
/// Devices fill Environment.gpu. Wrong types are input errors with line:col.
Result<Results> NvbenchFromJson(std::string_view text, const std::string& name,
                                const std::string& base_dir);

}  // namespace gpugate
