// A small positioned JSON DOM for gpugate's readers: every value remembers the
// line and column where it starts, so type errors can point at the input
// ("r.json:14:22: workloads[0].rounds[1][3]: expected a number, got string").
// Parsed with RapidJSON's SAX reader (NaN/Infinity literals accepted; callers
// decide whether they are valid where they appear). Not for huge files: traces
// use the streaming reader in src/trace/.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "util/result.h"

namespace gpugate {

class JsonValue {
 public:
  enum class Type { kNull, kBool, kNumber, kString, kArray, kObject };

  Type type = Type::kNull;
  bool boolean = false;
  double number = 0;          ///< every number (int64 values converted too)
  bool is_integer = false;    ///< the literal was an integer
  int64_t integer = 0;        ///< exact value when is_integer (and it fits)
  std::string string;
  std::vector<JsonValue> items;                            ///< array elements
  std::vector<std::pair<std::string, JsonValue>> members;  ///< object members, file order
  int line = 0;               ///< 1-based position of the value's first character
  int column = 0;

  // The destructor is defined in json.cc: clang with libstdc++ cannot
  // instantiate an inline one while pair<string, JsonValue> is incomplete.
  JsonValue() = default;
  JsonValue(const JsonValue&) = default;
  JsonValue(JsonValue&&) = default;
  JsonValue& operator=(const JsonValue&) = default;
  JsonValue& operator=(JsonValue&&) = default;
  ~JsonValue();

  bool IsNull() const { return type == Type::kNull; }
  bool IsBool() const { return type == Type::kBool; }
  bool IsNumber() const { return type == Type::kNumber; }
  bool IsString() const { return type == Type::kString; }
  bool IsArray() const { return type == Type::kArray; }
  bool IsObject() const { return type == Type::kObject; }
  /// Member by key (first match) or nullptr; nullptr too when not an object.
  const JsonValue* Find(std::string_view key) const;
  /// "null", "bool", "number", "string", "array", "object".
  const char* TypeName() const;
};

/// The most values one parsed document may hold in memory at once (about
/// 150 bytes each): beyond it the parse stops with an error at the value.
/// A streamed array's elements count only while they are handled.
inline constexpr size_t kMaxJsonValues = 2000000;
/// The most bytes of strings and keys one document may hold at once: text
/// kept from a file is copied into results, environments and reports, so
/// it must be a small part of the input limit.
inline constexpr size_t kMaxJsonStringBytes = size_t{64} << 20;

/// Where a text begins in its file when it is a piece of a larger document
/// (1-based), so positions in values and messages are the file's.
struct JsonOrigin {
  int line = 1;
  int column = 1;
};

/// Parses a whole document. Syntax errors: "name:line:col: <what>", exit code 2.
/// Also refused, with the position: a key that appears twice in one object
/// ("duplicate key 'a' (first at 3:5)"), nesting deeper than 512 levels,
/// more than kMaxJsonValues values or kMaxJsonStringBytes of strings, and
/// numbers beyond the double range.
Result<JsonValue> ParseJson(std::string_view text, const std::string& name);

/// Called by ParseJsonStreaming for each element of the streamed array:
/// `root` is the top-level object as parsed so far (members before the array
/// are complete), `index` the element's position in the array. A non-ok
/// Status stops the parse and is returned as is.
using JsonElementHandler =
    std::function<Status(const JsonValue& root, const JsonValue& element, size_t index)>;

/// Like ParseJson, but when the top level is an object, each element of its
/// array member `array_key` is passed to `on_element` as soon as it is
/// complete and then dropped, so memory stays bounded by one element. The
/// returned document has that array with no items (its position is kept).
Result<JsonValue> ParseJsonStreaming(std::string_view text, const std::string& name,
                                     std::string_view array_key,
                                     const JsonElementHandler& on_element,
                                     JsonOrigin origin = {});

/// What a JSON syntax fault is: the text ends inside the document (only
/// blanks follow the fault, or part of the literal or escape sequence being
/// read), a NUL byte stands there, or the text is wrong.
enum class JsonFault { kSyntax, kCutShort, kNulByte };

/// Classifies RapidJSON's fault `code` (a rapidjson::ParseErrorCode) at byte
/// `offset` of `text`.
JsonFault ClassifyJsonFault(std::string_view text, size_t offset, int code);

/// The words for a NUL byte in JSON text, in every reader.
inline constexpr char kJsonNulByteText[] = "a NUL byte, which JSON text cannot hold (binary data?)";
/// The message for gzip data where JSON text goes on (a file compressed
/// twice, or a compressed file joined to another with cat).
inline constexpr char kJsonGzipDataText[] =
    "gzip data inside JSON text (compressed twice, or joined to another file?): decompress it (gunzip) and give the JSON";

/// The words for that fault, the one wording of every JSON reader (text in
/// UTF-16 or UTF-32 is named as such, see WideEncodingText):
/// "unexpected end of file (truncated?): <RapidJSON's words>", the NUL byte,
/// or RapidJSON's words alone.
std::string JsonFaultText(std::string_view text, size_t offset, int code);

/// Where `text`, a JSON document cut short, ends (1-based line and column);
/// nullopt when it is complete, empty or not JSON at all. For a file whose
/// format could not be told because it ends early.
std::optional<std::pair<int, int>> JsonCutShortAt(std::string_view text);

/// When `head` (the first bytes of a file) is JSON text in UTF-16 or UTF-32
/// (a byte-order mark, or ASCII interleaved with NUL bytes, as a PowerShell
/// redirect writes it), the words that say so and how to convert it;
/// nullopt otherwise. JSON readers take UTF-8 only.
std::optional<std::string> WideEncodingText(std::string_view head);

/// "name:line:col: path: message" for a value in a parsed document.
Error JsonError(const std::string& name, const JsonValue& at, const std::string& path,
                const std::string& message);

}  // namespace gpugate
