// Helpers for writing gpugate's JSON files with a RapidJSON Writer or
// PrettyWriter: doubles in shortest round-trip form, non-finite numbers and
// empty optionals as null, strings escaped by the text layer (valid UTF-8,
// nothing a GitHub runner would execute).
#pragma once

#include <rapidjson/allocators.h>
#include <rapidjson/rapidjson.h>
#include <rapidjson/stringbuffer.h>

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstdint>
#include <new>
#include <optional>
#include <string>
#include <string_view>

#include "util/text/escape.h"

namespace gpugate {

// The string buffer every JSON writer of gpugate writes into. RapidJSON's
// default allocator does not check what malloc returns, so a writer that
// runs out of memory (a large results file under a memory limit) would
// write through a null pointer; this one throws std::bad_alloc instead,
// which the command reports as an error (exit 3) and which a workload's
// run catches like any other allocation failure.
class CheckedJsonAllocator {
 public:
  static const bool kNeedFree = true;
  void* Malloc(size_t size) {
    if (size == 0) return nullptr;
    void* p = std::malloc(size);
    if (p == nullptr) throw std::bad_alloc();
    return p;
  }
  void* Realloc(void* original, size_t /*original_size*/, size_t new_size) {
    if (new_size == 0) {
      std::free(original);
      return nullptr;
    }
    void* p = std::realloc(original, new_size);
    if (p == nullptr) throw std::bad_alloc();
    return p;
  }
  static void Free(void* p) { std::free(p); }
};

using JsonStringBuffer = rapidjson::GenericStringBuffer<rapidjson::UTF8<>, CheckedJsonAllocator>;

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

/// Whether RapidJSON can write `s` as it is: printable ASCII without '"',
/// '\\' and "##[" (the common case, checked without allocating).
inline bool IsPlainJsonText(std::string_view s) {
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c < 0x20 || c > 0x7E || c == '"' || c == '\\') return false;
    if (c == '#' && i + 2 < s.size() && s[i + 1] == '#' && s[i + 2] == '[') return false;
  }
  return true;
}

/// Writes a string through the text layer (JsonStringLiteral): valid UTF-8
/// (invalid bytes become U+FFFD), controls, bidi controls and "##[" escaped.
template <class Writer>
void WriteJsonString(Writer& w, std::string_view s) {
  if (IsPlainJsonText(s)) {
    w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
  } else {
    const std::string literal = JsonStringLiteral(s);
    w.RawValue(literal.data(), literal.size(), rapidjson::kStringType);
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
