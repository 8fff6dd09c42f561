// Google Benchmark JSON (--benchmark_out_format=json) -> gpugate results, so
// `compare` can diff runs of existing benchmark binaries. The mapping (names,
// samples, rounds, what is lost) is documented in docs/ingest.md.
#pragma once

#include <string>
#include <string_view>

#include "model/results.h"
#include "util/result.h"

namespace gpugate {

/// Converts a Google Benchmark JSON document into results (source_format
/// "gbench", kind "gbench", backend "ingest"). `name` is the file name used
/// in messages.
///
/// One workload per run_name, in file order. Each iteration row (one
/// repetition) becomes one sample, real_time converted to seconds per
/// iteration, in a round of its own; counters["gbench_repetitions"] says how
/// many came from the one process. A run_name with no iteration rows falls
/// back to its aggregate rows (median, else mean, as the single sample;
/// counters["only_aggregates"] = 1, plus "stddev"/"cv" when given). One
/// sample only -> counters["single_sample"] = 1. Rows with error_occurred or
/// skipped make the workload skipped with the benchmark's message; a zero
/// time makes it skipped too (a ratio needs a positive time).
///
/// NaN/Infinity in counter and aggregate fields are missing values. A NaN,
/// infinite or negative real_time/cpu_time in an iteration row is an input
/// error (exit 2): "name:line:col: benchmark 'BM_x/8': real_time is NaN".
/// Wrong types, a missing "benchmarks" array or broken JSON are input errors
/// with line:col.
Result<Results> GbenchFromJson(std::string_view text, const std::string& name);

}  // namespace gpugate
