// Helpers shared by the gbench and nvbench readers: typed, optional member
// access on the positioned JSON DOM with line:col errors, safe quoting of
// untrusted names in messages, and small formatting utilities.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "util/json.h"
#include "util/result.h"

namespace gpugate::detail {

/// Reads optional members of one JSON object, checking their types. A member
/// that is absent or null gives std::nullopt; a member of another type gives
/// "name:line:col: path.key: expected a number, got string".
class FieldReader {
 public:
  FieldReader(const std::string& file, const JsonValue& object, std::string path)
      : file_(file), object_(object), path_(std::move(path)) {}

  Result<std::optional<std::string>> String(std::string_view key) const;
  /// Any number, NaN and infinities included (callers decide what they mean).
  Result<std::optional<double>> Number(std::string_view key) const;
  /// An integral number (1 and 1.0 both accepted; 1.5 is an error).
  Result<std::optional<int64_t>> Integer(std::string_view key) const;
  Result<std::optional<bool>> Bool(std::string_view key) const;
  /// The member itself when it is an array/object; nullptr when absent or null.
  Result<const JsonValue*> Array(std::string_view key) const;
  Result<const JsonValue*> Object(std::string_view key) const;

  /// "path.key" for messages.
  std::string PathOf(std::string_view key) const;
  /// The error for a required member that is not there: `message` at `at`
  /// (the object) when it is absent, and at the member when it is there but
  /// null ("[1].value: null where a value is required"), since null reads
  /// as absent to the getters above.
  Error Missing(std::string_view key, const JsonValue& at, const std::string& path,
                const std::string& message) const;
  /// An error located at `at`, with `path` as the subject.
  Error ErrorAt(const JsonValue& at, const std::string& path, const std::string& message) const;
  const std::string& file() const { return file_; }

 private:
  Result<const JsonValue*> Typed(std::string_view key, JsonValue::Type type,
                                 const char* expected) const;

  const std::string& file_;
  const JsonValue& object_;
  std::string path_;
};

/// A key a file gives a map of the results (a counter, a param, a context
/// entry) is printable text (NameProblem, as names are checked), so that no
/// two become one key where the writer repairs invalid UTF-8: an error at
/// `at` (the key's value; the DOM keeps no key positions), "name:line:col:
/// path: counter 'x\xed': a counter name must be printable text: ...".
Status CheckKeyName(const FieldReader& f, const JsonValue& at, const std::string& path, std::string_view noun,
                    const std::string& key);

/// A context entry's key as the results keep it: invalid UTF-8 repaired (the
/// writer would repair it anyway), whatever else it holds (a tab, 2 KB, the
/// text "(suite)": context is kept as text, never judged, and every output
/// escapes it). Of two keys that read alike after the repair the last is
/// kept, so none is written twice (a machine_info key "cpu.brand_raw" and
/// the cpu object's brand_raw: the object's, read after it).
std::string ContextKey(const std::string& key);

/// Shortest round-trip text of a number ("2000", "0.5", "nan").
std::string FormatNumber(double value);

/// A run id stable for the same input bytes: "<prefix>-<16 hex digits>"
/// (64-bit FNV-1a of the text).
std::string ContentRunId(std::string_view prefix, std::string_view text);

/// Parses "YYYY-MM-DD[T ]HH:MM:SS[.frac][Z|+HH:MM|-HH:MM|+HHMM]". When the
/// text carries a zone, returns nanoseconds since the Unix epoch; a local
/// time without a zone cannot be placed and gives std::nullopt, as does a
/// time outside what int64 nanoseconds hold (before 1677, after 2262).
std::optional<int64_t> ParseTimestampNs(std::string_view text);

/// ISO-8601 UTC text of a Unix time in ns: "2026-11-21T22:54:09Z".
std::string FormatUtc(int64_t unix_ns);

}  // namespace gpugate::detail
