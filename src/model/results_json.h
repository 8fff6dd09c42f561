// JSON I/O of the results model (`gpugate/results/v1`) with RapidJSON.
// The reader validates every field's type and rejects unknown major versions.
#pragma once

#include <optional>
#include <string>

#include "model/results.h"
#include "util/json.h"
#include "util/result.h"

namespace gpugate {

/// Serialises results (pretty-printed, stable key order).
std::string ResultsToJson(const Results& results);

/// Parses results; `name` is the file name used in messages
/// ("r.json:1:345: workloads[2].rounds[0][3]: expected a number").
Result<Results> ResultsFromJson(const std::string& text, const std::string& name);
/// Same for a piece of a larger file (a run inside a baseline history) that
/// begins at `origin`, so positions in messages are the file's.
Result<Results> ResultsFromJson(std::string_view text, const std::string& name, JsonOrigin origin);

/// Reads a results file.
Result<Results> ReadResultsFile(const std::string& path);

/// Why `results` cannot be written as a file its readers accept, or
/// nullopt: two keys of one object (params, counters, a kernel's metrics or
/// attributes, the run's source_context) that the writer would write as one
/// key, being the same or differing only in invalid UTF-8 (written
/// repaired, each bad byte U+FFFD). Readers refuse an object that repeats a
/// key.
std::optional<std::string> RepeatedKeyProblem(const Results& results);

/// Writes a results file atomically; refuses (RepeatedKeyProblem) to write
/// one that its readers would refuse.
Status WriteResultsFile(const std::string& path, const Results& results);

}  // namespace gpugate
