// Bounds on the values every reader of measurements applies (gpugate results
// and baselines, and each ingested benchmark format), so a file cannot carry
// a time of 1e308 s into a ratio, or a negative time into a logarithm. The
// limits are listed in docs/safety.md "Inputs" and docs/results-schema.md.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gpugate {

/// A time is finite and in [kMinTimeSeconds, kMaxTimeSeconds): anything
/// shorter than a femtosecond is not a measurement, 1e9 s is 31 years.
inline constexpr double kMinTimeSeconds = 1e-15;
inline constexpr double kMaxTimeSeconds = 1e9;
/// Values of metrics other than time (counts, throughputs, custom values)
/// are finite, not negative and below this.
inline constexpr double kMaxMetricValue = 1e18;
/// A positive metric value (not a time) read from a custom benchmark file is
/// at least this: a ratio of two values then stays finite and printable. 0
/// is allowed (a skipped value). Stored results are not held to it, so that
/// a history written before the bound stays readable.
inline constexpr double kMinMetricValue = 1e-18;
/// Samples of one workload's primary metric in one results file.
inline constexpr int64_t kMaxSamplesPerResult = 1000000;
/// Workloads in one results file (as in one suite, after expansion).
inline constexpr int64_t kMaxWorkloadsPerResult = 100000;
/// Rows of one Google Benchmark file (each repetition and aggregate is one;
/// read as the file streams past, about 300 bytes each in memory).
inline constexpr int64_t kMaxGbenchRows = 2000000;
/// Values of `stats.data` in one pytest-benchmark file, all benchmarks
/// together (read as the file streams past, 8 bytes each in memory).
inline constexpr int64_t kMaxPytestSamples = 20000000;

/// Why a value is not finite and not negative ("is NaN", "is infinite", "is
/// negative (-2)"), nullopt otherwise: for readers that report these in the
/// file's own unit before converting.
std::optional<std::string> NotFiniteOrNegative(double value);

/// Why `seconds` is not a usable time, as a phrase to follow the value's
/// name ("is NaN", "is negative (-2)", "is 0", "is below 1e-15 s", "is 1e9 s
/// or more (1e+308 s)"); nullopt when it is usable. A zero is reported as
/// "is 0" so readers whose format uses 0 for "not measured" can tell it
/// apart.
std::optional<std::string> TimeProblem(double seconds);

/// TimeProblem of `value` in a unit of `scale` seconds; a positive value too
/// small to scale (it would read as 0) is below 1e-15 s.
std::optional<std::string> ScaledTimeProblem(double value, double scale);

/// Why `value` is not a usable value of another metric ("is NaN", "is
/// infinite", "is negative (-1)", "is 1e18 or more (...)"); nullopt when usable.
std::optional<std::string> MetricValueProblem(double value);
/// MetricValueProblem, or "is above 0 but below 1e-18 (...)": for a custom
/// benchmark file's values (kMinMetricValue).
std::optional<std::string> IngestedMetricValueProblem(double value);

/// MetricValueProblem, or "is not a whole number (2.5)": for counts of items
/// and bytes.
std::optional<std::string> CountProblem(double value);

/// Seconds per one of `unit` when it names a time: "ns", "us", "µs" (U+00B5
/// or U+03BC), "ms", "s", or the words ("sec", "seconds", "msec",
/// "Milliseconds", ... in any case), optionally followed by "/iter", "/op" or
/// "/call" ("ns/iter" is a time per iteration). std::nullopt for anything
/// else. The units of custom benchmark JSON (ingest/custom.h).
std::optional<double> CustomTimeUnitScale(std::string_view unit);

}  // namespace gpugate
