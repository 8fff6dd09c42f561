// YAML reading helpers shared by the suite and policy readers: node positions
// as file:line:col, typed scalar access that names the key and the offending
// value, and key checks with "did you mean". Nothing here throws; yaml-cpp
// exceptions are turned into Errors (exit code 2) at this seam.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "config/suite.h"
#include "util/result.h"

/// Propagates the Error of a Status/Result expression from the current function.
#ifndef GPUGATE_RETURN_IF_ERROR
#define GPUGATE_RETURN_IF_ERROR(expr)          \
  do {                                         \
    auto gpugate_status_ = (expr);             \
    if (!gpugate_status_.ok()) return gpugate_status_.error(); \
  } while (0)
#endif

/// `GPUGATE_ASSIGN_OR_RETURN(auto x, ReadSomething());` declares/assigns x or
/// returns the Error from the current function.
#ifndef GPUGATE_ASSIGN_OR_RETURN
#define GPUGATE_YAML_CONCAT_INNER_(a, b) a##b
#define GPUGATE_YAML_CONCAT_(a, b) GPUGATE_YAML_CONCAT_INNER_(a, b)
#define GPUGATE_ASSIGN_OR_RETURN(lhs, expr) \
  GPUGATE_ASSIGN_OR_RETURN_IMPL_(GPUGATE_YAML_CONCAT_(gpugate_result_, __LINE__), lhs, expr)
#define GPUGATE_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                   \
  if (!tmp.ok()) return tmp.error();                   \
  lhs = std::move(tmp).value()
#endif

namespace gpugate {

/// Limits on a YAML document, checked on the parser's events before a tree
/// is built (docs/suite.md "Limits"): nodes and bytes of text with every
/// alias expanded, and nesting depth. Errors point at the node that crosses them.
inline constexpr int64_t kMaxYamlNodes = 200000;
inline constexpr int kMaxYamlDepth = 64;
/// Bytes of scalar text (keys and values) with every alias expanded: at
/// least this much, and at least kYamlTextBytesPerInputByte times the size
/// of the file (an escape such as \L decodes to more bytes than it takes,
/// never to more than twice as many).
inline constexpr uint64_t kMaxYamlTextBytes = uint64_t{64} << 20;
inline constexpr uint64_t kYamlTextBytesPerInputByte = 4;
/// The text budget of a document of `input_bytes` bytes.
constexpr uint64_t MaxYamlTextBytes(uint64_t input_bytes) {
  return input_bytes * kYamlTextBytesPerInputByte > kMaxYamlTextBytes ? input_bytes * kYamlTextBytesPerInputByte
                                                                       : kMaxYamlTextBytes;
}

/// One value to read: a mapping entry (key node + value) or a list element.
/// `name` is what messages call it: "warmup", "argv[2]", "env.PATH".
struct YamlField {
  std::string name;
  YAML::Node key;    ///< the key's node; undefined for list elements
  YAML::Node value;  ///< may be Null (`key:` with nothing after it)
  /// Where the value is written when it is an alias (`warmup: *n`): yaml-cpp
  /// marks the value where its anchor is. Null mark otherwise.
  YAML::Mark alias = YAML::Mark::null_mark();
};

/// Reads the nodes of one YAML file. Every Error it returns is
/// "file:line:col: message" with 1-based line and column and exit code 2.
class YamlReader {
 public:
  explicit YamlReader(std::string file) : file_(std::move(file)) {}
  const std::string& file() const { return file_; }

  /// Parses one YAML document (an empty text gives a Null node; a second
  /// document is an error). Syntax errors
  /// are positioned at yaml-cpp's mark; tab indentation is named as such.
  /// A document beyond kMaxYamlNodes or kMaxYamlDepth is refused before
  /// its tree is built.
  Result<YAML::Node> Parse(const std::string& text) const;

  /// 1-based position of a node, at its value and not at an anchor or tag
  /// before it; 1:1 when yaml-cpp has none (empty document).
  /// The column counts characters (UTF-8 code points), as editors do, not
  /// the bytes yaml-cpp counts.
  SourceLocation Where(const YAML::Node& node) const;
  /// The same with the column in bytes (1-based): an index into the line's
  /// text, for callers that read the source around a node.
  SourceLocation ByteWhere(const YAML::Node& node) const;
  /// A yaml-cpp mark (0-based line, byte column) as a 1-based position with
  /// the column in characters.
  SourceLocation At(const YAML::Mark& mark) const;
  /// The 1-based character column of 0-based byte column `byte_column` of
  /// 0-based line `line` of the parsed text (one column per byte past the
  /// end of the line).
  int CharColumn(int line, int byte_column) const;
  /// The text Parse read: UTF-8 without a byte order mark (UTF-16 and
  /// UTF-32 decoded), the text yaml-cpp's lines and columns refer to.
  const std::string& Text() const { return text_; }
  /// Position of a field's value (of the alias, when the value is one), or of
  /// its key when the value is Null (yaml-cpp places a Null value at the next
  /// token, which may be lines further down).
  SourceLocation Where(const YamlField& field) const;

  static Error ErrorAt(const SourceLocation& at, const std::string& message);
  Error ErrorAt(const YAML::Node& node, const std::string& message) const;
  Error ErrorAt(const YamlField& field, const std::string& message) const;

  /// Entries of a mapping in file order. Precondition: map.IsMap().
  std::vector<YamlField> Entries(const YAML::Node& map) const;
  /// Elements of a list, named "<name>[i]" (0-based). Precondition: list.IsSequence().
  std::vector<YamlField> Elements(const YAML::Node& list, std::string_view name) const;
  /// The entry `key` of a mapping (first one if repeated), or nullopt.
  /// Precondition: map.IsMap(). `prefix` is prepended to the field's name
  /// ("synthetic." gives "synthetic.cv" in messages).
  std::optional<YamlField> Find(const YAML::Node& map, std::string_view key,
                                std::string_view prefix = "") const;

  /// Every key is a scalar, appears once and is one of `allowed`; otherwise
  /// "unknown key 'warmpu' (did you mean 'warmup'?)" at the key.
  /// Precondition: map.IsMap().
  Status CheckKeys(const YAML::Node& map, const std::vector<std::string>& allowed) const;
  /// The same for a field's mapping; when an alias brought it in, errors are
  /// at the alias and name the anchor's key. Precondition: field.value.IsMap().
  Status CheckKeys(const YamlField& field, const std::vector<std::string>& allowed) const;
  /// Element i of a list field (to put an error at the element), or the
  /// field itself when it holds one scalar instead of a list.
  YamlField ElementOf(const YamlField& field, size_t i) const;
  /// Every key of an open-ended mapping (env, params, thresholds) appears
  /// once: "duplicate key 'A' (first at 3:5)" at the second.
  Status CheckUniqueKeys(const YAML::Node& map) const;
  /// "missing required key 'name'" at the mapping when `key` is absent.
  Result<YamlField> Require(const YAML::Node& map, std::string_view key,
                            std::string_view prefix = "") const;

  /// Type checks: "'defaults' must be a mapping, got a list".
  Status ExpectMap(const YamlField& field) const;
  Status ExpectList(const YamlField& field) const;

  /// Typed scalars. Errors name the field and quote the value:
  /// "'warmup' must be an integer, got 'five'".
  Result<int64_t> Int(const YamlField& field) const;
  Result<int64_t> IntInRange(const YamlField& field, int64_t min, int64_t max) const;
  Result<uint64_t> Uint64(const YamlField& field) const;
  Result<double> Double(const YamlField& field) const;
  /// true/false (also yes/no, on/off, any case as yaml-cpp reads them).
  Result<bool> Bool(const YamlField& field) const;
  /// Any scalar's text (numbers and booleans included); not Null, lists or maps.
  Result<std::string> String(const YamlField& field) const;
  /// A list of scalars; with `allow_single` a lone scalar is a one-element list.
  Result<std::vector<std::string>> StringList(const YamlField& field, bool allow_single) const;
  /// One of `choices`: "unknown backend 'cdua' (did you mean 'cuda'?)".
  /// `what` names the value in the message ("backend", "kind").
  Result<std::string> Choice(const YamlField& field, std::string_view what,
                             const std::vector<std::string>& choices) const;
  /// Seconds, via ParseDuration ("500ms", "2s", plain number = seconds).
  Result<double> Duration(const YamlField& field) const;
  /// A fraction: a plain number (0.01) or a percentage text ("1%").
  Result<double> Fraction(const YamlField& field) const;
  /// `t`, read by Fraction from `field`: a bare number of 1 or more (no '%')
  /// is a percentage written without its sign far more often than 100% or
  /// more, and is refused with both readings: "'cv' 5 reads as a fraction,
  /// 500%: write 5% if that is meant (or 500%)".
  Status NotABarePercentage(const YamlField& field, double t) const;
  /// A size via ParseSize ("16Mi", "1K", "4096").
  Result<int64_t> Size(const YamlField& field) const;

  /// Short description of a node for messages: "'five'", "a list", "a mapping", "nothing".
  static std::string Describe(const YAML::Node& node);

 private:
  /// Where child `child` of a collection is written when it is an alias
  /// (children of a mapping count key, value, key, value...), else a null mark.
  YAML::Mark AliasAt(const YAML::Node& collection, size_t child) const;
  /// Remembers where the text ends and its last character that is not a
  /// blank, so that no position lies past the end (Where).
  void RememberEnd(const std::string& text) const;
  /// A mark of the parsed text with its column in bytes, 1-based.
  SourceLocation ByteAt(const YAML::Mark& mark) const;
  /// A node's mark (at its properties) moved to its value: past an anchor
  /// (`&a`) and a tag (`!!str`) and the blanks after each, when the value
  /// follows on the same line; with `to_tag`, past the anchor only.
  YAML::Mark PastProperties(const YAML::Mark& mark, bool to_tag) const;
  /// Where the tag of a node marked at `mark` is written.
  YAML::Mark TagAt(const YAML::Mark& mark) const;

  std::string file_;
  // Set by Parse: the end of the text (0-based line and column, in bytes)
  // and its last character that is not blank, if any.
  mutable YAML::Mark end_;
  mutable std::optional<YAML::Mark> last_;
  // Set by Parse: the text as UTF-8 without a byte order mark, and the byte
  // offset where each line starts, to turn yaml-cpp's byte columns into
  // character columns.
  mutable std::string text_;
  mutable std::vector<size_t> line_starts_;
  // Set by Parse: the first document's aliases, by the start of the
  // collection that holds each and its place there (DocumentScan).
  mutable std::map<std::tuple<int, int, size_t>, YAML::Mark> aliases_;
};

/// Parses a fraction text: "0.01" -> 0.01, "1%" -> 0.01, "2.5 %" -> 0.025.
Result<double> ParseFraction(const std::string& text);

}  // namespace gpugate
