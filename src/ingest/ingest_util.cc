// Helpers shared by the benchmark-file readers (see ingest_util.h).
#include "ingest/ingest_util.h"
#include "util/text/escape.h"
#include "util/text/format.h"

#include <cmath>
#include <cstdio>
#include <ctime>
#include <limits>

namespace gpugate::detail {

std::string FieldReader::PathOf(std::string_view key) const {
  return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
}

Error FieldReader::Missing(std::string_view key, const JsonValue& at, const std::string& path,
                           const std::string& message) const {
  if (const JsonValue* member = object_.Find(key); member != nullptr && member->IsNull())
    return ErrorAt(*member, PathOf(key), "null where a value is required");
  return ErrorAt(at, path, message);
}

Error FieldReader::ErrorAt(const JsonValue& at, const std::string& path,
                           const std::string& message) const {
  return JsonError(file_, at, path, message);
}

Status CheckKeyName(const FieldReader& f, const JsonValue& at, const std::string& path, std::string_view noun,
                    const std::string& key) {
  std::optional<std::string> problem = NameProblem(key);
  if (!problem) return Status::Ok();
  const bool vowel = !noun.empty() && std::string_view("aeiou").find(noun.front()) != std::string_view::npos;
  return f.ErrorAt(at, path,
                   std::string(noun) + " " + QuoteInput(key) + ": " + (vowel ? "an " : "a ") + std::string(noun) +
                       " name must be printable text: " + *problem);
}

std::string ContextKey(const std::string& key) { return RepairUtf8(key); }

Result<const JsonValue*> FieldReader::Typed(std::string_view key, JsonValue::Type type,
                                            const char* expected) const {
  const JsonValue* v = object_.Find(key);
  if (v == nullptr || v->IsNull()) return static_cast<const JsonValue*>(nullptr);
  if (v->type != type)
    return ErrorAt(*v, PathOf(key), std::string("expected ") + expected + ", got " + v->TypeName());
  return v;
}

Result<std::optional<std::string>> FieldReader::String(std::string_view key) const {
  Result<const JsonValue*> v = Typed(key, JsonValue::Type::kString, "a string");
  if (!v.ok()) return v.error();
  if (*v == nullptr) return std::optional<std::string>();
  return std::optional<std::string>((*v)->string);
}

Result<std::optional<double>> FieldReader::Number(std::string_view key) const {
  Result<const JsonValue*> v = Typed(key, JsonValue::Type::kNumber, "a number");
  if (!v.ok()) return v.error();
  if (*v == nullptr) return std::optional<double>();
  return std::optional<double>((*v)->number);
}

Result<std::optional<int64_t>> FieldReader::Integer(std::string_view key) const {
  Result<const JsonValue*> v = Typed(key, JsonValue::Type::kNumber, "an integer");
  if (!v.ok()) return v.error();
  if (*v == nullptr) return std::optional<int64_t>();
  const JsonValue& n = **v;
  if (n.is_integer) return std::optional<int64_t>(n.integer);
  // 2^63 as a double; anything at or beyond it does not fit.
  if (!std::isfinite(n.number) || n.number != std::floor(n.number) ||
      std::fabs(n.number) >= 9.2233720368547758e18)
    return ErrorAt(n, PathOf(key), "expected an integer, got " + FormatNumber(n.number));
  return std::optional<int64_t>(static_cast<int64_t>(n.number));
}

Result<std::optional<bool>> FieldReader::Bool(std::string_view key) const {
  Result<const JsonValue*> v = Typed(key, JsonValue::Type::kBool, "true or false");
  if (!v.ok()) return v.error();
  if (*v == nullptr) return std::optional<bool>();
  return std::optional<bool>((*v)->boolean);
}

Result<const JsonValue*> FieldReader::Array(std::string_view key) const {
  return Typed(key, JsonValue::Type::kArray, "an array");
}

Result<const JsonValue*> FieldReader::Object(std::string_view key) const {
  return Typed(key, JsonValue::Type::kObject, "an object");
}

std::string FormatNumber(double value) {
  // The ingest messages' spelling of the non-finite values; finite ones as
  // the text layer writes an exact number.
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
  return FormatExactNumber(value);
}

std::string ContentRunId(std::string_view prefix, std::string_view text) {
  // FNV-1a, 64-bit (Fowler, Noll, Vo): offset basis and prime from the spec.
  uint64_t h = 14695981039346656037ULL;
  for (char c : text) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ULL;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return std::string(prefix) + "-" + buf;
}

namespace {

bool Digits(std::string_view s, size_t pos, size_t n, int* out) {
  if (pos + n > s.size()) return false;
  int v = 0;
  for (size_t i = pos; i < pos + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    v = v * 10 + (s[i] - '0');
  }
  *out = v;
  return true;
}

}  // namespace

std::optional<int64_t> ParseTimestampNs(std::string_view s) {
  int year, mon, day, hour, min, sec;
  if (!Digits(s, 0, 4, &year) || s.size() < 19 || s[4] != '-' || !Digits(s, 5, 2, &mon) ||
      s[7] != '-' || !Digits(s, 8, 2, &day) || (s[10] != 'T' && s[10] != ' ') ||
      !Digits(s, 11, 2, &hour) || s[13] != ':' || !Digits(s, 14, 2, &min) || s[16] != ':' ||
      !Digits(s, 17, 2, &sec))
    return std::nullopt;
  if (mon < 1 || mon > 12 || day < 1 || day > 31 || hour > 23 || min > 59 || sec > 60)
    return std::nullopt;
  size_t i = 19;
  int64_t frac_ns = 0;
  if (i < s.size() && s[i] == '.') {
    ++i;
    int64_t scale = 100000000;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
      frac_ns += (s[i] - '0') * scale;
      scale /= 10;
      ++i;
    }
  }
  if (i >= s.size()) return std::nullopt;  // local time without a zone
  int offset_s = 0;
  if (s[i] == 'Z' || s[i] == 'z') {
    ++i;
  } else if (s[i] == '+' || s[i] == '-') {
    int sign = s[i] == '-' ? -1 : 1;
    int oh, om;
    if (!Digits(s, i + 1, 2, &oh)) return std::nullopt;
    size_t m = i + 3;
    if (m < s.size() && s[m] == ':') ++m;
    if (!Digits(s, m, 2, &om)) return std::nullopt;
    offset_s = sign * (oh * 3600 + om * 60);
    i = m + 2;
  } else {
    return std::nullopt;
  }
  if (i != s.size()) return std::nullopt;
  std::tm tm{};
  tm.tm_year = year - 1900;
  tm.tm_mon = mon - 1;
  tm.tm_mday = day;
  tm.tm_hour = hour;
  tm.tm_min = min;
  tm.tm_sec = sec;
  int64_t secs = static_cast<int64_t>(timegm(&tm)) - offset_s;
  // Nanoseconds since the epoch fit in int64 only from 1677 to 2262.
  constexpr int64_t kMaxSecs = std::numeric_limits<int64_t>::max() / 1000000000LL - 1;
  if (secs > kMaxSecs || secs < -kMaxSecs) return std::nullopt;
  return secs * 1000000000LL + frac_ns;
}

std::string FormatUtc(int64_t unix_ns) {
  std::time_t secs = static_cast<std::time_t>(unix_ns / 1000000000LL);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace gpugate::detail
