// Bounds on measured values (see limits.h).
#include "model/limits.h"

#include <cmath>

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

std::optional<std::string> CountProblem(double value) {
  if (auto p = MetricValueProblem(value)) return p;
  if (value != std::floor(value)) return "is not a whole number (" + Shortest(value) + ")";
  return std::nullopt;
}

}  // namespace gpugate
