// Number formatting for reports (see format.h).
#include "util/text/format.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "util/strings.h"

namespace gpugate {
namespace {

std::string Printf(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

// Rounds a magnitude to `digits` significant digits (to the nearest, or down
// toward minus infinity).
double RoundSig(double v, int digits, bool down = false) {
  if (v == 0) return 0;
  const double magnitude = std::floor(std::log10(std::fabs(v)));
  const double scale = std::pow(10.0, digits - 1 - magnitude);
  return (down ? std::floor(v * scale) : std::round(v * scale)) / scale;
}

// Prints a value already rounded to `digits` significant digits with the
// number of decimals that shows exactly those digits.
std::string SigText(double r, int digits) {
  const double a = std::fabs(r);
  const int magnitude = a == 0 ? 0 : static_cast<int>(std::floor(std::log10(a)));
  const int decimals = std::max(0, digits - 1 - magnitude);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, r);
  return buf;
}

struct Unit {
  const char* name;
  double scale;  // canonical units per one of this unit
};

// Picks the largest unit whose value is at least 1 (after rounding to
// `digits` significant digits), so 999.96 ns becomes "1.00 us", not
// "1000 ns". `down`: rounded down, so the text never exceeds the value (a
// lower bound).
std::string ScaleSig(double value, const Unit* units, int count, int digits, bool down = false) {
  if (value == 0) return std::string("0 ") + units[0].name;
  const double a = std::fabs(value);
  int u = 0;
  while (u + 1 < count && RoundSig(a / units[u + 1].scale, digits, down) >= 1) ++u;
  const double r = RoundSig(value / units[u].scale, digits, down);
  return SigText(r, digits) + " " + units[u].name;
}

int ClampDigits(int digits) { return std::clamp(digits, 1, 15); }

}  // namespace

std::string FormatPercent(double fraction, int decimals) {
  if (!std::isfinite(fraction)) return "n/a";
  decimals = std::clamp(decimals, 1, 4);
  const double scale = std::pow(10.0, decimals);
  const double pct = std::round(fraction * 100.0 * scale) / scale;
  if (pct == 0) {
    // A change below 0.05% that is there (against a sub-percent threshold,
    // or in a count that moved by a few in a million) keeps two significant
    // digits: "+0.045%", not "0.0%" beside "exceeds the 0.04% threshold".
    // Below 1e-12 it is the float noise of a ratio of equal values.
    if (!(std::fabs(fraction) >= 1e-12)) return "0.0%";
    return Printf("%+.2g%%", fraction * 100.0);
  }
  // Beyond a million percent the digits say nothing: three significant ones.
  if (std::fabs(pct) >= 1e6) return Printf("%+.3g%%", pct);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%+.*f%%", decimals, pct);
  return buf;
}

int ChangeDecimals(double threshold) {
  if (!std::isfinite(threshold) || threshold <= 0) return 1;
  // The decimals the threshold is written with (FormatThreshold's text).
  const std::string text = FormatThreshold(threshold);
  const size_t dot = text.find('.');
  if (dot == std::string::npos) return 1;
  const int decimals = static_cast<int>(text.size() - dot - 2);  // less the '%'
  return std::clamp(decimals, 1, 4);
}

std::string FormatShare(double fraction, int decimals) {
  if (!std::isfinite(fraction)) return "n/a";
  static constexpr const char* kFormats[] = {"%.0f%%", "%.1f%%", "%.2f%%", "%.3f%%"};
  const int d = decimals < 0 ? 0 : decimals > 3 ? 3 : decimals;
  return Printf(kFormats[d], fraction * 100.0);
}

std::string FormatRoundedPercent(double fraction) {
  if (!std::isfinite(fraction)) return "n/a";
  const double pct = std::round(fraction * 1000.0) / 10.0;
  if (pct == std::round(pct)) return Printf("%.0f%%", pct);
  return Printf("%.1f%%", pct);
}

std::string FormatThreshold(double fraction) {
  if (!std::isfinite(fraction)) return "n/a";
  // The value the gate applies, as set: 0.04% and 0.25% (the instruction
  // lane's sub-percent thresholds), 12.345% and a confidence of 99.999%, not
  // their roundings (0%, 0.3%, 12.35%, 100%). Twelve significant digits hold
  // what a policy writes and leave out the float noise of the scaling
  // (0.07 * 100 = 7.000000000000001).
  return Printf("%.12g%%", fraction * 100.0);
}

std::string FormatDetectable(double fraction, bool lower_is_better) {
  if (!std::isfinite(fraction) || fraction < 0) return "n/a";
  const double pct = fraction * 100.0;
  const char* sign = lower_is_better ? "+" : "-";
  // Beyond +900% a percentage reads as noise ("+1487332%"): a slowdown of that
  // size is a factor, with two significant digits ("x15", "x15,000").
  if (lower_is_better && fraction + 1.0 >= 10.0) {
    const double factor = fraction + 1.0;
    if (factor >= 1e6) return ">\u00d71,000,000";
    const double unit = std::pow(10.0, std::floor(std::log10(factor)) - 1.0);
    const long long rounded = std::llround(std::round(factor / unit) * unit);
    std::string digits = std::to_string(rounded);
    for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3) digits.insert(i, ",");
    return "\u00d7" + digits;
  }
  // Two significant digits: 9.69% is +9.7%, and from 9.95% on whole percents.
  if (pct >= 9.95) return sign + Printf("%.0f%%", pct);
  // Below 1%, two significant digits too: +0.54%, +0.049% (not "+0%").
  if (pct < 0.995) return sign + Printf("%.2g%%", pct);
  const double tenths = std::round(pct * 10.0) / 10.0;
  if (tenths == std::round(tenths)) return sign + Printf("%.0f%%", tenths);
  return sign + Printf("%.1f%%", tenths);
}

namespace {

// Ratios a percentage says badly: a drop that rounds to -100.0% but left
// something (1 s to 1 ns reads as "became 0"), and a rise of a thousandfold
// or more (+99900.0%, +1e+11%).
bool NeedsFactor(double ratio) { return ratio > 0 && (ratio < 0.0005 || ratio >= 1000); }

std::string Factor(double ratio) {
  if (ratio >= 10 && ratio < 1e6) {
    // "×1,200": two significant digits with a thousands separator.
    const long long r = std::llround(ratio / std::pow(10.0, std::floor(std::log10(ratio)) - 1)) *
                        static_cast<long long>(std::pow(10.0, std::floor(std::log10(ratio)) - 1));
    std::string digits = std::to_string(r);
    for (int at = static_cast<int>(digits.size()) - 3; at > 0; at -= 3) digits.insert(static_cast<size_t>(at), ",");
    return "×" + digits;
  }
  return Printf("×%.2g", ratio);
}

}  // namespace

std::string FormatRatio(double ratio, int decimals) {
  if (!std::isfinite(ratio) || !(ratio >= 0)) return "n/a";
  if (NeedsFactor(ratio)) return Factor(ratio);
  return FormatPercent(ratio - 1.0, decimals);
}

std::string FormatRatioCi(std::optional<double> ratio, std::optional<double> ci_low,
                          std::optional<double> ci_high, int decimals) {
  if (!ratio) return "n/a";
  std::string out = FormatRatio(*ratio, decimals);
  if (out != "n/a" && ci_low && ci_high && std::isfinite(*ci_low) && std::isfinite(*ci_high)) {
    // One notation for the three: factors when any of them needs one.
    const bool factors = NeedsFactor(*ratio) || NeedsFactor(*ci_low) || NeedsFactor(*ci_high);
    auto text = [factors, decimals](double r) { return factors && r > 0 ? Factor(r) : FormatRatio(r, decimals); };
    out = text(*ratio) + " [" + text(*ci_low) + ", " + text(*ci_high) + "]";
  }
  return out;
}

std::string FormatDuration(double seconds, int digits) {
  if (!std::isfinite(seconds)) return "n/a";
  static constexpr Unit kUnits[] = {{"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3}, {"s", 1.0}};
  return ScaleSig(seconds, kUnits, 4, ClampDigits(digits));
}

namespace {

std::string BytesText(int64_t bytes, bool down, int digits = 3) {
  if (bytes > -1024 && bytes < 1024) {
    return std::to_string(bytes) + " B";
  }
  static constexpr Unit kUnits[] = {{"B", 1.0},
                                    {"KiB", 1024.0},
                                    {"MiB", 1048576.0},
                                    {"GiB", 1073741824.0},
                                    {"TiB", 1099511627776.0},
                                    {"PiB", 1125899906842624.0},
                                    {"EiB", 1152921504606846976.0}};
  return ScaleSig(static_cast<double>(bytes), kUnits, 7, ClampDigits(digits), down);
}

}  // namespace

std::string FormatBytes(int64_t bytes, int digits) { return BytesText(bytes, false, digits); }

std::string FormatBytesAtLeast(int64_t bytes) { return "≥ " + BytesText(bytes, true); }

std::string FormatFrequency(double hz) {
  if (!std::isfinite(hz)) return "n/a";
  return Printf("%.0f MHz", hz / 1e6);
}

std::string FormatExactNumber(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v < 0 ? "-Infinity" : "Infinity";
  char buf[40];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  if (ec != std::errc()) return "?";
  return std::string(buf, end);
}

std::string FormatCount(size_t n, std::string_view noun) {
  return std::to_string(n) + " " + std::string(noun) + (n == 1 ? "" : "s");
}

std::string FormatPValue(double p) {
  if (!std::isfinite(p)) return "n/a";
  if (p < 0.0001) return "<0.0001";
  return Printf("%.2g", p);
}

std::string FormatMetricValue(std::string_view metric, double value, int digits) {
  if (!std::isfinite(value)) return "n/a";
  digits = ClampDigits(digits);
  if (metric == "time" || StartsWith(metric, "kernel:") || EndsWith(metric, "_time")) {
    return FormatDuration(value, digits);
  }
  if (metric == "peak_memory" || EndsWith(metric, "bytes") || EndsWith(metric, "_memory")) {
    return FormatBytes(static_cast<int64_t>(std::llround(value)), digits);
  }
  char buf[64];
  if (metric == "throughput") {
    std::snprintf(buf, sizeof buf, "%.*g/s", digits, value);
    return buf;
  }
  std::snprintf(buf, sizeof buf, "%.*g", digits + 1, value);
  return buf;
}

std::string FormatValueInUnit(double value, std::string_view unit, int digits) {
  if (!std::isfinite(value)) return "n/a";
  digits = ClampDigits(digits);
  if (unit == "s") return FormatDuration(value, digits);
  if (unit == "B") return FormatBytes(static_cast<int64_t>(std::llround(value)), digits);
  const bool integral = value == std::floor(value) && std::fabs(value) < 1e15;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", 0, value);
  if (!integral) std::snprintf(buf, sizeof buf, "%.*g", digits + 1, value);
  std::string text = buf;
  if (!unit.empty()) text += " " + std::string(unit);
  return text;
}

}  // namespace gpugate
