// pytest-benchmark JSON (--benchmark-json, --benchmark-save) -> gpugate
// results, so `compare` can diff runs of Python benchmark suites. The mapping
// (names, samples, reported noise, what is lost) is documented in
// docs/ingest.md.
#pragma once

#include <string>
#include <string_view>

#include "model/results.h"
#include "util/result.h"

namespace gpugate {

/// Converts a pytest-benchmark JSON document into results (source_format
/// "pytest", kind "pytest", backend "ingest"); `name` is the file name in
/// messages.
///
/// The suite is commit_info.project (the folder pytest ran in), else the
/// file stem. One workload per benchmark, in file order, named by
/// "fullname" (else "name"); scalar "params" become params, "group" a tag
/// "group:<name>", numeric "extra_info" members
/// counters["extra_info/<key>"]. With
/// stats.data (every round's time per call, in seconds: pytest-benchmark
/// divides each round by its iterations) the rounds of the one process form
/// one gpugate round and iterations_per_sample = stats.iterations. Without
/// data the median is the one sample, with the reported noise the judge
/// uses (counters only_summary = 1, single_sample = 1, stdev_rel =
/// stddev / mean, sample_size = rounds; also mean, stddev, min, max, iqr in
/// seconds). A benchmark without stats is skipped; a median of 0 too.
///
/// Input errors (exit 2) with line:col: broken JSON, a missing "benchmarks"
/// array, wrong types, a NaN, infinite or negative time, rounds or
/// iterations below 1, data whose length is not stats.rounds (a truncated
/// or edited file), a benchmark name used twice.
Result<Results> PytestFromJson(std::string_view text, const std::string& name);

}  // namespace gpugate
