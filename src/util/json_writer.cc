// UTF-8 validation for the JSON writing helpers (json_writer.h).
#include "util/json_writer.h"

namespace gpugate {

namespace {

/// Length of the valid UTF-8 sequence starting at s[i], or 0 if invalid.
/// Ranges from RFC 3629 §4 (the UTF8-octets grammar).
size_t SequenceLength(std::string_view s, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = byte(i);
  if (c < 0x80) return 1;
  size_t need;
  unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  if (c >= 0xC2 && c <= 0xDF) {
    need = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    need = 3;
    if (c == 0xE0) lo = 0xA0;       // no overlong forms
    if (c == 0xED) hi = 0x9F;       // no surrogates
  } else if (c >= 0xF0 && c <= 0xF4) {
    need = 4;
    if (c == 0xF0) lo = 0x90;       // no overlong forms
    if (c == 0xF4) hi = 0x8F;       // nothing above U+10FFFF
  } else {
    return 0;
  }
  if (i + need > s.size()) return 0;
  if (byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (size_t k = 2; k < need; ++k)
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
  return need;
}

}  // namespace

size_t ValidUtf8Prefix(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    if (static_cast<unsigned char>(s[i]) < 0x80) {
      ++i;
      continue;
    }
    const size_t n = SequenceLength(s, i);
    if (n == 0) return i;
    i += n;
  }
  return i;
}

std::string SanitizeUtf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    const size_t n = SequenceLength(s, i);
    if (n == 0) {
      out += "\xEF\xBF\xBD";  // U+FFFD REPLACEMENT CHARACTER
      ++i;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
  return out;
}

}  // namespace gpugate
