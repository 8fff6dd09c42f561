// Number formatting for reports: percentages, ratios with confidence intervals,
// durations, byte counts and p-values. The model keeps canonical units
// (seconds, bytes, fractions); these helpers turn them into text at the edge.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gpugate {

/// A fraction as a signed percentage with one decimal (or `decimals`, 1 to
/// 4): 0.041 -> "+4.1%", -0.03 -> "-3.0%", (0.0013, 2) -> "+0.13%"; a
/// change that rounds to zero but is there with two significant digits:
/// 0.00045 -> "+0.045%"; below 1e-12, and exactly 0, "0.0%". Non-finite ->
/// "n/a".
std::string FormatPercent(double fraction, int decimals = 1);

/// The decimals a change judged against `threshold` (a fraction) is printed
/// with: those of the threshold as FormatThreshold writes it, at least 1 and
/// at most 4, so that a change never reads beyond or within a threshold it
/// is not (0.0012 -> 2: "+0.13% exceeds the 0.12% threshold", not "+0.1%").
int ChangeDecimals(double threshold);

/// A share of a whole (a fraction in [0, 1]) as an unsigned percentage with
/// `decimals` decimals (0 to 3): 0.1234 -> "12.34%", (0.45, 1) -> "45.0%".
/// Non-finite -> "n/a".
std::string FormatShare(double fraction, int decimals = 2);

/// A measured share rounded to 0.1%, the decimal left out when it is 0:
/// 0.02 -> "2%", 0.98437 -> "98.4%". Non-finite -> "n/a".
std::string FormatRoundedPercent(double fraction);

/// A set value (a threshold, a confidence) as the gate applies it, to twelve
/// significant digits: 0.02 -> "2%", 0.025 -> "2.5%", 0.0004 -> "0.04%",
/// 0.12345 -> "12.345%", 0.99999 -> "99.999%". Non-finite -> "n/a".
std::string FormatThreshold(double fraction);

/// A minimum detectable effect, compactly: two significant digits, at most
/// one decimal, signed as the change it stands for (a slowdown of a
/// lower-is-better metric "+", a drop of a higher-is-better one "-"):
/// 0.113 -> "+11%", 0.042 -> "+4.2%", 0.0049 -> "+0.5%"; with
/// lower_is_better false 0.2 -> "-20%". A slowdown of tenfold or more is a
/// factor with two significant digits: 13.7 -> "×15", 14873 -> "×15,000",
/// beyond a millionfold ">×1,000,000". Non-finite or negative -> "n/a".
std::string FormatDetectable(double fraction, bool lower_is_better = true);

/// A ratio current/baseline as a signed change: 1.041 -> "+4.1%", 0.95 ->
/// "-5.0%", 12.5 -> "+1150.0%", 0 -> "-100.0%"; as a factor where a
/// percentage says it badly, a positive ratio that would round to -100.0%
/// and a thousandfold rise or more: 1e-9 -> "×1e-09", 1234 -> "×1,200",
/// 1e9 -> "×1e+09". Non-finite or negative -> "n/a".
std::string FormatRatio(double ratio, int decimals = 1);

/// A ratio current/baseline as a change with its interval:
/// (1.041, 1.029, 1.053) -> "+4.1% [+2.9%, +5.3%]". Without an interval only the
/// change is printed; without a ratio "n/a".
/// `decimals` as FormatPercent's (ChangeDecimals of the threshold the change
/// is judged against).
std::string FormatRatioCi(std::optional<double> ratio, std::optional<double> ci_low,
                          std::optional<double> ci_high, int decimals = 1);

/// Seconds with three (or `digits`, 1 to 15) significant digits in ns, us,
/// ms or s: 1.234e-3 -> "1.23 ms", 0.5 -> "500 ms", 12.345 -> "12.3 s";
/// (1.00045e-6, 5) -> "1.0005 us". Non-finite -> "n/a".
std::string FormatDuration(double seconds, int digits = 3);

/// Bytes with three (or `digits`) significant digits in binary units: 512 ->
/// "512 B", 1536 -> "1.50 KiB", 3 << 20 -> "3.00 MiB".
std::string FormatBytes(int64_t bytes, int digits = 3);

/// A lower bound of bytes: "≥ " and the bytes rounded *down* to three
/// significant digits, so the text never claims more than is known:
/// 1,000,000 -> "≥ 976 KiB" (977 KiB would be 1,000,448 B).
std::string FormatBytesAtLeast(int64_t bytes);

/// A clock in whole megahertz: 1.41e9 -> "1410 MHz". Non-finite -> "n/a".
std::string FormatFrequency(double hz);

/// A number exactly as read, for a diagnostic: the shortest text that reads
/// back to `v` (0 -> "0", -1 -> "-1", 1e-9 -> "1e-09"), "NaN", "Infinity"
/// or "-Infinity" (the literals the JSON reader accepts).
std::string FormatExactNumber(double v);

/// A count and its noun, singular for one: (1, "run") -> "1 run", (12,
/// "run") -> "12 runs", (0, "workload") -> "0 workloads". `noun` takes an
/// "s" for its plural.
std::string FormatCount(size_t n, std::string_view noun);

/// A p-value with two significant digits; below 0.0001 "<0.0001". Non-finite -> "n/a".
std::string FormatPValue(double p);

/// A metric value in the unit its name implies: "time" and "kernel:*" as
/// durations, "peak_memory" and "*bytes" as bytes, "throughput" per second,
/// anything else with four significant digits (`digits` + 1: a caller that
/// must tell two values apart asks for more).
std::string FormatMetricValue(std::string_view metric, double value, int digits = 3);

/// A value in an explicit unit (a workload's own primary metric): "s" as a
/// duration, "B" as bytes; otherwise integers below 10^15 exactly and other
/// numbers with four significant digits, followed by the unit:
/// (70, "req/s") -> "70 req/s", (1234567, "instructions") -> "1234567
/// instructions", (0.51917, "x") -> "0.5192 x". An empty unit prints the
/// number alone. The unit is untrusted text: callers escape the result for
/// their output format. Durations and bytes take `digits` significant
/// digits, other non-integers `digits` + 1. Non-finite -> "n/a".
std::string FormatValueInUnit(double value, std::string_view unit, int digits = 3);

}  // namespace gpugate
