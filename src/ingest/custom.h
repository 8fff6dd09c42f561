// github-action-benchmark "custom" JSON -> gpugate results: the format a
// benchmark in any language can write, a top-level array of
// {"name", "unit", "value", "range"?, "extra"?}. The mapping (units,
// direction, what is lost) is documented in docs/ingest.md.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "model/limits.h"  // CustomTimeUnitScale
#include "model/results.h"
#include "util/result.h"

namespace gpugate {

/// Converts a custom JSON document into results (source_format "custom",
/// kind "custom", backend "ingest"); `name` is the file name in messages.
///
/// One workload per entry, in file order, named by "name" (unchanged), with
/// the value as its single sample (counters["single_sample"] = 1: compare
/// needs `no_replication: threshold` to judge it). A time unit becomes the
/// time metric in seconds; any other unit is kept: metric "value" with that
/// unit. The file does not say which direction is better: smaller unless
/// `bigger_is_better`. A "range" that reads as a spread ("5%", "± 1.2",
/// 0.52) is kept as counters["range_rel"] (a fraction) or counters["range"]
/// (in the value's unit, seconds for time); the judge does not use it.
///
/// Input errors (exit 2) with line:col: broken JSON, a top level that is not
/// an array, an entry that is not an object, a missing or mistyped name,
/// unit or value, a NaN, infinite or negative value, a name used twice. A
/// value of 0 makes the workload skipped (a ratio needs a positive value).
Result<Results> CustomFromJson(std::string_view text, const std::string& name,
                               bool bigger_is_better = false);

}  // namespace gpugate
