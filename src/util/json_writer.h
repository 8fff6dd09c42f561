// Helpers for writing gpugate's JSON files with a RapidJSON Writer or
// PrettyWriter: doubles in shortest round-trip form, non-finite numbers and
// empty optionals as null, strings forced to valid UTF-8.
#pragma once

#include <rapidjson/rapidjson.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gpugate {

/// Shortest text that reads back to exactly `v` (std::to_chars), with ".0"
/// appended to integral values so the JSON shows a double. `v` must be
/// finite; returns the length written into `buf`.
inline int FormatJsonDouble(double v, char (&buf)[40]) {
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf) - 3, v);
  (void)ec;  // 40 bytes always suffice for a finite double
  int n = static_cast<int>(end - buf);
  bool has_point = false;
  for (int i = 0; i < n; ++i) {
    if (buf[i] == '.' || buf[i] == 'e') {
      has_point = true;
      break;
    }
  }
  if (!has_point) {
    buf[n++] = '.';
    buf[n++] = '0';
  }
  return n;
}

/// Length of the longest valid UTF-8 prefix of `s` (RFC 3629: no overlong
/// forms, no surrogates, nothing above U+10FFFF).
size_t ValidUtf8Prefix(std::string_view s);

/// `s` with every invalid UTF-8 sequence replaced by U+FFFD.
std::string SanitizeUtf8(std::string_view s);

/// Writes a double; NaN and infinities become null (JSON has no spelling).
template <class Writer>
void WriteJsonDouble(Writer& w, double v) {
  if (!std::isfinite(v)) {
    w.Null();
    return;
  }
  char buf[40];
  int n = FormatJsonDouble(v, buf);
  w.RawValue(buf, static_cast<size_t>(n), rapidjson::kNumberType);
}

/// Writes a string as valid UTF-8 (invalid bytes become U+FFFD).
template <class Writer>
void WriteJsonString(Writer& w, std::string_view s) {
  if (ValidUtf8Prefix(s) == s.size()) {
    w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
  } else {
    const std::string clean = SanitizeUtf8(s);
    w.String(clean.data(), static_cast<rapidjson::SizeType>(clean.size()));
  }
}

template <class Writer>
void WriteJsonValue(Writer& w, double v) { WriteJsonDouble(w, v); }
template <class Writer>
void WriteJsonValue(Writer& w, int64_t v) { w.Int64(v); }
template <class Writer>
void WriteJsonValue(Writer& w, int v) { w.Int(v); }
template <class Writer>
void WriteJsonValue(Writer& w, bool v) { w.Bool(v); }
template <class Writer>
void WriteJsonValue(Writer& w, const std::string& v) { WriteJsonString(w, v); }

/// Writes an optional value, or null when it is empty.
template <class Writer, class T>
void WriteJsonValue(Writer& w, const std::optional<T>& v) {
  if (v.has_value()) {
    WriteJsonValue(w, *v);
  } else {
    w.Null();
  }
}

/// Writes `"key": value` with the overloads above.
template <class Writer, class T>
void WriteJsonField(Writer& w, const char* key, const T& value) {
  w.Key(key);
  WriteJsonValue(w, value);
}

/// Writes `"key": "text"` for a C string.
template <class Writer>
void WriteJsonField(Writer& w, const char* key, const char* value) {
  w.Key(key);
  WriteJsonString(w, value);
}

}  // namespace gpugate
