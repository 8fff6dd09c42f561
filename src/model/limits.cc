// Bounds on measured values (see limits.h).
#include "model/limits.h"

#include <cmath>

#include "util/strings.h"  // Trim, EndsWith
#include "util/text/format.h"

namespace gpugate {

namespace {

// Values here are finite: the shortest text that reads back to them.
std::string Shortest(double v) { return FormatExactNumber(v); }

}  // namespace

std::optional<std::string> NotFiniteOrNegative(double v) {
  if (std::isnan(v)) return std::string("is NaN");
  if (std::isinf(v)) return std::string("is infinite");
  if (v < 0) return "is negative (" + Shortest(v) + ")";
  return std::nullopt;
}

std::optional<std::string> TimeProblem(double seconds) {
  if (auto p = NotFiniteOrNegative(seconds)) return p;
  if (seconds == 0) return std::string("is 0");
  if (seconds < kMinTimeSeconds) return "is below 1e-15 s (" + Shortest(seconds) + " s)";
  if (seconds >= kMaxTimeSeconds) return "is 1e9 s or more (" + Shortest(seconds) + " s)";
  return std::nullopt;
}

std::optional<std::string> ScaledTimeProblem(double value, double scale) {
  const double seconds = value * scale;
  // 5e-324 ns is not 0: it underflows to 0 only once scaled to seconds.
  if (value > 0 && !(seconds > 0)) return "is below 1e-15 s (" + Shortest(value) + " in its unit)";
  return TimeProblem(seconds);
}

std::optional<std::string> MetricValueProblem(double value) {
  if (auto p = NotFiniteOrNegative(value)) return p;
  if (value >= kMaxMetricValue) return "is 1e18 or more (" + Shortest(value) + ")";
  return std::nullopt;
}

std::optional<std::string> IngestedMetricValueProblem(double value) {
  if (auto p = MetricValueProblem(value)) return p;
  if (value > 0 && value < kMinMetricValue) return "is above 0 but below 1e-18 (" + Shortest(value) + ")";
  return std::nullopt;
}

std::optional<std::string> CountProblem(double value) {
  if (auto p = MetricValueProblem(value)) return p;
  if (value != std::floor(value)) return "is not a whole number (" + Shortest(value) + ")";
  return std::nullopt;
}

std::optional<double> CustomTimeUnitScale(std::string_view unit) {
  std::string u = Trim(unit);
  for (const char* per : {"/iter", "/op", "/call"}) {
    if (EndsWith(u, per)) {
      u = Trim(std::string_view(u).substr(0, u.size() - std::string_view(per).size()));
      break;
    }
  }
  if (u == "ns") return 1e-9;
  if (u == "us" || u == "\xC2\xB5s" || u == "\xCE\xBCs") return 1e-6;  // micro sign, Greek mu
  if (u == "ms") return 1e-3;
  if (u == "s") return 1.0;
  // The words, in any case ("sec", "Seconds", "msec", "milliseconds"): a
  // timing read as some other metric had its flat values taken as exact.
  std::string word;
  for (char c : u) word += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  for (const auto& [stem, scale] : {std::pair<const char*, double>{"nano", 1e-9}, {"micro", 1e-6}, {"milli", 1e-3},
                                    {"", 1.0}}) {
    const std::string s = stem;
    const std::string abbrev = s == "nano" ? "n" : s == "micro" ? "u" : s == "milli" ? "m" : "";
    for (const std::string& form : {s + "second", s + "seconds", abbrev + "sec", abbrev + "secs"})
      if (word == form) return scale;
  }
  return std::nullopt;
}

}  // namespace gpugate
